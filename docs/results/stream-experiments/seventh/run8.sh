#!/usr/bin/env bash
# Throwaway A/B: the host rings a doorbell as committed (a release store, the line stays in the CPU's cache),
# with a non-temporal store (FERRY_X_RING=nt) or a store and clflush (FERRY_X_RING=flush), one H100.
set -uo pipefail
out=${OUT:-/tmp/out}
export PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $out/build.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" >> $out/ab.txt
f=build-gpu/src/ferry
prof=docs/results/profile-h100.json
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 200 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
pts="--design fused,pool --chunks 4K,64K,128K,256K --depth 1,2,4,8"
for r in 1 2; do
  run "base r$r" env -u FERRY_X_RING $f run stream $pts $common
  FERRY_X_RING=nt run "nt r$r" $f run stream $pts $common
  FERRY_X_RING=flush run "flush r$r" $f run stream $pts $common
done
for t in 20 40; do
  run "tune$t-base" env -u FERRY_X_RING $f tune stream --design fused,pool --latency ${t}us $common
  FERRY_X_RING=nt run "tune$t-nt" $f tune stream --design fused,pool --latency ${t}us $common
  FERRY_X_RING=flush run "tune$t-flush" $f tune stream --design fused,pool --latency ${t}us $common
done
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
