#!/usr/bin/env bash
# `make wheel`: a wheel of the Python client with its generated gRPC/protobuf stubs
# inside (a plain `pip install clients/python` from a clone lacks them until the build
# has made them). Built offline from a copy in the build tree; needs the stubs built
# first (the Makefile target builds graphd_python_stubs).
#
#   scripts/make-wheel.sh [BUILD_DIR]      # -> BUILD_DIR/dist/graphd-VERSION-py3-none-any.whl
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
python=${PYTHON:-/usr/bin/python3}
for stub in graphd/v1/session_pb2.py graphd/v1/session_pb2_grpc.py graphd/kserve/grpc_service_pb2_grpc.py; do
  if [ ! -f "clients/python/$stub" ]; then
    echo "make-wheel: clients/python/$stub is missing: build the stubs first (make wheel does)" >&2
    exit 1
  fi
done
src="$build/wheel-src"
rm -rf "$src"
mkdir -p "$src" "$build/dist"
cp -r clients/python/graphd clients/python/pyproject.toml clients/python/README.md "$src/"
find "$src" -name __pycache__ -prune -exec rm -rf {} +
rm -f "$build"/dist/graphd-*.whl
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --no-index -w "$build/dist" "$src"
wheel=$(ls "$build"/dist/graphd-*.whl)
# The stubs must be inside: the point of the wheel.
"$python" - "$wheel" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = {"graphd/v1/session_pb2.py", "graphd/v1/session_pb2_grpc.py", "graphd/kserve/grpc_service_pb2_grpc.py",
        "graphd/__init__.py"}
missing = sorted(need - names)
if missing:
    sys.exit("make-wheel: %s lacks %s" % (sys.argv[1], ", ".join(missing)))
PY
echo "$wheel"
