#!/usr/bin/env bash
# The emulator under a sanitizer (CMake presets): asan runs every C++ test with
# AddressSanitizer and UndefinedBehaviorSanitizer, tsan the tests whose work
# runs on several threads (the emulated devices, streams and teams) with
# ThreadSanitizer. Any report fails its test. `build` or `test` does one half
# (scripts/test.sh builds a tree while the one before it is tested).
# CTEST_ARGUMENT... narrows the tests further (scripts/test.sh runs the ASan tree's mpirun tests apart).
# Usage: scripts/sanitize.sh asan|tsan [build|test [CTEST_ARGUMENT...]]   (after scripts/setup.sh has installed the packages)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: scripts/sanitize.sh asan|tsan [build|test [CTEST_ARGUMENT...]]}
part=${2:-all}
shift $(($# < 2 ? $# : 2))

suites=() selection=() targets=()
if [ "$preset" = tsan ]; then
  # The in-process tests of code that runs on several threads: the emulator's engine, each workload's
  # own suite, and the persistent kernel's roles timing out. Left to the plain and ASan builds: runs of
  # the command line (Cli, Output, the *OnTheEmulator runs, TheCommandExits...) and link's walks over
  # its plan and fault hooks, which drive the same threads again with other arguments, and the models,
  # which run on one thread. Under TSan those took 300 of 480 test-seconds on 2 cores, 150 s of it in
  # the *OnTheEmulator runs, which run one at a time. MPI's own libraries are not built with TSan, so
  # its races would be reports about OpenMPI.
  suites=(EmuStream Kernel Bitonic SortBench Stream StreamPersistent StreamTune Overlap OverlapKernel Dispatch
          DispatchLadder Beff Topo Link Cli/PersistentRoleThatNeverSeesItsChunk)
  selection=(-R "^($(IFS='|'; echo "${suites[*]}"))\."
             -E "TheCommandExits|ThePlanListsTheSteps|EveryCheckedRowOfASection")
  # The selected tests are the C++ tests' binary (only the files of threaded_test_sources, tests/CMakeLists.txt)
  # and runs of the ferry program: nothing else is built.
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
# A suite whose file the tree does not compile would be left out without a word.
for suite in "${suites[@]}"; do
  [ "$(cd "build-$preset" && ctest -N -R "^$suite\." | sed -n 's/^Total Tests: //p')" -gt 0 ] ||
    { echo "sanitize: build-$preset has no test of suite $suite: is its file in threaded_test_sources?" >&2; exit 1; }
done
selection+=("$@")
count=$(cd "build-$preset" && ctest -N "${selection[@]}" | sed -n 's/^Total Tests: //p')
if [ -z "$count" ] || [ "$count" -eq 0 ]; then
  echo "sanitize: no tests were collected in build-$preset" >&2
  exit 1
fi
(cd "build-$preset" && ctest --output-on-failure -j"$(nproc)" --timeout 900 "${selection[@]}")
