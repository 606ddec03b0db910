#!/usr/bin/env bash
# Throwaway A/B: the committed pool (workers run ahead over every released chunk) against workers that start chunk c
# only once every worker is past chunk c - lag - 1 (FERRY_AB_LAG=0,1,2), so fewer bytes wait in the link's queues.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p $out
export PATH="/usr/local/cuda/bin:$PATH"
git apply docs/results/stream-experiments/eighth/run1-lag.patch || exit 1
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
  for lag in 2 1 0; do FERRY_AB_LAG=$lag run "lag$lag r$r" $f run stream $pts $common; done
done
for t in 20 40; do
  run "tune$t-base" $f tune stream --design pool --latency ${t}us $common
  for lag in 1 0; do FERRY_AB_LAG=$lag run "tune$t-lag$lag" $f tune stream --design pool --latency ${t}us $common; done
done
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
