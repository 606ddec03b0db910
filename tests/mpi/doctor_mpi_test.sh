#!/usr/bin/env bash
# `ferry doctor` across MPI ranks on the emulator (fleet mode), as CI runs it:
# rank 0 alone prints one table of every rank and the pairs between them and
# writes every rank's findings; a rank made slow (FERRY_FAULT_DOCTOR=slow-rank=R)
# is named and the run exits 1; so is a pair whose message arrived wrong.
# Usage: doctor_mpi_test.sh FERRY MPIEXEC RANKS
test_name=doctor_mpi_test
source "$(dirname "$0")/mpi_test_lib.sh" "$@"
slow=$((ranks - 2))

FERRY_FAULT_DOCTOR=slow-rank=$slow launch "$ferry" doctor --backend emu --json "$work/doctor.json" \
  > "$work/out.txt" 2>&1
code=$?
[ $code -eq 1 ] || { cat "$work/out.txt"; fail "a slow rank gave exit $code, expected 1"; }
[ "$(grep -c '^ferry on' "$work/out.txt")" -eq 1 ] || fail "more than one rank printed the banner"
grep -q "^ferry doctor: $ranks ranks on 1 host" "$work/out.txt" || { cat "$work/out.txt"; fail "no fleet table"; }
grep -q "^NCCL's pairs: not run: " "$work/out.txt" || { cat "$work/out.txt"; fail "NCCL's pairs are not accounted for"; }
grep -qE "^FAIL fleet figures \(.* GPU $slow \(rank $slow\)\): [0-9]+% of the fleet's like GPUs" "$work/out.txt" ||
  { cat "$work/out.txt"; fail "rank $slow, made slow, is not named"; }
# Only the slow rank: no other rank, and no pair, is named.
[ "$(grep -E '^FAIL ' "$work/out.txt" | grep -vc "(rank $slow)")" -eq 0 ] ||
  { cat "$work/out.txt"; fail "a rank other than $slow was named"; }
python3 - "$work/doctor.json" "$ranks" "$slow" <<'PY' || fail "the results file is not what the run printed"
import json, sys
doc = json.load(open(sys.argv[1]))
ranks, slow = int(sys.argv[2]), int(sys.argv[3])
doctor = next(w for w in doc["workloads"] if w["name"] == "doctor")
findings = doctor["findings"]
# Every rank's own checks are there, under the rank that ran them.
for r in range(ranks):
    assert any(f["check"] == "verification" and f["subject"].endswith(f"(rank {r}): host") for f in findings), r
failed = [f for f in findings if f["verdict"] == "FAIL"]
assert failed and all(f["subject"].endswith(f"(rank {slow})") for f in failed), failed
pairs = [f for f in findings if f["check"] == "pair verification"]
assert [f["verdict"] for f in pairs] == ["OK"] and pairs[0]["subject"] == f"{ranks} pairs", pairs
nccl = [f for f in findings if f["check"] == "pairs (nccl)"]
assert len(nccl) == 1 and nccl[0]["verdict"] == "-" and nccl[0]["basis"].startswith("not run: "), nccl
PY

# One byte changed in what rank 1 received from rank 0: that pair FAILED, exit 1. With --quiet, rank 0 prints the
# verdict line alone, naming the pair.
FERRY_FAULT_DOCTOR=corrupt-pair=1 launch "$ferry" doctor --backend emu --quiet > "$work/corrupt.txt" 2> "$work/err.txt"
code=$?
[ $code -eq 1 ] || { cat "$work/corrupt.txt" "$work/err.txt"; fail "a corrupted pair gave exit $code, expected 1"; }
[ "$(wc -l < "$work/corrupt.txt")" -eq 1 ] || { cat "$work/corrupt.txt"; fail "--quiet printed more than one line"; }
grep -qE "^ferry doctor: FAIL pair verification \(.* rank 0 -> .* rank 1\): .*\([0-9]+ OK, [0-9]+ WARN, [1-9][0-9]* FAIL" \
  "$work/corrupt.txt" || { cat "$work/corrupt.txt"; fail "the corrupted pair is not named in the verdict line"; }
# What speaks for one node is refused under mpirun, before any pass.
launch "$ferry" doctor --backend emu --prometheus "$work/fleet.prom" > "$work/one-node.txt" 2>&1
[ $? -eq 2 ] && grep -q "speak for one node" "$work/one-node.txt" && [ ! -e "$work/fleet.prom" ] ||
  { cat "$work/one-node.txt"; fail "--prometheus under mpirun was not refused"; }
# A fleet condition outside fleet mode, and a malformed one, are refused with exit 2.
FERRY_FAULT_DOCTOR=slow-rank=1 "$ferry" doctor --backend emu > "$work/alone.txt" 2>&1
[ $? -eq 2 ] && grep -q "apply under mpirun" "$work/alone.txt" || { cat "$work/alone.txt"; fail "slow-rank without mpirun"; }
FERRY_FAULT_DOCTOR=slow-rank=x launch "$ferry" doctor --backend emu > "$work/bad.txt" 2>&1
[ $? -eq 2 ] && grep -q "is not a rank" "$work/bad.txt" || { cat "$work/bad.txt"; fail "a malformed rank was not refused"; }
# More ranks than the host has GPUs: doctor runs (the ranks of a host take turns), and a WARN names the ranks
# that share a GPU; nothing else changes.
FERRY_EMU_DEVICES=$((ranks - 1)) launch "$ferry" doctor --backend emu > "$work/share.txt" 2>&1
code=$?
[ $code -eq 0 ] || { cat "$work/share.txt"; fail "ranks sharing a GPU gave exit $code, expected 0 (a WARN)"; }
grep -qE "^  WARN +a GPU per rank +ranks +ranks 0 and $((ranks - 1)) share GPU 0 on " "$work/share.txt" ||
  { cat "$work/share.txt"; fail "the ranks that share a GPU are not named"; }
exit 0
