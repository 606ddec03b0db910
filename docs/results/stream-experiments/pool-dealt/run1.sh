#!/usr/bin/env bash
# Throwaway A/B: pool (take pieces) against dealt (quads dealt to lanes), on one GPU.
set -uo pipefail
out=${OUT:-/tmp/out}
bash scripts/gpu-build.sh $out/build.log || exit 1
f=build-gpu/src/ferry
prof=docs/results/profile-h100.json
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current --format=csv > $out/machine.txt
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 120 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
run "fused+pool" $f run stream --design fused,pool --chunks 4K,64K,128K,256K,1M --depth 1,4,8 $common
for w in 4 8 16 32; do
  FERRY_X_DEALT=1 FERRY_X_WORKERS=$w run "dealt w=$w" $f run stream --design pool --chunks 4K,64K,128K,256K,1M --depth 1,4,8 $common
done
FERRY_X_DEALT=1 FERRY_X_WORKERS=8 run "tune 40 dealt8" $f tune stream --design pool --latency 40us $common
FERRY_X_DEALT=1 FERRY_X_WORKERS=8 run "tune 20 dealt8" $f tune stream --design pool --latency 20us $common
grep -E "^===|^  (pool|fused) |rc=" $out/ab.txt > $out/summary.txt
