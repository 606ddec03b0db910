#!/usr/bin/env bash
# `ferry model beff` across the hosts of a box (scripts/cluster.sh): the terms
# within a host from a ring of 2 ranks on node1, the hop between hosts from a
# ring of 2 hosts (--network), and the prediction for 4 hosts, a rank each,
# set beside the ring of 4 measured (--measured); then the same with the
# hop's B the rate tc sets. Every link at 50 Mbit/s, so the network, not the
# box's two shared cores, paces the rings.
# Prints both residuals; each must lie within 25%. In 20 runs on the 2-core
# machine the measured hop's was -2.2% to +12.5%, and in 10 the tc rate's
# -13.2% to +0.1% (docs/cluster.md says why the box's links bias the first
# upward, and why neither holds 10% run after run); a rank spinning on a core
# the kernel needs for the links (4 ms an exchange) put it at -40% and +75%.
# Usage: model_across_hosts_test.sh FERRY REPO_ROOT. Exit 77 (skipped) without
# root or network namespaces.
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
# NAME HOSTFILE MPIRUN_ARGS...: beff's mpi-staged ring over those hosts, into $work/NAME.json.
ring() {
  local name=$1 hosts=$2
  shift 2
  timeout 300 bash "$cluster" run --hostfile "$hosts" "$@" -- "$ferry" run beff --backend emu -q \
    --transport mpi-staged --min-time 10ms --repetitions 10 --json "$work/$name.json" > "$work/$name.txt" 2>&1 ||
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
# The same with the hop's B the rate tc sets (50 Mbit/s, of which headers and acks take a share: the link's line
# rate, as the default 50 GB/s is a NIC's) and its t_lat the ring of 2 hosts' 8 B exchange.
latency_us=$(python3 -c "import json, sys
w = next(w for w in json.load(open(sys.argv[1]))['workloads'] if w['name'] == 'beff')
print(next(r for r in w['rows'] if r['section'] == 'model')['value'])" "$work/network.json") ||
  fail "no t_lat in the ring of 2 hosts"
"$ferry" model beff --profile "$work/local.json" --network-bandwidth 6.25MB/s --network-latency "${latency_us}us" \
  --measured "$work/four.json" --devices 4 --per-node 1 --json "$work/rate.json" > "$work/rate.txt" 2>&1 ||
  { cat "$work/rate.txt"; fail "ferry model beff with the tc rate failed"; }
grep -q "^note: network for mpi-staged: measured across hosts in $work/network.json, a ring of 2 on node1, node2" \
  "$work/model.txt" || { cat "$work/model.txt"; fail "the network is not named as measured"; }
python3 - "$work/model.json" "$work/rate.json" "$work/four.json" << 'PY' ||
import json, sys
four = next(w for w in json.load(open(sys.argv[3]))["workloads"] if w["name"] == "beff")
measured = next(r for r in four["rows"] if r["section"] == "beff")["params"]["per device GB/s"]
def residual(path, network, bound):
    row = json.load(open(path))["workloads"][0]["rows"][0]["params"]
    assert (row["transport"], row["devices"], row["nodes"]) == ("mpi-staged", 4, 4), row
    assert row.get("network", "given").startswith(network), row
    assert abs(float(row["measured per device GB/s"]) / measured - 1) < 1e-3, (row, measured)
    r = measured / row["per device GB/s"] - 1
    assert row["residual (measured)"] == f"{100 * r:+.1f}%", row
    print(f"model_across_hosts: 4 hosts measured {measured * 1e3:.3f} MB/s per device, predicted "
          f"{row['per device GB/s'] * 1e3:.3f} with the hop {network}: residual {100 * r:+.1f}%")
    assert abs(r) < bound, f"residual {100 * r:+.1f}% with the hop {network} is past {100 * bound:.0f}%"
residual(sys.argv[1], "measured", 0.25)
residual(sys.argv[2], "given", 0.25)
PY
  { cat "$work/model.txt" "$work/rate.txt"; fail "the prediction"; }
echo "$test_name: passed"
