#!/usr/bin/env bash
# Installs every Debian 12 package graphd's build, tests, benchmarks and Python client need.
# Idempotent: when everything is present it checks with dpkg-query and returns in about a second.
# The same list is used by deploy/docker/Dockerfile (build stage).
set -euo pipefail

BUILD_PACKAGES=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config git
  # wire API: gRPC + protobuf (C++ and code generators)
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  # core libraries
  libabsl-dev libspdlog-dev libfmt-dev libcli11-dev libdnnl-dev ocl-icd-opencl-dev
  # ONNX import (protobuf classes, checker)
  libonnx-dev
  # KServe v2 HTTP/REST endpoints and Prometheus /metrics (header-only)
  libcpp-httplib-dev nlohmann-json3-dev
)
# `make image` (GRAPHD_DEPS=image): buildah builds the image, mmdebstrap its local base.
IMAGE_PACKAGES=(buildah mmdebstrap)
# The Python client (system interpreter /usr/bin/python3): `make run` installs it too.
CLIENT_PACKAGES=(python3 python3-grpcio python3-protobuf python3-numpy)
TEST_PACKAGES=(
  # the ONNX backend test suite
  libonnx-testdata
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # clang's thread-safety analysis of the ABSL_GUARDED_BY annotations (make test:
  # scripts/check-thread-safety.py; the build itself uses GCC)
  clang-16 libomp-16-dev
  # clang's sanitizer and libFuzzer runtimes (make test-asan, make fuzz: tests/sanitizers)
  libclang-rt-16-dev
  python3-pytest
  # reference models for the ONNX model tests (exported from torchvision, compared with torch)
  # and the model benchmark (bench/run_models.py: export, PyTorch eager timings)
  python3-torch python3-torchvision
  # SVG pictures of concrete functions (graphctl graph --format svg, cf.render)
  graphviz
  # scripts/device-bundle.sh (strip, ldd, xz) and its test
  binutils libc-bin xz-utils
  # promtool: the /metrics exposition is checked with `promtool check metrics`; curl:
  # the HTTP/REST endpoints are tested with it
  prometheus curl
  # the scale-out test: three replicas behind nginx's gRPC proxy (deploy/proxy)
  nginx-light
  # the Kubernetes manifests' test reads `kubectl kustomize` output (kubectl itself is
  # on these machines; node/npm below install the schema validator)
  python3-yaml
)

# GRAPHD_DEPS=build installs only what building the server and graphctl needs (the
# Docker image's build stage); GRAPHD_DEPS=run that and the Python client (`make run`);
# GRAPHD_DEPS=image the image tools (`make image`);
# the default (all) also installs what tests and benchmarks use.
case "${GRAPHD_DEPS:-all}" in
  build) PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  run) PACKAGES=("${BUILD_PACKAGES[@]}" "${CLIENT_PACKAGES[@]}") ;;
  image) PACKAGES=("${IMAGE_PACKAGES[@]}") ;;
  all) PACKAGES=("${BUILD_PACKAGES[@]}" "${CLIENT_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *) echo "install-deps: GRAPHD_DEPS must be build, run, image or all, not '${GRAPHD_DEPS}'" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

# node and npm (GRAPHD_DEPS=all): `make test` validates deploy/k8s with an npm package
# (kubernetes-models, installed by the test into the build tree from
# tests/deploy/k8s-validate/package-lock.json), and the model benchmark runs ONNX Runtime
# (onnxruntime-node, installed by the benchmark into build/bench/ort). From Debian only
# when none is on PATH, so an existing install (e.g. nodesource's node 20, which bundles
# npm) is kept.
if [ "${GRAPHD_DEPS:-all}" = all ]; then
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
