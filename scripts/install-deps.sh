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
  # Python client (system interpreter /usr/bin/python3)
  python3 python3-grpcio python3-protobuf python3-numpy python3-pytest
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
# Docker image's build stage); the default also installs what tests and benchmarks use.
PACKAGES=("${BUILD_PACKAGES[@]}")
if [ "${GRAPHD_DEPS:-all}" != build ]; then
  PACKAGES+=("${TEST_PACKAGES[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

# The model benchmark's ONNX Runtime side (`make bench` only; `make test` needs no node):
# node and npm, from Debian only when none is on PATH, so an existing install (e.g.
# nodesource's node 20, which bundles npm) is kept. The npm package itself
# (onnxruntime-node, bench/ort/package-lock.json) is installed by the benchmark into
# build/bench/ort. GRAPHD_SKIP_BENCH_DEPS=1 (or GRAPHD_DEPS=build) skips this.
if [ "${GRAPHD_SKIP_BENCH_DEPS:-0}" != 1 ] && [ "${GRAPHD_DEPS:-all}" != build ]; then
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
