#!/usr/bin/env bash
# `ferry doctor --prometheus FILE` read by Prometheus' own checker: promtool
# (Debian's prometheus package) must find nothing to say of a healthy run's
# file or of one with a FAIL, and the FAIL must read 2 there. The file is
# what node_exporter's textfile collector reads.
# Usage: promtool_test.sh FERRY
set -uo pipefail
ferry=${1:?usage: promtool_test.sh FERRY}
fail() {
  echo "promtool_test: $*" >&2
  exit 1
}
command -v promtool > /dev/null ||
  fail "promtool is not installed: Debian's prometheus package has it (scripts/setup.sh installs it)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# NAME FAULT: a pass on two emulated GPUs with FERRY_FAULT_DOCTOR=FAULT, its file checked by promtool.
checked() {
  local name=$1 fault=$2
  FERRY_FAULT_DOCTOR=$fault "$ferry" doctor --backend emu --devices 0,1 --quiet --prometheus "$work/$name.prom" \
    > "$work/$name.txt" 2>&1
  echo $? > "$work/$name.code"
  [ -s "$work/$name.prom" ] || { cat "$work/$name.txt"; fail "the $name run wrote no file"; }
  promtool check metrics < "$work/$name.prom" > "$work/$name.lint" 2>&1 ||
    { cat "$work/$name.lint"; fail "promtool finds the $name run's file wrong (above)"; }
  [ ! -s "$work/$name.lint" ] || { cat "$work/$name.lint"; fail "promtool has something to say of the $name run's file"; }
}
checked healthy ""
[ "$(cat "$work/healthy.code")" = 0 ] || { cat "$work/healthy.txt"; fail "a healthy run exited $(cat "$work/healthy.code")"; }
grep -qE '^ferry_doctor_verdict\{.*check="verification",subject="host"\} 0$' "$work/healthy.prom" ||
  fail "no OK verification in the healthy file"
grep -qE '^ferry_doctor_findings\{.*verdict="FAIL"\} 0$' "$work/healthy.prom" || fail "the healthy file counts a FAIL"
checked failed pcie=4x8
[ "$(cat "$work/failed.code")" = 1 ] || { cat "$work/failed.txt"; fail "a FAIL exited $(cat "$work/failed.code")"; }
grep -qE '^ferry_doctor_verdict\{.*check="pcie link",subject="GPU 0",gpu="0",UUID="EMU-[^"]+"\} 2$' "$work/failed.prom" ||
  { cat "$work/failed.prom"; fail "the FAIL of pcie link on GPU 0 does not read 2"; }
echo "promtool_test: passed"
