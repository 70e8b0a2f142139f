#!/usr/bin/env bash
# Runs the libFuzzer targets of an instrumented build (make fuzz / make fuzz-smoke).
#
#   run_fuzzers.sh [--seeds-only] BUILD_DIR SECONDS [TARGET...]
#
# Each target (default: all five) runs SECONDS on one core, two at a time, from its
# corpus in BUILD_DIR/fuzz/corpus/TARGET (kept between runs, so coverage accumulates)
# after the seeds make_corpus.py writes. Crashes, sanitizer reports, timeouts (30 s
# per input) and out-of-memory (4 GiB) are failures: the input goes to
# BUILD_DIR/fuzz/artifacts/TARGET/ and the log to BUILD_DIR/fuzz/TARGET.log. Prints one
# line per target with its executions; exits 1 when any target failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
SEEDS_ONLY=0
if [ "${1:-}" = "--seeds-only" ]; then SEEDS_ONLY=1; shift; fi
BUILD_DIR=${1:?usage: run_fuzzers.sh [--seeds-only] BUILD_DIR SECONDS [TARGET...]}
SECONDS_EACH=${2:?usage: run_fuzzers.sh [--seeds-only] BUILD_DIR SECONDS [TARGET...]}
shift 2
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(codecs requests source graphdef onnx)
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=$BUILD_DIR/fuzz

rm -rf "$OUT/seeds"
PYTHONPATH=clients/python "$PYTHON" tests/fuzz/make_corpus.py "$OUT" || exit 1

dict_for() {
  case $1 in
    source) echo "$OUT/python.dict" ;;
    graphdef|onnx|requests) echo "$OUT/ops.dict" ;;
    *) echo "" ;;
  esac
}

# A request for more memory than there is gets the server's own error, as with glibc;
# leaks are not checked per input (the server holds memory across inputs by design):
# make test-asan checks them when its servers exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

run_one() {
  local target=$1 bin=$BUILD_DIR/bin/${1}_fuzzer
  local corpus=$OUT/corpus/$target artifacts=$OUT/artifacts/$target log=$OUT/$target.log
  # --seeds-only (make fuzz-smoke): start from the seeds alone, in a corpus thrown away
  # after, so a short run takes the same time however large the kept corpus has grown.
  if [ "$SEEDS_ONLY" = 1 ]; then corpus=$OUT/smoke-corpus/$target; rm -rf "$corpus"; fi
  mkdir -p "$corpus" "$artifacts"
  local dict; dict=$(dict_for "$target")
  local args=(-max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=4096 -max_len=65536
              -print_final_stats=1 -artifact_prefix="$artifacts/")
  [ -n "$dict" ] && args+=(-dict="$dict")
  if [ ! -x "$bin" ]; then
    echo "fuzz $target: FAILED ($bin is missing: build with make fuzz)" && return 1
  fi
  "$bin" "${args[@]}" "$corpus" "$OUT/seeds/$target" >"$log" 2>&1
  local rc=$?
  local execs; execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  local cov; cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  if [ $rc -eq 0 ]; then
    echo "fuzz $target: ok, ${execs:-?} inputs in ${SECONDS_EACH} s, coverage ${cov:-?} edges, corpus $(ls "$corpus" | wc -l) files"
  else
    echo "fuzz $target: FAILED (exit $rc after ${execs:-?} inputs; log $log, inputs in $artifacts)"
    grep -E -m 20 'ERROR|SUMMARY|runtime error|fuzz server|codec property|Test unit written' "$log" | sed 's/^/  /'
  fi
  return $rc
}

failed=0
pids=()
for target in "${TARGETS[@]}"; do
  run_one "$target" > "$OUT/$target.result" &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
for target in "${TARGETS[@]}"; do cat "$OUT/$target.result"; done
exit $failed
