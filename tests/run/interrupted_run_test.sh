#!/usr/bin/env bash
# A run that ends early keeps every row it finished: SIGINT, SIGTERM, a fault hook's error and --timeout each
# leave FILE.partial, marked incomplete with the reason, holding the rows of every step the progress lines show
# ended, in order; the results file is never touched; a later complete run removes the sidecar.
# Usage: interrupted_run_test.sh FERRY
set -uo pipefail
set -m  # job control: a background job of a script otherwise starts with SIGINT ignored
ferry=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "interrupted_run_test: $*" >&2; exit 1; }
cd "$work" || exit 1

# The sidecar holds the rows the progress lines say ended. stream's steps after the compute ceiling are one point
# each, named in its line ("[stream] [3/36] chunked at 16 KiB chunks, depth 4: ..."), and make a latency and a
# throughput row; link's run before them ended, so all its rows are there. ENDED_LAST: whether the last step
# begun may have ended (an interruption between steps) or cannot have (a failure inside it).
holds_what_ended() {
  local reason=$1 ended_last=$2
  python3 - "$reason" "$ended_last" r.json.partial err.log complete.json <<'PY' || fail "the sidecar does not hold what ended ($1)"
import json, re, sys
reason, ended_last, partial, log, complete = sys.argv[1], sys.argv[2] == "yes", *sys.argv[3:]
doc = json.load(open(partial))
lines = [l for l in open(log) if re.match(r"\[(link|stream)\] ", l)]
ended = doc["incomplete"]
assert reason in ended["reason"], ended
assert ended["steps_done"] == len(lines), (ended, len(lines))
rows = {w["name"]: w["rows"] for w in doc["workloads"]}
assert ended["rows_done"] == sum(len(r) for r in rows.values()), ended
whole = {w["name"]: w["rows"] for w in json.load(open(complete))["workloads"]}
# By section, in order: a ceiling row's "best at bytes" is a measured outcome that differs between runs.
kept, all_rows = [r["section"] for r in rows["link"]], [r["section"] for r in whole["link"]]
assert kept == all_rows, ("link ended: all its rows", len(kept), len(all_rows),
                          next(((a, b) for a, b in zip(kept, all_rows) if a != b), None))
points = [re.match(r"\[stream\] \[\d+/\d+\] (\w+)(?: at [^,:]*)?(?:, depth (\d+))?:", l) for l in lines if "/" in l.split("]")[1]]
named = [(m.group(1), int(m.group(2) or 1)) for m in points]
latency = [(r["params"]["design"], r["params"]["depth"]) for r in rows["stream"] if r["section"] == "latency"]
throughput = [(r["params"]["design"], r["params"]["depth"]) for r in rows["stream"] if r["section"] == "throughput"]
assert latency == throughput, (latency, throughput)
allowed = [named[:-1]] + ([named] if ended_last else [])
assert latency in allowed, (latency, named)
assert len(latency) >= 3, "the interruption came after the third point"
assert all(r["check"] in ("PASSED", "n/a") for w in rows.values() for r in w)
PY
}

# Waits (at most 120 s) until the run has begun stream's Nth point.
wait_for_point() {
  local n=$1 pid=$2
  for _ in $(seq 1200); do
    grep -q "^\[stream\] \[$n/" err.log 2> /dev/null && return 0
    kill -0 "$pid" 2> /dev/null || fail "the run ended before its point $n"
    sleep 0.1
  done
  fail "no point $n within 120 s"
}

# A complete run first: the rows an interrupted one is held to, and the file no interruption may touch.
"$ferry" run stream --backend emu --quick -q --json complete.json > /dev/null 2>&1 || fail "a complete run failed"
cp complete.json r.json

for signal in INT TERM; do
  rm -f r.json.partial
  "$ferry" run stream --backend emu --quick --json r.json > out.log 2> err.log &
  pid=$!
  wait_for_point 4 "$pid"
  kill -"$signal" "$pid"
  wait "$pid"
  code=$?
  [ "$code" -eq $((128 + $(kill -l "$signal"))) ] || fail "SIG$signal: exit $code, not killed by the signal"
  grep -q "^ferry: interrupted by SIG$signal: .* kept in 'r.json.partial', marked incomplete" err.log ||
    fail "SIG$signal: no message naming the sidecar: $(tail -1 err.log)"
  cmp -s r.json complete.json || fail "SIG$signal: the results file was touched"
  holds_what_ended "interrupted by SIG$signal" yes
done

# A role that never sees its chunk: the run fails after --timeout, inside the persistent design's first point.
rm -f r.json.partial
FERRY_FAULT_UNSEEN_FLAG=consumer@3 "$ferry" run stream --backend emu --quick --design chunked,persistent \
  --timeout 300ms --json r.json > out.log 2> err.log
code=$?
[ "$code" -eq 3 ] || fail "a timeout: exit $code, not 3"
grep -q "did not come back.*kept in 'r.json.partial', marked incomplete" err.log || fail "a timeout: $(tail -1 err.log)"
"$ferry" run stream --backend emu --quick -q --design chunked,persistent --json complete.json > /dev/null 2>&1 ||
  fail "a complete run of those designs failed"
holds_what_ended "did not come back" no
python3 - <<'PY' || fail "the timeout's sidecar is not the chunked design's points alone"
import json
doc = json.load(open("r.json.partial"))
stream = next(w for w in doc["workloads"] if w["name"] == "stream")
assert {r["params"]["design"] for r in stream["rows"] if r["section"] == "latency"} == {"chunked"}
PY

# A complete run to the same path removes the sidecar an interrupted one left.
[ -f r.json.partial ] || fail "no sidecar to remove"
"$ferry" run stream --backend emu --quick -q --design chunked --json r.json > /dev/null 2>&1 || fail "the run failed"
[ ! -e r.json.partial ] || fail "a complete run left the sidecar"
python3 -c 'import json; assert "incomplete" not in json.load(open("r.json"))' || fail "a complete file says incomplete"
echo "interrupted_run_test: passed"
