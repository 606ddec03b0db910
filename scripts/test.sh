#!/usr/bin/env bash
# Quick start, second command (and CI's): install what is missing, build, and
# run every test on the emulator. Where nvcc is present the CUDA backend is
# built too (compile only without a GPU), and a CPU-only build is checked beside it.
# Then the Python package's tests (report, compare) run against the built ferry,
# opening reports in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"

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
python=$(scripts/setup-python.sh | tail -1)

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
  scripts/setup.sh build ON
  run_tests build
  scripts/setup.sh build-cpu OFF
  run_tests build-cpu
else
  scripts/setup.sh build AUTO
  run_tests build
fi
run_python_tests "$PWD/build/src/ferry"
