#!/usr/bin/env bash
# Quick start, second command (and CI's): install what is missing, build, and
# run every test on the emulator. Where nvcc is present the CUDA backend is
# built too (compile only without a GPU). Then the emulator alone (a CPU-only
# build) under ASan+UBSan with every test, then the mutation step on that build
# (each named check forced to pass must fail some test), its threaded tests under TSan, the
# libFuzzer targets (clang) and the Python package's tests (report, compare;
# warnings are errors; the results-file fuzzer), opening reports in headless
# Chromium. Each fuzzer runs FERRY_FUZZ_SECONDS (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
. scripts/stage-times.sh

run_tests() {
  local dir=$1
  local count
  count=$(cd "$dir" && ctest -N | sed -n 's/^Total Tests: //p')
  if [ -z "$count" ] || [ "$count" -eq 0 ]; then
    echo "test: no tests were collected in $dir" >&2
    exit 1
  fi
  (cd "$dir" && ctest --output-on-failure -j"$(nproc)" --timeout 300)
}

# Python first, so the C++ builds point `ferry report` at its environment.
python_found=$(mktemp)
stage setup-python scripts/setup-python.sh > "$python_found"
python=$(tail -1 "$python_found")

run_python_tests() {
  local ferry_bin=$1
  local code=0
  (cd python && FERRY_BIN="$ferry_bin" "$python" -m pytest -q) || code=$?
  if [ "$code" -eq 5 ]; then
    echo "test: pytest collected no tests in python/tests" >&2
    exit 1
  fi
  return "$code"
}

if command -v nvcc > /dev/null; then
  stage "configure and build (CUDA backend)" scripts/setup.sh build ON
else
  stage "configure and build" scripts/setup.sh build AUTO
fi
stage "ctest build" run_tests build
stage "asan+ubsan: build and ctest" scripts/sanitize.sh asan
stage "mutation (build-asan)" scripts/mutation.sh build-asan
stage "tsan: build and ctest" scripts/sanitize.sh tsan
fuzz_seconds=${FERRY_FUZZ_SECONDS:-60}
stage "fuzz: build and run" scripts/fuzz.sh "$fuzz_seconds"
FERRY_FUZZ_SECONDS=$fuzz_seconds stage pytest run_python_tests "$PWD/build/src/ferry"
