#!/usr/bin/env bash
# On the GPU machine: how close each workload's --dry-run estimate
# comes to its run. Builds build-gpu, measures a machine profile, then runs
# scripts/dry-run-accuracy.py per workload (link on nominal rates, the rest on
# the profile's). Writes OUTDIR/dry-run-<workload>.txt; exits non-zero when a
# run took a step its plan did not list.
set -uo pipefail
out=${1:?usage: dry-run-evidence.sh OUTDIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
bash scripts/gpu-build.sh "$out/build.log" || exit 1
ferry=build-gpu/src/ferry
gpus=$(nvidia-smi -L | wc -l)
devices=0; [ "$gpus" -ge 2 ] && devices=0,1
"$ferry" probe --quick --quiet --devices "$devices" -o "$out/profile.json" > "$out/probe.txt" 2>&1 || { tail "$out/probe.txt"; exit 1; }
status=0
accuracy() {
  local name=$1; shift
  echo "== $name: ferry run $*"
  python3 scripts/dry-run-accuracy.py "$ferry" "$@" > "$out/dry-run-$name.txt" 2>&1 || status=1
  tail -4 "$out/dry-run-$name.txt"
}
accuracy link link --quick --devices "$devices"
accuracy link-full link --device 0 --sizes 4K:256M:x4
accuracy stream stream --profile "$out/profile.json" --total 256M --chunks 16K:4M:x4 --depth 4
accuracy overlap overlap --quick --profile "$out/profile.json"
accuracy overlap-nominal overlap --quick
accuracy dispatch dispatch --profile "$out/profile.json"
if [ "$gpus" -ge 2 ]; then
  accuracy beff beff --profile "$out/profile.json" --transport p2p-ce,p2p-sm,nccl --devices 0,1
  accuracy topo topo --profile "$out/profile.json" --quick --devices 0,1
fi
exit $status
