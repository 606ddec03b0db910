#!/usr/bin/env bash
# Faults between the hosts of a box (scripts/cluster.sh), mid-run, on the
# emulator, each in a box of its own:
# - node3's link taken down while beff's ring of 4 hosts runs: every rank ends
#   within 30 s, rank 0 names rank 2 on node3 as the one that does not answer,
#   mpirun exits non-zero, and the results file is not written (the rows
#   finished are kept in FILE.partial, marked incomplete);
# - the rank on node3 killed with SIGKILL: the same, mpirun naming it;
# - node2's link limited to a quarter of the others' while fleet doctor runs,
#   after it started: node2's pairs, and only they, are named.
# Usage: faults_test.sh FERRY REPO_ROOT. Exit 77 (skipped) without root or
# network namespaces.
ferry=$(realpath "$1")
export FERRY_CLUSTER_NAME=fx$$
test_name=faults
source "$(dirname "$0")/box_test_lib.sh" "$@"

# A box of 4 hosts, every link at RATE.
box() {
  bash "$cluster" down > /dev/null 2>&1
  bash "$cluster" up 4 --rate node1="$1" --rate node2="$1" --rate node3="$1" --rate node4="$1" > /dev/null ||
    fail "up 4 at $1 failed"
}
# Runs COMMAND... in the background over every host, output in $work/out.txt; returns once the run has begun
# (LINE printed).
start() {
  local line=$1
  shift
  : > "$work/out.txt"
  timeout 120 bash "$cluster" run -- "$ferry" "$@" > "$work/out.txt" 2>&1 &
  run=$!
  for _ in $(seq 600); do
    grep -qF "$line" "$work/out.txt" && return 0
    sleep 0.1
  done
  cat "$work/out.txt"
  fail "the run did not begin: no '$line' in 60 s"
}
# Waits for the run; fails unless it ended non-zero within 30 s of the fault, leaving no ferry in the box and no
# results file, the rows it finished kept marked incomplete. Sets `code`.
ended_within_30s() {
  local fault_at=$1 what=$2
  wait "$run"
  code=$?
  took=$((SECONDS - fault_at))
  [ "$code" != 0 ] && [ "$code" != 124 ] || { cat "$work/out.txt"; fail "$what: the run exited $code"; }
  [ "$took" -le 30 ] || { cat "$work/out.txt"; fail "$what: every rank ended $took s after the fault"; }
  for i in 1 2 3 4; do
    ! ip netns pids "$FERRY_CLUSTER_NAME-node$i" | xargs -r -I{} cat /proc/{}/comm 2> /dev/null | grep -qx ferry ||
      fail "$what: a ferry was left running on node$i"
  done
  [ ! -e "$work/beff.json" ] || fail "$what: a results file was written"
  python3 -c "import json, sys; assert 'incomplete' in json.load(open(sys.argv[1]))" "$work/beff.json.partial" ||
    fail "$what: the rows finished were not kept marked incomplete"
  rm -f "$work/beff.json.partial"
  echo "$test_name: $what: every rank ended $took s after the fault, exit $code"
}
beff=(run beff --backend emu -q --transport mpi-staged --timeout 3s --json "$work/beff.json")

# node3's link down mid-run: silence, no error; the watchdog (twice --timeout) asks every rank and names it.
box 50mbit
start "EMULATOR" "${beff[@]}"
sleep 2
fault_at=$SECONDS
bash "$cluster" link node3 down || fail "link node3 down failed"
ended_within_30s "$fault_at" "node3's link down"
grep -qE "^ferry: rank 0 \(node1\): no progress for [0-9]+ s in .*; rank 2 \(node3\) does not answer" "$work/out.txt" ||
  { cat "$work/out.txt"; fail "rank 0 does not name rank 2 on node3"; }
grep -E "^ferry: rank 0 " "$work/out.txt"
! grep -qE "rank [013] \(node[124]\) does not answer" "$work/out.txt" ||
  { cat "$work/out.txt"; fail "a rank on a healthy host was named"; }

# The rank on node3 killed: its daemon sees it die, and mpirun ends the others and names it.
box 50mbit
start "EMULATOR" "${beff[@]}"
sleep 2
victim=$(for p in $(ip netns pids "$FERRY_CLUSTER_NAME-node3"); do
  [ "$(cat "/proc/$p/comm" 2> /dev/null)" = ferry ] && echo "$p"
done)
[ -n "$victim" ] || fail "no ferry found on node3"
fault_at=$SECONDS
kill -KILL $victim
ended_within_30s "$fault_at" "rank 2 killed"
grep -qE "process rank 2 with PID $victim on node 10\.77\.3\.2 exited on signal 9" "$work/out.txt" ||
  { cat "$work/out.txt"; fail "the killed rank is not named with its host"; }

# node2 limited to a quarter of the others' rate once doctor's passes have begun, before its pairs run.
box 400mbit
start "[doctor] local rank 0 of every host" doctor --backend emu --json "$work/doctor.json"
bash "$cluster" rate node2=100mbit || fail "the rate was refused"
wait "$run"
code=$?
node2s_pairs_named_alone "fleet doctor with node2 slowed mid-run"
echo "$test_name: passed"
