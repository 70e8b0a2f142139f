#!/usr/bin/env bash
# Issue 15's GPU checks in one device call: served models on the GPU (instance_group
# KIND_GPU) and the serving table there, batching off and on.
#
#   bash scripts/gpu-serving.sh [--budget-s S] [--serving-only] [--skip-extra] [--skip-cpu]
#
# Run on the device machine from the repository root with a bundle carried that holds
# graphd, serving_bench and gpu_device_test:
#   scripts/device-bundle.sh --program graphd --program graphctl --program serving_bench \
#     --program gpu_device_test
# Steps, each with its own limit, logs under $OUT (default gpu-serving-out/):
#  1. the GPU line and library path (scripts/gpu-env.sh);
#  2. bench/models/export_models.py --only mlp,resnet18 (torch there);
#  3. serving_bench --device gpu (MLP and ResNet-18; concurrency 1, 8, 32; batching
#     off and on; the server's default of 2 batches in flight on a GPU) ->
#     serving_gpu.log / .csv; ResNet-18 again with 1 and with 4 batches in flight ->
#     serving_gpu_x1.log, serving_gpu_x4.log; then both on that
#     machine's CPU (16 cores) for comparison, unless --skip-cpu -> serving_cpu.*;
#  4. unless --serving-only: tests/integration/test_serving_gpu.py and
#     test_gpu_sessions.py on the real GPU;
#  5. unless --skip-extra or --serving-only: gpu_device_test, and the training tests
#     with GPU sessions.
# Exit status: the number of steps that failed.
set -uo pipefail
out=${OUT:-gpu-serving-out}
budget=2
extra=1
tests=1
cpu=1
while [ $# -gt 0 ]; do
  case "$1" in
    --budget-s) budget=$2; shift 2 ;;
    --skip-extra) extra=0; shift ;;
    --serving-only) extra=0; tests=0; shift ;;
    --skip-cpu) cpu=0; shift ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-serving: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
export PYTHONUNBUFFERED=1
mkdir -p "$out"
source "$(dirname "$0")/gpu-env.sh"
bundle=$(cd device-bundle && pwd)
cp "$bundle"/python/*_pb2*.py clients/python/graphd/v1/ 2>/dev/null
cp "$bundle"/python/kserve/*_pb2*.py clients/python/graphd/kserve/ 2>/dev/null
fails=0
step() {  # step NAME TIMEOUT COMMAND...: runs it, its output into $out/NAME.log, the tail shown
  local name=$1 limit=$2
  shift 2
  echo "== $name"
  local t0=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -n 14 "$out/$name.log"
  echo "-- $name: rc=$rc in $((SECONDS - t0)) s"
  [ $rc -eq 0 ] || fails=$((fails + 1))
}
models=/tmp/graphd-serving-models
step export 150 python3 bench/models/export_models.py --out "$models" --only mlp,resnet18
step serving_gpu 200 "$bundle/run" serving_bench --server "$bundle/bin/graphd" --models "$models" --device gpu \
  --budget-s "$budget" --csv "$out/serving_gpu.csv"
for n in 1 4; do  # ResNet-18 with one and with four batches in flight
  step serving_gpu_x$n 100 "$bundle/run" serving_bench --server "$bundle/bin/graphd" --models "$models" \
    --device gpu --only resnet18 --instances $n --budget-s "$budget"
done
[ "$cpu" = 1 ] && step serving_cpu 150 "$bundle/run" serving_bench --server "$bundle/bin/graphd" --models "$models" --device cpu \
  --budget-s "$budget" --csv "$out/serving_cpu.csv"
[ "$tests" = 1 ] && step pytest_serving 200 env GRAPHD_BIN="$bundle/bin/graphd" GRAPHD_DEVICE=gpu PYTHONPATH=clients/python \
  python3 -m pytest -q -p no:cacheprovider tests/integration/test_serving_gpu.py tests/integration/test_gpu_sessions.py
if [ "$extra" = 1 ]; then
  step gpu_device_test 150 "$bundle/run" gpu_device_test --gtest_brief=1
  step pytest_training 200 env GRAPHD_BIN="$bundle/bin/graphd" GRAPHD_DEVICE=gpu PYTHONPATH=clients/python \
    python3 -m pytest -q -x -p no:cacheprovider tests/integration/test_training.py tests/integration/test_gradient_tape.py
fi
nvidia-smi --query-gpu=memory.used --format=csv,noheader
echo "gpu-serving: $fails step(s) failed"
exit $fails
