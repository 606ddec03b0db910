#!/usr/bin/env bash
# Throwaway A/B: the committed pool with 1 watcher (as committed), 2 or 4 watcher warps polling the doorbells in turn,
# time-staggered (FERRY_X_WATCHERS, FERRY_X_STAGGER ns), one H100.
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
pts="--design pool --chunks 4K,64K,128K,256K --depth 1,2,4,8"
for r in 1 2; do
  FERRY_X_WATCHERS=1 run "w1 r$r" $f run stream $pts $common
  FERRY_X_WATCHERS=2 FERRY_X_STAGGER=1500 run "w2 r$r" $f run stream $pts $common
  FERRY_X_WATCHERS=4 FERRY_X_STAGGER=800 run "w4 r$r" $f run stream $pts $common
done
FERRY_X_WATCHERS=1 run "tune20-w1" $f tune stream --design pool --latency 20us $common
FERRY_X_WATCHERS=2 FERRY_X_STAGGER=1500 run "tune20-w2" $f tune stream --design pool --latency 20us $common
FERRY_X_WATCHERS=4 FERRY_X_STAGGER=800 run "tune20-w4" $f tune stream --design pool --latency 20us $common
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
