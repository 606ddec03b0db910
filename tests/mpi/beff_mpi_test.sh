#!/usr/bin/env bash
# beff across MPI ranks on the emulator, as CI runs it: a ring of RANKS ranks
# passes every transport it can run and prints a sane table; one corrupted
# byte fails its size with exit 1; a rank that cannot start ends every rank;
# a run that can measure nothing is refused on every rank; a rank that exits
# mid-run ends every rank.
# Usage: beff_mpi_test.sh FERRY MPIEXEC RANKS
test_name=beff_mpi_test
source "$(dirname "$0")/mpi_test_lib.sh" "$@"

# Every transport: the MPI ones and the peer ones (through the emulator's shared memory, as CUDA IPC on a
# GPU) run, the others say why not.
passes_and_holds beff <<'PY'
assert workload["config"]["participants"] == ranks, workload["config"]
for transport in ("p2p-ce", "p2p-sm", "mpi-staged", "mpi-cuda"):
    ring = [r for r in workload["rows"] if r["section"] == "ring" and r["params"]["transport"] == transport]
    assert len(ring) == 21, (transport, len(ring))
    assert all(r["check"] == "PASSED" and r["value"] > 0 and r["model"] > 0 for r in ring), transport
    own = [r for r in workload["rows"] if r["section"] == "exchange" and r["params"]["transport"] == transport]
    assert sorted({r["params"]["rank"] for r in own}) == list(range(ranks)), transport
    assert len(own) == 21 * ranks, (transport, len(own))
    assert any(r["section"] == "beff" and r["params"]["transport"] == transport for r in workload["rows"])
skipped = " ".join(workload["skipped"])
for transport in ("nccl", "nccl-graph", "nccl-graph-reg", "host-staged"):
    assert transport + ":" in skipped, skipped
PY

# One wrong byte in one message of 4 KiB: that size FAILED, exit 1, whichever transport moved it.
for transport in mpi-staged p2p-ce p2p-sm; do
  FERRY_FAULT_CORRUPT_MESSAGE=4K launch "$ferry" run beff --backend emu --quick -q --transport $transport \
    > "$work/corrupt.txt" 2>&1
  expect_failed $? beff "a corrupted byte ($transport)"
  # The ring table's rows name the transport, then how it moved the message (the summary's, a count).
  grep -E "^  $transport +[A-Za-z].* 4 KiB .*FAILED" "$work/corrupt.txt" > /dev/null ||
    fail "$transport: the 4 KiB row is not FAILED"
  [ "$(grep -cE "^  $transport +[A-Za-z].*FAILED" "$work/corrupt.txt")" -eq 1 ] || fail "$transport: more than one size FAILED"
done

# A rank that cannot start (no device listed for it) ends every rank, named, with no hang.
launch "$ferry" run beff --backend emu --quick -q --devices 0 > "$work/abort.txt" 2>&1
code=$?
[ $code -eq 2 ] || { cat "$work/abort.txt"; fail "a rank's bad input gave exit $code, expected 2"; }
# Every rank past 0 fails; the first to abort ends the others, so any of them may be the one named.
grep -qE "ferry: rank [1-9][0-9]* \(.*\): --devices 0 names 1 device" "$work/abort.txt" ||
  { cat "$work/abort.txt"; fail "the failing rank is not named"; }
# Ranks that share a GPU: more ranks than the host has devices, or --devices naming one for every rank, is
# refused on every rank, naming the ranks; --allow-shared-gpu runs them, named in the table's notes.
sharing="ranks 0(, [0-9]+)* and $((ranks - 1)) share GPU 0 on "
FERRY_EMU_DEVICES=$((ranks - 1)) launch "$ferry" run beff --backend emu --quick -q > "$work/share.txt" 2>&1
code=$?
[ $code -eq 2 ] || { cat "$work/share.txt"; fail "ranks sharing a device gave exit $code, expected 2"; }
grep -qE "ranks 0 and $((ranks - 1)) share GPU 0 on .*--allow-shared-gpu" "$work/share.txt" ||
  { cat "$work/share.txt"; fail "the ranks that share a device are not named"; }
same=$(printf '0,%.0s' $(seq "$ranks")); same=${same%,}
launch "$ferry" run beff --backend emu --quick -q --transport mpi-staged --devices "$same" > "$work/share.txt" 2>&1
code=$?
[ $code -eq 2 ] || { cat "$work/share.txt"; fail "--devices $same without --allow-shared-gpu gave exit $code"; }
grep -qE "$sharing" "$work/share.txt" || { cat "$work/share.txt"; fail "the ranks --devices puts on GPU 0 are not named"; }
launch "$ferry" run beff --backend emu --quick -q --transport mpi-staged --devices "$same" --allow-shared-gpu \
  > "$work/out.txt" 2>&1
expect_passed_once $? beff
grep -qE "^note: $sharing.*\(--allow-shared-gpu\): each one's figures include the other's traffic" "$work/out.txt" ||
  { cat "$work/out.txt"; fail "the table's notes do not name the ranks that share a GPU"; }
# Every transport asked for skipped (host-staged needs the ring's devices in one process).
launch "$ferry" run beff --backend emu --quick -q --transport host-staged > "$work/nothing.txt" 2>&1
expect_nothing_measured $? "beff: nothing was measured: every transport asked for was skipped here (host-staged: "
# A rank that exits mid-run, as a crashed one does: every rank ends well within the timeout, the exit is
# not 0, and the rank is named.
start=$SECONDS
FERRY_FAULT_RANK_EXIT=1@4K launch "$ferry" run beff --backend emu --quick -q --transport mpi-staged \
  > "$work/exit.txt" 2>&1
code=$?
[ $code -ne 0 ] && [ $code -ne 124 ] || { cat "$work/exit.txt"; fail "a rank that exited mid-run gave exit $code"; }
[ $((SECONDS - start)) -lt 120 ] || fail "the other ranks took $((SECONDS - start)) s to end"
grep -q "ferry: rank 1: FERRY_FAULT_RANK_EXIT: exiting before the 4 KiB messages" "$work/exit.txt" ||
  { cat "$work/exit.txt"; fail "the rank that exited is not named"; }
grep -qiE "rank 1|\[\[.*\],1\]" <(grep -v FERRY_FAULT "$work/exit.txt") ||
  { cat "$work/exit.txt"; fail "mpirun did not name the rank that exited"; }
echo "beff_mpi_test: $ranks ranks passed"
