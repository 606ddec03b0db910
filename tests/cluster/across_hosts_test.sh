#!/usr/bin/env bash
# ferry between the hosts of a cluster in a box (scripts/cluster.sh), on the
# emulator, so ranks on different hosts are processes in different network
# namespaces talking TCP through the box's router:
# - beff's mpi-staged ring and topo across 2 and 4 hosts: every message
#   checked, PASSED, each participant's host named;
# - fleet doctor on 2 hosts x 2 ranks, every link at one rate: nothing named;
# - fleet doctor on 4 hosts, every link limited, node2's to a quarter of the
#   others': node2's two pairs named, node2 with them, and no other pair.
# Usage: across_hosts_test.sh FERRY REPO_ROOT. Exit 77 (skipped) without root
# or network namespaces.
ferry=$(realpath "$1")
export FERRY_CLUSTER_NAME=fa$$
test_name=across_hosts
source "$(dirname "$0")/box_test_lib.sh" "$@"

bash "$cluster" up 4 > /dev/null || fail "up 4 failed"
# RANKS HOSTS ARGS...: ferry on RANKS ranks over the box's first HOSTS hosts, dealt in turn; output in $work/out.txt.
across() {
  local ranks=$1 hosts=$2
  shift 2
  head -n "$hosts" < <(bash "$cluster" hosts) > "$work/hosts"
  timeout 300 bash "$cluster" run --hostfile "$work/hosts" -np "$ranks" -- "$ferry" "$@" > "$work/out.txt" 2>&1
}

# beff and topo across 2 and 4 hosts: every message checked on arrival, each rank's host in the results.
for hosts in 2 4; do
  across "$hosts" "$hosts" run beff --backend emu --quick -q --transport mpi-staged --json "$work/beff.json"
  code=$?
  [ $code = 0 ] && grep -q "^beff: PASSED" "$work/out.txt" || { cat "$work/out.txt"; fail "beff on $hosts hosts: exit $code"; }
  for ((r = 0; r < hosts; r++)); do
    grep -qE "^note: ring: .*participant $r = rank $r on node$((r + 1)), device 0" "$work/out.txt" ||
      { cat "$work/out.txt"; fail "beff on $hosts hosts: rank $r is not named on node$((r + 1))"; }
  done
  python3 - "$work/beff.json" "$hosts" << 'PY' || fail "beff on $hosts hosts: the results file"
import json, sys
doc = json.load(open(sys.argv[1]))
hosts = int(sys.argv[2])
beff = next(w for w in doc["workloads"] if w["name"] == "beff")
assert doc["verification"] == "PASSED"
ring = [r for r in beff["rows"] if r["section"] == "ring"]
assert ring and all(r["check"] == "PASSED" for r in ring), len(ring)
PY
  across "$hosts" "$hosts" run topo --backend emu --quick -q --json "$work/topo.json"
  code=$?
  [ $code = 0 ] && grep -q "^topo: PASSED" "$work/out.txt" || { cat "$work/out.txt"; fail "topo on $hosts hosts: exit $code"; }
  grep -q "node$hosts" "$work/out.txt" || { cat "$work/out.txt"; fail "topo on $hosts hosts does not name node$hosts"; }
done

# Every link at 400 Mbit/s: the network, not the machine's busy CPUs, sets each pair's time (unlimited, the pairs
# of one healthy box moved 175-524 MB/s, as the emulator's copies at each end took their turns on the cores).
bash "$cluster" rate node1=400mbit node2=400mbit node3=400mbit node4=400mbit || fail "the rates were refused"
# Fleet doctor, 2 hosts x 2 ranks, healthy: exit 0, nothing named between or within hosts.
across 4 2 doctor --backend emu --json "$work/doctor.json"
code=$?
[ $code = 0 ] || { cat "$work/out.txt"; fail "fleet doctor on 2 hosts x 2 ranks: exit $code"; }
grep -q "^ferry doctor: 4 ranks on 2 hosts" "$work/out.txt" || { cat "$work/out.txt"; fail "no fleet table for 2 hosts"; }
! grep -qE "^(WARN|FAIL) " "$work/out.txt" || { cat "$work/out.txt"; fail "a healthy box had something named"; }

# node2's link at a quarter of the others'.
bash "$cluster" rate node2=100mbit || fail "the rate was refused"
across 4 4 doctor --backend emu --json "$work/doctor.json"
code=$?
node2s_pairs_named_alone "fleet doctor with node2 slow"
echo "$test_name: passed"
