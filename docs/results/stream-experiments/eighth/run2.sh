#!/usr/bin/env bash
# Throwaway: the committed pool and fused on a finer grid of chunks and depths around the 20 us and 40 us targets,
# and `tune` with depths 3, 5 and 6 besides its default 1, 2, 4, 8.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p $out
export PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $out/build.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" >> $out/ab.txt
f=build-gpu/src/ferry
prof=docs/results/profile-h100.json
common="--total 256M --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 240 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
for r in 1 2; do
  run "grid r$r" $f run stream --design pool,fused --chunks 64K,96K,128K,160K,192K,256K,320K,384K --depth 2,3,4,5,6 --iterations 2 $common
done
for r in 1 2; do
  run "tune20 default r$r" $f tune stream --design pool,fused --latency 20us $common
  run "tune20 depths r$r" $f tune stream --design pool,fused --latency 20us --depth 1,2,3,4,5,6,8 $common
done
run "tune40 depths" $f tune stream --design pool,fused --latency 40us --depth 1,2,3,4,5,6,8 $common
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
