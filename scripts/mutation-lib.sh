#!/usr/bin/env bash
# Sourced by the two mutation steps (scripts/mutation.sh, scripts/source-mutation.sh): both turn
# something on in the mutation build (FERRY_MUTATION=ON, the ASan+UBSan tree, never installed),
# run tests until the first fails, and read ctest's own summary, so that a step that broke for
# another reason is not taken for a caught mutation.

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# mutation_build STEP DIR: DIR as an absolute path; exits, naming STEP, unless DIR is a mutation build.
mutation_build() {
  local step=$1 dir
  dir=$(cd "$2" 2> /dev/null && pwd) || { echo "$step: no build folder $2" >&2; exit 1; }
  grep -q '^FERRY_MUTATION:BOOL=ON' "$dir/CMakeCache.txt" ||
    { echo "$step: $dir was not configured with -DFERRY_MUTATION=ON" >&2; exit 1; }
  echo "$dir"
}

# tests_matching BUILD REGEX: how many tests of BUILD match REGEX.
tests_matching() { (cd "$1" && ctest -N -R "$2" | sed -n 's/^Total Tests: //p'); }

# until_first_failure BUILD LOG CTEST_ARG...: runs the tests until one fails (a caught mutation costs
# its first red test, not its whole selection), all output in LOG; never fails itself.
until_first_failure() {
  local build=$1 log=$2
  shift 2
  (cd "$build" && ctest -j"$(nproc)" --timeout 900 --stop-on-failure "$@" > "$log" 2>&1) || true
}

# failed_count LOG: the failed tests ctest's summary in LOG counts; empty when it gave none.
failed_count() { sed -n 's/^[0-9]*% tests passed, \([0-9]*\) tests\{0,1\} failed out of [0-9]*$/\1/p' "$1"; }

# first_failed LOG: up to three failed tests' names, comma-separated.
first_failed() { sed -n '/The following tests FAILED:/,$s/^[[:space:]]*[0-9]* - \([^ ]*\) .*/\1/p' "$1" | head -3 | paste -sd, -; }
