#!/usr/bin/env bash
# Quick start, second command (and CI's): install what is missing, build, and
# run every test on the emulator. The plain tree (with the CUDA backend where
# nvcc is present: compile only without a GPU) runs the command-line tests,
# those of mpirun and of the box's hosts among them. Then the Python package's tests
# (report, compare; warnings are errors; the results-file fuzzers), opening
# reports in headless Chromium; the emulator alone (a CPU-only build) under
# ASan+UBSan with every test, then the mutation steps on that build (each named
# check forced to pass, and each careless source edit of scripts/mutants/catalogue.toml,
# must fail some test), its threaded tests under TSan, and
# the libFuzzer targets (clang). Each fuzzer runs FERRY_FUZZ_SECONDS (default
# 30; at 60 the fuzzers took 184 s of CI's 25 minutes on 2 cores). First,
# every tracked C++ file must be formatted as .clang-format says
# (scripts/check-format.sh).
# Two lanes: the stages run one after another, while scripts/build-trees.sh builds
# the sanitizer and fuzz trees at idle priority in the time they leave. Those
# builds stop while the emulator's unit tests and the README's commands run (see `alone`). Each
# stage's wall time is printed at the end, a failed run's too.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
. scripts/stage-times.sh
fuzz_seconds=${FERRY_FUZZ_SECONDS:-30}

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

run_python_tests() {  # PYTHON FERRY_BIN [PYTEST_ARG...]
  local python=$1 ferry_bin=$2
  shift 2
  local code=0
  (cd python && FERRY_BIN="$ferry_bin" FERRY_FUZZ_SECONDS=$fuzz_seconds "$python" -m pytest -q "$@") || code=$?
  if [ "$code" -eq 5 ]; then
    echo "test: pytest collected no tests in python/tests" >&2
    exit 1
  fi
  return "$code"
}

# Each careless edit of scripts/mutants/catalogue.toml alone, then all of them at once: each must fail a test.
source_mutants() {
  scripts/source-mutation.sh build-asan
  scripts/source-mutation.sh build-asan --all
}

# Waits until the second lane has built tree NAME; fails, with the build's log, when that build failed.
trees=$(mktemp -d)
wait_for_tree() {
  local name=$1
  until [ -f "$trees/$name" ]; do
    if ! kill -0 "$lane" 2> /dev/null && [ ! -f "$trees/$name" ]; then
      tail -50 "$trees/$name.log" >&2 || true
      echo "test: the background builds stopped before the $name tree was built" >&2
      return 1
    fi
    sleep 2
  done
  if [ "$(cat "$trees/$name")" != 0 ]; then
    tail -80 "$trees/$name.log" >&2
    echo "test: building the $name tree failed (log above)" >&2
    return 1
  fi
}

# Runs COMMAND with the second lane's builds stopped. The emulator's poll loops
# yield, and a yield hands the core to a runnable idle-priority compiler: beside
# the TSan build the ASan+UBSan unit tests took 293 s, alone 197; the whole of
# pytest beside the fuzz tree's build 198 s, alone 148. The plain tree's tests run
# beside the lane: they mostly wait (on mpirun, the box's links, Slurm), 117
# CPU-seconds in 206 s alone, and took 213 s while the ASan tree was built in what
# they left.
alone() {
  [ -z "$lane" ] || kill -STOP -- -"$lane" 2> /dev/null || true
  local code=0
  "$@" || code=$?
  [ -z "$lane" ] || kill -CONT -- -"$lane" 2> /dev/null || true
  return $code
}

lane=""
finish() {
  # The second lane is its own process group (set -m), so a failed run stops its compilers too
  # (continued, so that a lane stopped by `alone` receives the signal).
  [ -z "$lane" ] || { kill -- -"$lane" 2> /dev/null; kill -CONT -- -"$lane" 2> /dev/null; } || true
  print_stage_times
  rm -rf "$trees"
}
trap finish EXIT

# Every Debian package any stage needs, in one apt-get run.
stage "install packages" scripts/apt-install.sh test $(scripts/packages.sh build tests python fuzz format)
stage "format check" scripts/check-format.sh
# PyPI downloads (.venv: matplotlib, pytest, hypothesis) beside the first build.
python_found=$(mktemp)
stage setup-python scripts/setup-python.sh > "$python_found" &
python_setup=$!
# The second lane in a process group of its own (job control, set -m), not under setsid: setsid starts a new
# autogroup, which the kernel gives as much CPU as this script's whatever its tasks' policy. With the ASan tree
# building at idle priority under setsid, the CUDA build took 234 s; without it, 110 (105 alone).
set -m
chrt --idle 0 scripts/build-trees.sh "$trees" &
lane=$!
set +m

# .venv's Python, named before setup-python has made it (scripts/configure.sh would otherwise pick Debian's).
venv_python=-DFERRY_PYTHON=$PWD/.venv/bin/python
# The plain tree without the C++ unit tests: the ASan+UBSan tree runs every one of them. The plain tree runs
# the command-line tests (the workloads, mpirun, the box's hosts, install), whose timings or packages are its own.
if command -v nvcc > /dev/null; then
  stage "configure and build (CUDA backend)" scripts/setup.sh build ON "$venv_python" -DFERRY_UNIT_TESTS=OFF
else
  stage "configure and build" scripts/setup.sh build AUTO "$venv_python" -DFERRY_UNIT_TESTS=OFF
fi
stage "ctest build" run_tests build
wait "$python_setup"
python=$(tail -1 "$python_found")
rm -f "$python_found"
# Pure Python on one core, mostly: the second lane builds on the other. Apart from the README's commands, which
# run the emulator two at a time (alone: 104 of pytest's 148 s), pytest took 46 s beside the lane, 44 alone.
stage "pytest: results fuzzers" run_python_tests "$python" "$PWD/build/src/ferry" tests/test_fuzz_results.py
stage pytest run_python_tests "$python" "$PWD/build/src/ferry" --ignore=tests/test_fuzz_results.py \
  --ignore=tests/test_readme.py
stage "pytest: the README's commands" alone run_python_tests "$python" "$PWD/build/src/ferry" tests/test_readme.py
stage "wait for the asan+ubsan tree" wait_for_tree asan
# The mpirun tests beside the lane: 70 s, against 66 s alone.
stage "asan+ubsan: ctest (mpirun)" scripts/sanitize.sh asan test -L mpirun
stage "asan+ubsan: ctest" alone scripts/sanitize.sh asan test -LE mpirun
stage "mutation (build-asan)" alone scripts/mutation.sh build-asan
stage "source mutants (build-asan)" alone source_mutants
stage "wait for the tsan tree" wait_for_tree tsan
stage "tsan: ctest" alone scripts/sanitize.sh tsan test
stage "wait for the fuzz tree" wait_for_tree fuzz
stage "fuzz: run" scripts/fuzz.sh "$fuzz_seconds" run
