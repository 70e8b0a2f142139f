#!/usr/bin/env bash
# The GPU checks of issue 6, in one command, for a session with a lent GPU. Run on the
# device machine from the repository root, with a bundle made by
# `scripts/device-bundle.sh --tests` carried along (64 MiB limit: see bench/README.md):
#
#   bash scripts/gpu-verify.sh [--bundle DIR] [--out DIR] [--quick]
#
# 1. nvidia-smi's GPU line;  2. gpu_device_test (kernel conformance GPU vs CPU, device,
# allocator);  3. the integration tests with every session on the GPU
# (GRAPHD_DEVICE=gpu): GPU sessions (results vs CPU, placement, memory back after
# close), the ONNX backend suites (exclusions.txt + exclusions_gpu.txt) and the seed
# examples; --quick runs only test_gpu_sessions.py.
# Logs go to --out (default $OUT, else gpu-verify-out/); exit status 1 if any step failed,
# 3 when everything passed but there was no GPU (every GPU case skipped).
# $PYTHON: the interpreter with grpcio, protobuf, numpy, pytest (default python3).
set -uo pipefail

bundle=device-bundle
out=${OUT:-gpu-verify-out}
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-verify: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ ! -x "$bundle/run" ]; then
  echo "gpu-verify: no bundle at $bundle (make one with scripts/device-bundle.sh --tests)" >&2
  exit 2
fi
bundle=$(cd "$bundle" && pwd)
mkdir -p "$out"
failed=()

have_gpu=1
if ! nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/device.txt" 2>&1; then
  have_gpu=0
fi
cat "$out/device.txt"

if "$bundle/run" gpu_device_test --gtest_brief=1 > "$out/gpu_device_test.log" 2>&1; then
  tail -3 "$out/gpu_device_test.log"
else
  failed+=(gpu_device_test)
  tail -40 "$out/gpu_device_test.log"
fi

# The Python client's generated stubs travel in the bundle (they are ignored by git).
cp "$bundle"/python/*_pb2*.py clients/python/graphd/v1/ 2>/dev/null || echo "gpu-verify: bundle has no Python stubs" >&2
# The ONNX backend data, where the bundle carries it (device-bundle.sh --onnx-testdata).
if [ -f "$bundle/onnx-testdata.tar.xz" ]; then
  mkdir -p /tmp/graphd-onnx-testdata
  xz -dc "$bundle/onnx-testdata.tar.xz" | tar -C /tmp/graphd-onnx-testdata -xf -
  export GRAPHD_ONNX_TESTDATA=/tmp/graphd-onnx-testdata/data GRAPHD_ONNX_PB2_DIR=/tmp/graphd-onnx-testdata/pb2
fi
tests=(tests/integration/test_gpu_sessions.py)
if [ "$quick" = 0 ]; then
  tests+=(tests/integration/test_onnx_conformance.py tests/integration/test_seed_*.py)
fi
if GRAPHD_BIN="$bundle/bin/graphd" GRAPHD_DEVICE=gpu PYTHONPATH=clients/python PYTHONUNBUFFERED=1 \
    "${PYTHON:-python3}" -m pytest -q -s -p no:cacheprovider "${tests[@]}" > "$out/pytest.log" 2>&1; then
  tail -15 "$out/pytest.log"
else
  failed+=(pytest)
  tail -60 "$out/pytest.log"
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "gpu-verify: FAILED: ${failed[*]} (logs in $out)"
  exit 1
fi
if [ "$have_gpu" = 0 ]; then
  echo "gpu-verify: NO GPU here (nvidia-smi failed): the checks ran but every GPU case skipped (logs in $out)"
  exit 3
fi
echo "gpu-verify: all GPU checks passed (logs in $out)"
