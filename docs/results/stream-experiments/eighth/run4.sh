#!/usr/bin/env bash
# Throwaway A/B near the 20 us target: fused as committed (16 KiB a team; the host waits on a group's flags one
# after another) against 8 KiB or 32 KiB a team (FERRY_AB_SLICE=512/2048 quads) and a host that reads every flag
# of the group in each poll (FERRY_AB_HOSTALL=1).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p $out
export PATH="/usr/local/cuda/bin:$PATH"
git apply docs/results/stream-experiments/eighth/run4-fused-knobs.patch || exit 1
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $out/build.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" >> $out/ab.txt
f=build-gpu/src/ferry
common="--total 256M --profile docs/results/profile-h100.json"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 200 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
pts="--design fused --chunks 4K,32K,64K,96K,128K --depth 1,4,6,8 --iterations 2"
for r in 1 2 3; do
  run "base r$r" $f run stream $pts $common
  FERRY_AB_SLICE=512 run "slice8K r$r" $f run stream $pts $common
  FERRY_AB_SLICE=2048 run "slice32K r$r" $f run stream $pts $common
  FERRY_AB_HOSTALL=1 run "hostall r$r" $f run stream $pts $common
done
run "tune20 base" $f tune stream --design fused,pool --latency 20us $common
FERRY_AB_HOSTALL=1 run "tune20 hostall" $f tune stream --design fused,pool --latency 20us $common
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
