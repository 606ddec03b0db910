#!/usr/bin/env bash
# The emulator under a sanitizer (CMake presets): asan runs every C++ test with
# AddressSanitizer and UndefinedBehaviorSanitizer, tsan the tests whose work
# runs on several threads (the emulated devices, streams and teams) with
# ThreadSanitizer. Any report fails its test. `build` or `test` does one half
# (scripts/test.sh builds a tree while the one before it is tested).
# Usage: scripts/sanitize.sh asan|tsan [build|test]   (after scripts/setup.sh has installed the packages)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: scripts/sanitize.sh asan|tsan [build|test]}
part=${2:-all}

selection=() targets=()
if [ "$preset" = tsan ]; then
  # MPI's own libraries are not built with TSan, so its races would be reports about OpenMPI.
  selection=(-R "EmuStream|Kernel|Stream|Overlap|Dispatch|Bitonic|Beff|Topo|Link|Cli" -E "OverMpiRanks|FuzzCorpusReplays")
  # The selected tests are the C++ tests' binary and runs of the ferry program: nothing else is built.
  targets=(--target ferry_tests ferry)
fi

if [ "$part" != test ]; then
  # The same Python as scripts/configure.sh's builds (.venv, else python3 from the PATH).
  cmake --preset "$preset" -DFERRY_PYTHON="$PWD/.venv/bin/python" > "build-$preset.configure.log" 2>&1 ||
    { cat "build-$preset.configure.log"; exit 1; }
  cmake --build "build-$preset" -j"$(nproc)" "${targets[@]}"
fi
[ "$part" != build ] || exit 0

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
count=$(cd "build-$preset" && ctest -N "${selection[@]}" | sed -n 's/^Total Tests: //p')
if [ -z "$count" ] || [ "$count" -eq 0 ]; then
  echo "sanitize: no tests were collected in build-$preset" >&2
  exit 1
fi
(cd "build-$preset" && ctest --output-on-failure -j"$(nproc)" --timeout 900 "${selection[@]}")
