#!/usr/bin/env bash
# Throwaway A/B: fused as committed (a group's first team polls the doorbell, relays it to the others through L2)
# against every team polling the doorbell itself (FERRY_AB_DIRECT=1), at the points near the 20 us target.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p $out
export PATH="/usr/local/cuda/bin:$PATH"
git apply docs/results/stream-experiments/eighth/run3-direct.patch || exit 1
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $out/build.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" >> $out/ab.txt
f=build-gpu/src/ferry
common="--total 256M --profile docs/results/profile-h100.json"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 200 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
pts="--design fused --chunks 4K,32K,64K,96K,128K,256K --depth 1,4,6,8 --iterations 2"
for r in 1 2 3; do
  for v in 0 1; do FERRY_AB_DIRECT=$v run "direct$v r$r" $f run stream $pts $common; done
done
for v in 0 1; do FERRY_AB_DIRECT=$v run "tune20 direct$v" $f tune stream --design fused,pool --latency 20us $common; done
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
