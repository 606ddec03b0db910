#!/usr/bin/env bash
# topo across MPI ranks on the emulator, as CI runs it: with RANKS ranks every
# topology the ranks can form passes (host-staged through MPI among them; the
# direct ones by MPI and by the peer transports, through the emulator's shared
# memory as through CUDA IPC on a GPU) and the others are named; one corrupted round fails with exit 1, naming it; a
# run that can measure nothing is refused on every rank.
# Usage: topo_mpi_test.sh FERRY MPIEXEC RANKS
test_name=topo_mpi_test
source "$(dirname "$0")/mpi_test_lib.sh" "$@"

passes_and_holds topo <<'PY'
rows = [r for r in workload["rows"] if r["section"] == "bandwidth"]
sizes = len(workload["config"]["sizes"].split(","))
def of(topology, transport):
    return [r for r in rows if r["params"]["topology"] == topology and r["params"]["transport"] == transport]
direct = ("mpi-cuda", "p2p-ce", "p2p-sm")
expected = [("host-staged", "mpi-staged")]
topologies = ("pair one-way", "pair both") if ranks == 2 else ("ring", "fully-connected")
expected += [(topology, transport) for topology in topologies for transport in direct]
for topology, transport in expected:
    got = of(topology, transport)
    assert len(got) == sizes, (topology, transport, len(got))
    assert all(r["check"] == "PASSED" and r["value"] > 0 and len(r["samples_s"]) == workload["config"]["rounds"] for r in got), (topology, transport)
assert [r for r in workload["rows"] if r["section"] == "host"], "no host step"
skipped = " ".join(workload["skipped"])
assert "matrix:" in skipped, skipped
assert ("ring:" in skipped) == (ranks == 2), skipped
PY

# One wrong byte in round 2 of the 64 KiB messages: that size FAILED, the round named, exit 1.
FERRY_FAULT_CORRUPT_MESSAGE=64K@2 launch "$ferry" run topo --backend emu --quick -q --topology host-staged \
  > "$work/corrupt.txt" 2>&1
expect_failed $? topo "a corrupted round"
grep -E "64 KiB .*FAILED +64 KiB: round 2 of 3 arrived wrong" "$work/corrupt.txt" > /dev/null ||
  { cat "$work/corrupt.txt"; fail "the 64 KiB row does not name round 2"; }
[ "$(grep -cE '^  host-staged .*FAILED' "$work/corrupt.txt")" -eq 2 ] || fail "not exactly the size and its peak FAILED"
# Every topology asked for skipped (the matrix's pairs need their devices in one process).
launch "$ferry" run topo --backend emu --quick -q --topology matrix --transport p2p-ce > "$work/nothing.txt" 2>&1
expect_nothing_measured $? "topo: nothing was measured: every topology and transport asked for was skipped here ("
# More ranks than the host has devices: refused on every rank, naming the ranks that would share a GPU.
FERRY_EMU_DEVICES=$((ranks - 1)) launch "$ferry" run topo --backend emu --quick -q --topology host-staged \
  > "$work/share.txt" 2>&1
code=$?
[ $code -eq 2 ] || { cat "$work/share.txt"; fail "ranks sharing a device gave exit $code, expected 2"; }
grep -qE "ranks 0 and $((ranks - 1)) share GPU 0 on .*--allow-shared-gpu" "$work/share.txt" ||
  { cat "$work/share.txt"; fail "the ranks that share a device are not named"; }
echo "topo_mpi_test: $ranks ranks passed"
