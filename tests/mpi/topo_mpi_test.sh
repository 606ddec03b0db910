#!/usr/bin/env bash
# topo across MPI ranks on the emulator, as CI runs it: with RANKS ranks every
# topology the ranks can form passes (host-staged through MPI among them) and
# the others are named; one corrupted round fails with exit 1, naming it; a
# run that can measure nothing is refused on every rank.
# Usage: topo_mpi_test.sh FERRY MPIEXEC RANKS
test_name=topo_mpi_test
source "$(dirname "$0")/mpi_test_lib.sh" "$@"

launch "$ferry" run topo --backend emu --quick -q --json "$work/topo.json" > "$work/out.txt" 2>&1
expect_passed_once $? topo
python3 - "$work/topo.json" "$ranks" <<'PY' || fail "the results file is not what the run should hold"
import json, sys
doc = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
topo = next(w for w in doc["workloads"] if w["name"] == "topo")
assert doc["verification"] == "PASSED", doc["verification"]
rows = [r for r in topo["rows"] if r["section"] == "bandwidth"]
sizes = len(topo["config"]["sizes"].split(","))
def of(topology, transport):
    return [r for r in rows if r["params"]["topology"] == topology and r["params"]["transport"] == transport]
expected = {"host-staged": "mpi-staged"}
if ranks == 2:
    expected.update({"pair one-way": "mpi-cuda", "pair both": "mpi-cuda"})
else:
    expected.update({"ring": "mpi-cuda", "fully-connected": "mpi-cuda"})
for topology, transport in expected.items():
    got = of(topology, transport)
    assert len(got) == sizes, (topology, transport, len(got))
    assert all(r["check"] == "PASSED" and r["value"] > 0 and len(r["samples_s"]) == topo["config"]["rounds"] for r in got), topology
assert [r for r in topo["rows"] if r["section"] == "host"], "no host step"
skipped = " ".join(topo["skipped"])
assert "matrix:" in skipped, skipped
assert ("ring:" in skipped) == (ranks == 2), skipped
PY

# One wrong byte in round 2 of the 64 KiB messages: that size FAILED, the round named, exit 1.
FERRY_FAULT_CORRUPT_MESSAGE=64K@2 launch "$ferry" run topo --backend emu --quick -q --topology host-staged \
  > "$work/corrupt.txt" 2>&1
code=$?
[ $code -eq 1 ] || { cat "$work/corrupt.txt"; fail "a corrupted round gave exit $code, expected 1"; }
grep -q "^topo: FAILED" "$work/corrupt.txt" || fail "a corrupted round did not fail the run"
grep -E "64 KiB .*FAILED +64 KiB: round 2 of 3 arrived wrong" "$work/corrupt.txt" > /dev/null ||
  { cat "$work/corrupt.txt"; fail "the 64 KiB row does not name round 2"; }
[ "$(grep -cE '^  host-staged .*FAILED' "$work/corrupt.txt")" -eq 2 ] || fail "not exactly the size and its peak FAILED"
# Every topology asked for skipped (p2p-ce needs its devices in one process; the matrix, its pairs): every rank
# refuses alike, with no hang, exit 2, and nothing says PASSED.
launch "$ferry" run topo --backend emu --quick -q --topology pair,matrix --transport p2p-ce > "$work/nothing.txt" 2>&1
code=$?
[ $code -eq 2 ] || { cat "$work/nothing.txt"; fail "a run that measured nothing gave exit $code, expected 2"; }
grep -q "topo: nothing was measured: every topology and transport asked for was skipped here (" "$work/nothing.txt" ||
  { cat "$work/nothing.txt"; fail "a run that measured nothing does not say so"; }
! grep -q "PASSED" "$work/nothing.txt" || fail "a run that measured nothing said PASSED"
echo "topo_mpi_test: $ranks ranks passed"
