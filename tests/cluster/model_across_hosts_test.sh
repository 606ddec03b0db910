#!/usr/bin/env bash
# `ferry model beff` across the hosts of a box (scripts/cluster.sh): the terms
# within a host from a ring of 2 ranks on node1, the hop between hosts from a
# ring of 2 hosts (--network), and the prediction for 4 hosts, a rank each,
# set beside the ring of 4 measured (--measured). Every link at 50 Mbit/s, so
# the network, not the box's two shared cores, paces the rings.
# What it checks holds on any machine at any load: the network is named as
# measured; the prediction is the one the same hop's terms give when passed
# as --network-bandwidth and --network-latency (t_lat of the ring of 2 hosts'
# smallest size, B of its largest); the measured ring of 4 and its residual
# are carried as measured. The residual itself is printed, not judged: it is
# a ratio of two runs made a minute apart on the machine's shared cores. On an
# idle 2-core machine it was -2.2% to +12.5% over 20 runs (docs/cluster.md);
# on a busier one the ring of 2 hosts measured 393 us a hop where it
# measures 59 us idle, and the residual was +93%.
# Usage: model_across_hosts_test.sh FERRY REPO_ROOT. Exit 77 (skipped) without
# root or network namespaces. FERRY_BOX_BEFF_ARGS sets the rings' measurement
# (default: 3 repetitions of 2 ms; docs/cluster.md's figures: --min-time 10ms
# --repetitions 10).
ferry=$(realpath "$1")
export FERRY_CLUSTER_NAME=fm$$
test_name=model_across_hosts
source "$(dirname "$0")/box_test_lib.sh" "$@"

bash "$cluster" up 4 > /dev/null || fail "up 4 failed"
# A bucket of about one packet: tc's default 64 KiB lets a 128 KiB message through at twice the rate after an idle
# link, +47% on b_eff in one run.
FERRY_CLUSTER_BURST=2kb bash "$cluster" rate node1=50mbit node2=50mbit node3=50mbit node4=50mbit ||
  fail "the rates were refused"
bash "$cluster" hosts > "$work/all"
beff_args=${FERRY_BOX_BEFF_ARGS:---min-time 2ms --repetitions 3}
# NAME HOSTFILE MPIRUN_ARGS...: beff's mpi-staged ring over those hosts, into $work/NAME.json.
ring() {
  local name=$1 hosts=$2
  shift 2
  timeout 300 bash "$cluster" run --hostfile "$hosts" "$@" -- "$ferry" run beff --backend emu -q \
    --transport mpi-staged $beff_args --json "$work/$name.json" > "$work/$name.txt" 2>&1 ||
    { cat "$work/$name.txt"; fail "the ring '$name' failed"; }
}
head -n 1 "$work/all" > "$work/one"
head -n 2 "$work/all" > "$work/two"
ring local "$work/one" -np 2
ring network "$work/two"
ring four "$work/all"

"$ferry" model beff --profile "$work/local.json" --network "$work/network.json" --measured "$work/four.json" \
  --devices 4 --per-node 1 --json "$work/model.json" > "$work/model.txt" 2>&1 ||
  { cat "$work/model.txt"; fail "ferry model beff failed"; }
grep -q "^note: network for mpi-staged: measured across hosts in $work/network.json, a ring of 2 on node1, node2" \
  "$work/model.txt" || { cat "$work/model.txt"; fail "the network is not named as measured"; }
# The same hop given in figures: t_lat of the ring of 2 hosts' smallest size (its first model row), B of its largest
# (its last), each printed to 9 figures.
read -r latency_us bandwidth_MBps < <(python3 -c "import json, sys
w = next(w for w in json.load(open(sys.argv[1]))['workloads'] if w['name'] == 'beff')
rows = [r for r in w['rows'] if r['section'] == 'model' and r['params']['transport'] == 'mpi-staged']
print(f\"{rows[0]['value']:.9g} {rows[-1]['params']['B GB/s'] * 1e3:.9g}\")" "$work/network.json") ||
  fail "no model terms in the ring of 2 hosts"
"$ferry" model beff --profile "$work/local.json" --network-bandwidth "${bandwidth_MBps}MB/s" \
  --network-latency "${latency_us}us" --measured "$work/four.json" --devices 4 --per-node 1 --json "$work/given.json" \
  > "$work/given.txt" 2>&1 || { cat "$work/given.txt"; fail "ferry model beff with the hop given failed"; }
python3 - "$work/model.json" "$work/given.json" "$work/four.json" << 'PY' ||
import json, sys
four = next(w for w in json.load(open(sys.argv[3]))["workloads"] if w["name"] == "beff")
measured = next(r for r in four["rows"] if r["section"] == "beff")["params"]["per device GB/s"]
def row(path, network):
    row = json.load(open(path))["workloads"][0]["rows"][0]["params"]
    assert (row["transport"], row["devices"], row["nodes"]) == ("mpi-staged", 4, 4), row
    assert row.get("network", "given").startswith(network), row
    assert abs(float(row["measured per device GB/s"]) / measured - 1) < 1e-3, (row, measured)
    r = measured / row["per device GB/s"] - 1
    assert row["residual (measured)"] == f"{100 * r:+.1f}%", row
    return row["per device GB/s"], r
predicted, r = row(sys.argv[1], "measured")
given, _ = row(sys.argv[2], "given")
assert abs(predicted / given - 1) < 1e-5, f"with the hop measured {predicted} GB/s, with the same hop given {given}"
print(f"model_across_hosts: 4 hosts measured {measured * 1e3:.3f} MB/s per device, predicted {predicted * 1e3:.3f} "
      f"from the ring of 2 hosts: residual {100 * r:+.1f}% (not judged here: see the script's head)")
PY
  { cat "$work/model.txt" "$work/given.txt"; fail "the prediction"; }
echo "$test_name: passed"
