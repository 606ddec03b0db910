#!/usr/bin/env bash
# CI's source-mutation step: every careless edit in scripts/mutants/catalogue.toml
# must turn some test red. The mutation build (FERRY_MUTATION=ON: the ASan+UBSan
# tree, never installed) compiles each entry into a copy of its file as
# `(::ferry::mutant("ID") ? (replacement) : (original))` (scripts/mutants/schemata.py),
# so this step builds nothing: for each entry, FERRY_MUTANT=ID turns that edit on
# and the tests the entry names run until the first fails. The step fails, naming
# the entry, when they all pass; it also fails on an entry whose original text is
# missing from its file or found there more than once, and on one the build does
# not hold. A mutant that does not compile fails the build itself, naming it.
#
# Usage: scripts/source-mutation.sh BUILD_DIR [ID...]   every entry, or the ones named
#        scripts/source-mutation.sh BUILD_DIR --all     every mutant at once, every test until one fails: one must
# Each entry's ctest output is kept in BUILD_DIR/mutants/logs/ID.log.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/source-mutation.sh BUILD_DIR [--all | ID...]"
. scripts/mutation-lib.sh
build=$(mutation_build source-mutation "${1:?$usage}")
shift
# Another catalogue only for the step's own tests (python/tests/test_source_mutation.py).
catalogue=${FERRY_MUTANT_CATALOGUE:-scripts/mutants/catalogue.toml}
schemata=(python3 scripts/mutants/schemata.py)

# Every entry's text is in its file once, and the build holds every entry.
"${schemata[@]}" check "$catalogue" . || { echo "source-mutation: fix the entries above in $catalogue" >&2; exit 1; }
compiled=$(cat $(find "$build/mutants/src" -name '*.mutants' 2> /dev/null) /dev/null)
status=0
declare -A tests_of reason_of
ids=()
while IFS=$'\x1f' read -r id tests file reason; do
  ids+=("$id")
  tests_of[$id]=$tests
  reason_of[$id]=$reason
  if ! grep -qx "compiled $id" <<< "$compiled"; then
    left_out=$(grep "^left out $id:" <<< "$compiled" || true)
    echo "source-mutation: entry '$id' is not in $build: ${left_out:-nothing there compiles $file, or the build predates the entry (build it again)}" >&2
    status=1
  fi
done < <("${schemata[@]}" list "$catalogue")
[ $status -eq 0 ] || exit 1

logs=$build/mutants/logs
mkdir -p "$logs"

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
seconds_since() { local ms=$(($(now_ms) - $1)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }

if [ "${1:-}" = --all ]; then
  log=$logs/all.log
  echo "source-mutation: all ${#ids[@]} mutants at once, every test until one fails"
  FERRY_MUTANT=all until_first_failure "$build" "$log"
  failed=$(failed_count "$log")
  if [ -z "$failed" ]; then tail -20 "$log" >&2; echo "source-mutation: ctest gave no summary (log: $log)" >&2; exit 1; fi
  [ "$failed" -gt 0 ] || { echo "source-mutation: with every mutant on, every test passed" >&2; exit 1; }
  by=$(first_failed "$log")
  echo "source-mutation: with every mutant on, the suite fails, as it must: $by (log: $log)"
  exit 0
fi
if [ $# -gt 0 ]; then
  for id in "$@"; do [ -n "${tests_of[$id]:-}" ] || { echo "source-mutation: no entry '$id' in $catalogue" >&2; exit 1; }; done
  ids=("$@")
fi

missed=()
step_start=$(now_ms)
for id in "${ids[@]}"; do
  tests=${tests_of[$id]}
  count=$(tests_matching "$build" "$tests")
  if [ -z "$count" ] || [ "$count" -eq 0 ]; then
    echo "source-mutation: entry '$id': no test matches '$tests' in $build" >&2
    missed+=("$id")
    continue
  fi
  log=$logs/$id.log reached=$logs/$id.reached
  rm -f "$reached"
  start=$(now_ms)
  FERRY_MUTANT=$id FERRY_MUTANT_REACHED=$reached until_first_failure "$build" "$log" -R "$tests"
  failed=$(failed_count "$log")
  by=$(first_failed "$log")
  if [ -z "$failed" ]; then
    tail -20 "$log" >&2
    echo "source-mutation: entry '$id': ctest gave no summary (log: $log)" >&2
    missed+=("$id")
    continue
  fi
  seconds=$(seconds_since "$start")
  if [ "$failed" -gt 0 ]; then
    printf 'source-mutation: caught      %-48s by %s (%s s)\n' "$id" "$by" "$seconds"
  else
    ran=$([ -e "$reached" ] && echo "they ran its site" || echo "none of them ran its site")
    printf 'source-mutation: NOT CAUGHT  %-48s all %s tests matching %s passed; %s (%s s)\n' \
      "$id" "$count" "'$tests'" "$ran" "$seconds" >&2
    echo "    it breaks: ${reason_of[$id]}" >&2
    missed+=("$id")
  fi
done
printf 'source-mutation: %d of %d mutants caught in %s s\n' $((${#ids[@]} - ${#missed[@]})) "${#ids[@]}" \
  "$(seconds_since "$step_start")"
if [ ${#missed[@]} -gt 0 ]; then
  echo "source-mutation: no test noticed: ${missed[*]} (logs in $logs)" >&2
  exit 1
fi
