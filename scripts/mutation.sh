#!/usr/bin/env bash
# CI's mutation step: every named check (src/core/check.hpp) must be able to
# fail. For each check, FERRY_FORCE_PASS=NAME makes that one check report
# "intact" whatever it found, and the tests of its workload must then fail:
# a check that the suite does not miss when it is blind is a check no test holds.
# Only a build configured with FERRY_MUTATION=ON reads the variable (CI uses
# the ASan+UBSan emulator build, which is never installed), so this step costs
# no extra build.
# Usage: scripts/mutation.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/mutation-lib.sh
build=$(mutation_build mutation "${1:?usage: scripts/mutation.sh BUILD_DIR (configured with -DFERRY_MUTATION=ON)}")

# The tests that hold each workload's checks (ctest names: gtest's Suite.Test, or the ctest runs).
declare -A tests_of=(
  [link]='^Link\.'
  [stream]='^Stream\.'
  [overlap]='^Overlap\.'
  [dispatch]='^Dispatch\.'
  [beff]='^Beff\.'
  [topo]='^Topo\.'
  [model]='^ModelBeff\.'
)

names=$(sed -n 's/^ *"\([a-z_]*\.[a-z_]*\)",.*/\1/p' src/core/check.hpp)
[ -n "$names" ] || { echo "mutation: no check names found in src/core/check.hpp" >&2; exit 1; }

# Both ways round: every name is checked somewhere, and every check uses a listed name.
used=$(grep -rhoE '(checked|wrong_reported)\("[a-z_.]+"' src | sed -E 's/.*\("//; s/"$//' | sort -u)
status=0
for name in $names; do
  grep -qx "$name" <<< "$used" || { echo "mutation: check '$name' is listed but nothing in src/ reports through it" >&2; status=1; }
done
for name in $used; do
  grep -qx "$name" <<< "$names" || { echo "mutation: src/ reports through '$name', which check_names does not list" >&2; status=1; }
done
[ $status -eq 0 ] || exit 1

for name in $names; do
  workload=${name%%.*}
  selection=${tests_of[$workload]:-}
  [ -n "$selection" ] || { echo "mutation: no tests are named for workload '$workload' (check '$name')" >&2; exit 1; }
  count=$(tests_matching "$build" "$selection")
  if [ -z "$count" ] || [ "$count" -eq 0 ]; then
    echo "mutation: no tests match '$selection' in $build (check '$name')" >&2
    exit 1
  fi
  log="$build/mutation-$name.log"
  FERRY_FORCE_PASS=$name until_first_failure "$build" "$log" -R "$selection"
  failed=$(failed_count "$log")
  if [ -z "$failed" ]; then
    tail -20 "$log" >&2
    echo "mutation: ctest gave no summary for '$name' (log: $log)" >&2
    status=1
  elif [ "$failed" -eq 0 ]; then
    echo "mutation: with '$name' forced to pass, all $count tests matching '$selection' still passed" >&2
    status=1
  else
    echo "mutation: '$name' forced to pass: a test failed, as one must ($failed of the $count matching when ctest stopped)"
  fi
done
exit $status
