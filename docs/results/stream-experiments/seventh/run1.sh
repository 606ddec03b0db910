#!/usr/bin/env bash
# Throwaway A/B: the committed pool (old) against the pool that reads ahead with a helper warp (new), one H100.
set -uo pipefail
out=${OUT:-/tmp/out}
export PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $out/build.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
cmake -S .ab/old -B .ab/old/build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF >> $out/build.log 2>&1 && cmake --build .ab/old/build-gpu -j16 --target ferry >> $out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" >> $out/ab.txt
new=build-gpu/src/ferry; old=.ab/old/build-gpu/src/ferry
prof=docs/results/profile-h100.json
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current --format=csv > $out/machine.txt
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 150 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
pts="--design pool --chunks 4K,64K,128K,256K,512K,1M --depth 1,2,4,8"
for r in 1 2; do
  run "old r$r" $old run stream $pts $common
  run "new r$r" $new run stream $pts $common
done
run "tune 40 new" $new tune stream --design pool,fused --latency 40us $common
run "tune 20 new" $new tune stream --design pool,fused --latency 20us $common
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
grep -E "^===|^  pool |^  fused  |rc=|note: (link|best|no conf)" $out/ab.txt > $out/summary.txt
