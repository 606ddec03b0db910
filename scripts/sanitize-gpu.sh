#!/usr/bin/env bash
# On the GPU machine: every workload's CUDA kernels under compute-sanitizer,
# at small sizes. One log per tool under $OUT (or ./sanitize) and a summary
# line per tool and workload; exit 1 when any run reported an error.
# Usage: scripts/sanitize-gpu.sh [TOOLS [WORKLOADS]]
#   TOOLS: a comma list of memcheck,racecheck,synccheck,initcheck (default all)
#   WORKLOADS: a comma list of link,stream,overlap,dispatch,beff,topo,beff-nccl (default all)
# Needs the build from scripts/gpu-build.sh and, for the peer kernels, two GPUs.
set -uo pipefail
tools=${1:-memcheck,racecheck,synccheck,initcheck}
workloads=${2:-link,stream,overlap,dispatch,beff,topo,beff-nccl}
out=$(realpath -m "${OUT:-sanitize}")
mkdir -p "$out"
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
ferry=./build-gpu/src/ferry
gpus=$(nvidia-smi -L | wc -l)
devices=0
[ "$gpus" -ge 2 ] && devices=0,1
# The models read a profile, so link's own run is the only one that measures link.
profile=$out/profile.json
$ferry probe --devices "$devices" --quick -o "$profile" -q > /dev/null 2>&1 ||
  { echo "sanitize: ferry probe failed"; exit 1; }

# Small sizes: a sanitizer slows a kernel 10-100x. Waits get long timeouts for the same reason.
declare -A runs=(
  [link]="run link --quick --devices $devices --sizes 4K,1M --latency-sizes 8,4K --queued-sizes 4K,1M --device-copy-size 16M --peer-size 1M --kernels 20 --round-trips 50"
  [stream]="run stream --total 1M --chunks 64K --depth 2 --iterations 1 --timeout 120s --profile $profile"
  [overlap]="run overlap --size 4M --splits 1,4 --min-split 256K --iterations 1 --profile $profile"
  [dispatch]="run dispatch --keys 4K --iterations 1 --profile $profile"
  [beff]="run beff --devices $devices --transport p2p-ce,p2p-sm --repetitions 1 --min-time 1ms --timeout 120s --profile $profile"
  [topo]="run topo --devices $devices --transport p2p-ce,p2p-sm --sizes 4K,256K --rounds 2 --matrix-size 1M --timeout 120s --profile $profile"
  [beff-nccl]="run beff --devices $devices --transport nccl --repetitions 1 --min-time 1ms --timeout 120s --profile $profile"
)
status=0
for tool in ${tools//,/ }; do
  log=$out/sanitize-$tool.log
  extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  for workload in ${workloads//,/ }; do
    echo "=== $tool: ferry ${runs[$workload]}" >> "$log"
    start=$SECONDS
    # NCCL's kernels are NCCL's, not ferry's: left uninstrumented. NCCL also probes the runtime with calls
    # that fail by design (cudaFuncGetAttributes on kernels built for other GPUs), so around NCCL only
    # ferry's kernels are checked, not every failed API call.
    api=all
    [ "$workload" = beff-nccl ] && api=no
    timeout 900 compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 --kernel-name-exclude kns=nccl \
      --report-api-errors "$api" --print-limit 50 $ferry ${runs[$workload]} -q >> "$log" 2>&1
    code=$?
    errors=$(grep -E "(ERROR|RACECHECK) SUMMARY: [0-9]+" "$log" | tail -1 | sed -E 's/.*SUMMARY: ([0-9]+).*/\1/')
    verdict=clean
    [ "$code" -ne 0 ] && verdict="exit $code" && status=1
    printf '%-10s %-10s %-12s %4d s  %s\n' "$tool" "$workload" "$verdict" $((SECONDS - start)) \
      "errors: ${errors:-?}" | tee -a "$out/sanitize-summary.txt"
  done
done
exit $status
