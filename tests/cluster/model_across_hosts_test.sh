#!/usr/bin/env bash
# `ferry model beff` across the hosts of a box (scripts/cluster.sh): the terms
# within a host from a ring of 2 ranks on node1, the hop between hosts from a
# ring of 2 hosts (--network), and the prediction for 4 hosts, a rank each,
# set beside the ring of 4 measured (--measured). Every link at 50 Mbit/s, so
# the network, not the box's two shared cores, paces the rings.
# Prints the residual. It must name the network as measured and lie within
# 25%: in 10 runs on the 2-core machine it was +5.0% to +11.0% (docs/cluster.md
# says why the box's links bias it upward); a rank spinning on a core the
# kernel needs for the links (4 ms an exchange) put it at -40% and +75%.
# Usage: model_across_hosts_test.sh FERRY REPO_ROOT. Exit 77 (skipped) without
# root or network namespaces.
ferry=$(realpath "$1")
export FERRY_CLUSTER_NAME=fm$$
test_name=model_across_hosts
source "$(dirname "$0")/box_test_lib.sh" "$@"
trap 'bash "$cluster" down > /dev/null 2>&1; rm -rf "$work"' EXIT

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
grep -q "^note: network for mpi-staged: measured across hosts in $work/network.json, a ring of 2 on node1, node2" \
  "$work/model.txt" || { cat "$work/model.txt"; fail "the network is not named as measured"; }
python3 - "$work/model.json" "$work/four.json" << 'PY' || { cat "$work/model.txt"; fail "the prediction"; }
import json, sys
row = json.load(open(sys.argv[1]))["workloads"][0]["rows"][0]["params"]
four = next(w for w in json.load(open(sys.argv[2]))["workloads"] if w["name"] == "beff")
measured = next(r for r in four["rows"] if r["section"] == "beff")["params"]["per device GB/s"]
assert (row["transport"], row["devices"], row["nodes"]) == ("mpi-staged", 4, 4), row
assert row["network"].startswith("measured ("), row["network"]
assert abs(float(row["measured per device GB/s"]) / measured - 1) < 1e-3, (row, measured)
residual = measured / row["per device GB/s"] - 1
assert row["residual (measured)"] == f"{100 * residual:+.1f}%", row
print(f"model_across_hosts: 4 hosts measured {measured * 1e3:.3f} MB/s per device, predicted "
      f"{row['per device GB/s'] * 1e3:.3f} from the ring of 2 hosts: residual {100 * residual:+.1f}%")
assert abs(residual) < 0.25, f"residual {100 * residual:+.1f}% is past 25%"
PY
echo "$test_name: passed"
