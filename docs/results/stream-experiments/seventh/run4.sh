#!/usr/bin/env bash
# Throwaway A/B: the committed pool (old) against the read-ahead pool with a helper warp, over workers x wave
# (FERRY_X_WORKERS teams of 256 worker threads, FERRY_X_WAVE quads a thread reads at once; two waves in flight), one H100.
set -uo pipefail
out=${OUT:-/tmp/out}
export PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $out/build.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
[ -x .ab/old/build-gpu/src/ferry ] || { cmake -S .ab/old -B .ab/old/build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF >> $out/build.log 2>&1 && cmake --build .ab/old/build-gpu -j16 --target ferry >> $out/build.log 2>&1; }
echo "built in $(( $(date +%s) - t0 )) s" >> $out/ab.txt
new=build-gpu/src/ferry; old=.ab/old/build-gpu/src/ferry
prof=docs/results/profile-h100.json
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 150 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
pts="--design pool --chunks 64K,128K,256K,512K --depth 2,4,8"
for r in 1 2; do
  run "old r$r" $old run stream $pts $common
  for v in 16:2 8:2 8:4 4:4 4:8; do
    FERRY_X_WORKERS=${v%:*} FERRY_X_WAVE=${v#*:} run "w${v} r$r" $new run stream $pts $common
  done
done
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
