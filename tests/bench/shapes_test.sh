#!/usr/bin/env bash
# beff and topo in one process on rings that are not 2 or 4 devices: 3 (no power of two), a subset that skips
# a device (0,2), and 8 (the emulator given 8 devices, a full node's count). Each passes, every peer
# transport runs on exactly the devices asked for, and every message is checked.
# Usage: shapes_test.sh FERRY
set -uo pipefail
ferry=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "shapes_test: $*" >&2; exit 1; }

# WORKLOAD DEVICES: the run passes and its peer transports' rows are on DEVICES, every row PASSED.
passes_on() {
  local workload=$1 devices=$2
  FERRY_EMU_DEVICES=8 "$ferry" run "$workload" --backend emu --quick -q --devices "$devices" \
    --json "$work/$workload.json" > "$work/out.txt" 2>&1 || { cat "$work/out.txt"; fail "$workload on $devices failed"; }
  grep -q "^$workload: PASSED" "$work/out.txt" || fail "$workload on $devices did not pass"
  python3 - "$work/$workload.json" "$workload" "$devices" <<'PY' || fail "$workload on $2: the rows are not what ran"
import json, sys
doc = json.load(open(sys.argv[1]))
workload = next(w for w in doc["workloads"] if w["name"] == sys.argv[2])
devices = [int(d) for d in sys.argv[3].split(",")]
rows = workload["rows"]
assert all(r["check"] in ("PASSED", "n/a") for r in rows), [r for r in rows if r["check"] not in ("PASSED", "n/a")]
for transport in ("p2p-ce", "p2p-sm"):
    if sys.argv[2] == "beff":
        assert workload["config"]["participants"] == len(devices), workload["config"]
        ring = [r for r in rows if r["section"] == "ring" and r["params"]["transport"] == transport]
        assert len(ring) == 21 and all(r["check"] == "PASSED" for r in ring), (transport, len(ring))
        own = {r["params"]["device"] for r in rows if r["section"] == "exchange" and r["params"]["transport"] == transport}
        assert sorted(own) == devices, (transport, own)
    else:
        topology = "pair both" if len(devices) == 2 else "ring"
        got = [r for r in rows if r["section"] == "bandwidth" and r["params"]["transport"] == transport
               and r["params"]["topology"] == topology]
        assert got and all(r["check"] == "PASSED" for r in got), (transport, topology, len(got))
        assert all(r["params"]["devices"] == sys.argv[3] for r in got), {r["params"]["devices"] for r in got}
PY
}

for devices in 0,1,2 0,2 0,1,2,3,4,5,6,7; do
  passes_on beff "$devices"
  passes_on topo "$devices"
done
echo "shapes_test: passed"
