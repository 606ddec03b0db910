#!/usr/bin/env bash
# Throwaway A/B: the committed pool (its watcher reads up to 8 doorbells a poll, its flagger 8 counts at once) against a
# watcher that reads 1 or 2 doorbells a poll (FERRY_X_WREADS) and a flagger that reads all 16 counts at once (FERRY_X_FREADS), one H100.
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
pts="--design pool --chunks 4K,64K,128K,256K,512K --depth 1,2,4,8"
for r in 1 2; do
  run "base r$r" $f run stream $pts $common
  FERRY_X_WREADS=1 run "w1 r$r" $f run stream $pts $common
  FERRY_X_WREADS=2 run "w2 r$r" $f run stream $pts $common
  FERRY_X_FREADS=16 run "f16 r$r" $f run stream $pts $common
  FERRY_X_WREADS=1 FERRY_X_FREADS=16 run "w1f16 r$r" $f run stream $pts $common
done
for t in 20 40; do
  run "tune$t-base" $f tune stream --design pool --latency ${t}us $common
  FERRY_X_WREADS=1 run "tune$t-w1" $f tune stream --design pool --latency ${t}us $common
  FERRY_X_WREADS=1 FERRY_X_FREADS=16 run "tune$t-w1f16" $f tune stream --design pool --latency ${t}us $common
done
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
