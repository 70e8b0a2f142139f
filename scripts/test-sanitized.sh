#!/usr/bin/env bash
# make test-asan: the C++ tests, then the Python suites against the instrumented server,
# of an ASan+UBSan build (BUILD_DIR, made by make build-asan). Every sanitizer report of
# any process (test binaries and every graphd the Python tests start, leaks included,
# checked when each exits) is written under BUILD_DIR/sanitizer-logs; the run fails
# when a test fails or a report was written, and prints the reports.
#
#   test-sanitized.sh BUILD_DIR [JOBS]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=$(realpath "${1:?usage: test-sanitized.sh BUILD_DIR [JOBS]}")
JOBS=${2:-$(nproc)}
PYTHON=${PYTHON:-/usr/bin/python3}
LOGS=$BUILD_DIR/sanitizer-logs
SUPP=$PWD/tests/sanitizers
rm -rf "$LOGS" && mkdir -p "$LOGS"

# allocator_may_return_null: a request for more memory than there is fails as with
# glibc (the server answers RESOURCE_EXHAUSTED) instead of ASan stopping the process.
export ASAN_OPTIONS="log_path=$LOGS/asan:allocator_may_return_null=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="log_path=$LOGS/ubsan:print_stacktrace=1:halt_on_error=1:suppressions=$SUPP/ubsan.supp"
# Servers start more slowly instrumented.
export GRAPHD_TEST_READY_TIMEOUT=60

status=0
echo "== C++ tests (ASan+UBSan) =="
(cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS" --timeout 900) || status=1

echo "== Python suites against the ASan+UBSan server =="
# Deselected (tests/sanitizers/python-deselect.txt): assertions on resident memory or
# on speed, which ASan's shadow memory, quarantine and slowdown make meaningless; they
# run in make test. (--rootdir .: node ids relative to the repository, as the list
# writes them.)
deselect=()
while read -r id; do
  [ -n "$id" ] && [ "${id:0:1}" != "#" ] && deselect+=(--deselect "$id")
done < "$SUPP/python-deselect.txt"
GRAPHD_BIN=$BUILD_DIR/bin/graphd PYTHONPATH=clients/python \
  "$PYTHON" -m pytest -q -p no:cacheprovider -c clients/python/pyproject.toml --rootdir . \
  clients/python/tests tests/integration tests/robustness \
  --ignore=tests/integration/test_gpu_bench.py --ignore=tests/integration/test_device_bundle.py \
  "${deselect[@]}" || status=1

reports=$(find "$LOGS" -type f | sort)
if [ -n "$reports" ]; then
  echo "== sanitizer reports ($(echo "$reports" | wc -l)) =="
  for f in $reports; do
    echo "--- $f"
    head -60 "$f"
  done
  status=1
else
  echo "== no sanitizer reports =="
fi
exit $status
