#!/usr/bin/env bash
# Every stream ferry writes is checked: tables sent to a full disk or a closed standard output are exit 3 with
# the cause, after the results file is written; a closed or full standard error loses the messages, not the run.
# Usage: standard_streams_test.sh FERRY
set -uo pipefail
ferry=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "standard_streams_test: $*" >&2; exit 1; }
cd "$work" || exit 1
run_link() { "$ferry" run link --backend emu --quick -q --round-trips 200 "$@"; }

run_link --json full.json > /dev/full 2> err.log
code=$?
[ "$code" -eq 3 ] || fail "tables to a full disk: exit $code, not 3"
grep -q "^ferry: cannot write to standard output: No space left on device" err.log || fail "no cause: $(cat err.log)"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["verification"] == "PASSED"' full.json ||
  fail "tables to a full disk: the results file was not written"

run_link --json closed.json >&- 2> err.log
code=$?
[ "$code" -eq 3 ] || fail "a closed standard output: exit $code, not 3"
grep -q "^ferry: cannot write to standard output: Bad file descriptor" err.log || fail "no cause: $(cat err.log)"
[ -s closed.json ] || fail "a closed standard output: the results file was not written"

for err in "2>&-" "2>/dev/full"; do
  eval 'run_link --json err.json > out.log' "$err"
  code=$?
  [ "$code" -eq 0 ] || fail "standard error $err: exit $code, not 0"
  grep -q "^link: PASSED" out.log || fail "standard error $err: no tables"
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' err.json || fail "standard error $err: no results file"
  rm -f err.json
done
echo "standard_streams_test: passed"
