#!/usr/bin/env bash
# Every GPU check of issue 21 in one device call (the device tool's lease is short):
#
#   bash scripts/gpu-session.sh [--quick] [--bench-s S] [--bench-total-s S] [--cases C] [--compile]
#
# run on the device machine from the repository root with device-bundle/ carried
# (scripts/device-bundle.sh --tests). Steps, each with its own limit:
#  1. nvidia-smi; the CUDA libraries' search path (torch's nvidia-* wheels when the
#     loader lacks cuDNN/cuBLAS);
#  2. scripts/gpu-verify.sh (gpu_device_test, GPU sessions, ONNX and seed suites) -> $OUT/v;
#  3. bench/gpu/run_gpu_bench.py (graphd vs torch eager; --compile: torch.compile too) -> $OUT/b;
#  4. bench/gpu/placement_report.py (nodes off the GPU, copies, GPU vs CPU error, memory
#     after close) -> stdout and $OUT/b/placement.log.
# Exit status: the number of steps that failed.
set -uo pipefail
out=${OUT:-gpu-session-out}
quick="" bench_s=2 bench_total=300 cases="" compile=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=--quick; shift ;;
    --bench-s) bench_s=$2; shift 2 ;;
    --bench-total-s) bench_total=$2; shift 2 ;;
    --cases) cases="--cases $2"; shift 2 ;;
    --compile) compile=--torch-compile; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-session: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
export PYTHONUNBUFFERED=1
mkdir -p "$out/v" "$out/b"
source "$(dirname "$0")/gpu-env.sh"
fails=0
echo "== gpu-verify"
timeout 240 bash scripts/gpu-verify.sh --out "$out/v" $quick || fails=$((fails + 1))
echo "== run_gpu_bench"
# shellcheck disable=SC2086
timeout $((bench_total + 20)) python3 bench/gpu/run_gpu_bench.py --bundle device-bundle --out "$out/b" --budget-s "$bench_s" \
  --total-s "$bench_total" $cases $compile | tail -20 || fails=$((fails + 1))
echo "== placement"
PYTHONPATH=clients/python timeout 120 python3 bench/gpu/placement_report.py --graphd device-bundle/bin/graphd \
  --models /tmp/graphd_gpu_bench/models --out "$out/b" || fails=$((fails + 1))
nvidia-smi --query-gpu=memory.used --format=csv,noheader
exit $fails
