#!/usr/bin/env bash
# Throwaway A/B: fused as committed (every team fences at system scope and raises its own flag) against
# fused with one fence per chunk (teams count in device memory; the last fences and raises the one flag), FERRY_X_ONEFENCE.
set -uo pipefail
out=${OUT:-/tmp/out}
export PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $out/build.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" >> $out/ab.txt
f=build-gpu/src/ferry
prof=docs/results/profile-h100.json
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 150 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
pts="--design fused --chunks 4K,64K,128K,256K,512K,1M --depth 1,2,4,8"
for r in 1 2; do
  run "teams r$r" $f run stream $pts $common
  FERRY_X_ONEFENCE=1 run "onefence r$r" $f run stream $pts $common
done
FERRY_X_ONEFENCE=1 run "tune40 onefence" $f tune stream --design fused,pool --latency 40us $common
FERRY_X_ONEFENCE=1 run "tune20 onefence" $f tune stream --design fused,pool --latency 20us $common
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
