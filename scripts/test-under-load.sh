#!/usr/bin/env bash
# The whole C++ suite (ctest), once, while stress-ng keeps WORKERS CPU workers
# busy beside it (Debian's stress-ng, installed when missing): a test that
# depends on how fast the machine is at that moment, not on what the code
# does, fails here. stress-ng runs at this script's own priority, so it
# competes with the tests as an equal; it is stopped when the suite ends.
# Exits with ctest's status: 0 only when every test passed.
# Usage: scripts/test-under-load.sh [BUILD_DIR] [WORKERS]   (default: build, 4)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
workers=${2:-4}

[ -f "$build_dir/CTestTestfile.cmake" ] ||
  { echo "test-under-load: no tests in $build_dir: build it first (scripts/setup.sh $build_dir)" >&2; exit 1; }
# scripts/test.sh configures its plain tree without the C++ unit tests; a whole suite has them.
[ -f "$build_dir/tests/ferry_tests" ] || {
  echo "test-under-load: $build_dir has no C++ unit tests (tests/ferry_tests): build them (scripts/setup.sh $build_dir)" >&2
  exit 1
}
scripts/apt-install.sh test-under-load stress-ng

# The limit only ends stress-ng should this script be killed before its trap runs.
stress-ng --cpu "$workers" --timeout 2h --quiet &
stress=$!
trap 'kill -TERM "$stress" 2> /dev/null || true; wait "$stress" 2> /dev/null || true' EXIT
sleep 1
kill -0 "$stress" 2> /dev/null || { echo "test-under-load: stress-ng did not start" >&2; exit 1; }
echo "test-under-load: ctest in $build_dir beside stress-ng --cpu $workers (pid $stress) on $(nproc) cores"

start=$SECONDS
code=0
(cd "$build_dir" && ctest --output-on-failure -j"$(nproc)" --timeout 300) || code=$?
echo "test-under-load: ctest exited $code after $((SECONDS - start)) s under load"
exit "$code"
