#!/usr/bin/env bash
# Throwaway A/B: the dealt pool (HEAD) against the dealt pool with lookahead (working tree), on one GPU.
set -uo pipefail
out=${OUT:-/tmp/out}
bash scripts/gpu-build.sh $out/build.log || exit 1
rm -rf /tmp/old && mkdir /tmp/old && cp -r CMakeLists.txt CMakePresets.json cmake src tests python scripts /tmp/old/ 2>/dev/null
cp .ab/old_kernels.hpp /tmp/old/src/bench/stream/stream_fused_kernels.hpp
(cd /tmp/old && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build build -j16 --target ferry >> $out/old-build.log 2>&1) || { tail -20 $out/old-build.log; exit 1; }
new=build-gpu/src/ferry; old=/tmp/old/build/src/ferry
prof=docs/results/profile-h100.json
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current --format=csv > $out/machine.txt
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 150 "$@" >> $out/ab.txt 2>&1; echo "rc=$?" >> $out/ab.txt; }
for round in 1 2; do
  for v in old new; do
    f=${!v}
    run "$v round $round" $f run stream --design pool --chunks 4K,64K,128K,256K,512K,1M --depth 1,2,4,8 $common
  done
done
for v in old new; do
  f=${!v}
  run "tune 40 $v" $f tune stream --design pool,fused --latency 40us $common
  run "tune 20 $v" $f tune stream --design pool,fused --latency 20us $common
done
grep -E "^===|^  pool |rc=|^note: (best|link)" $out/ab.txt > $out/summary.txt
