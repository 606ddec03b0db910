#!/usr/bin/env bash
# Throwaway A/B, second call: knob 0 (HEAD) against 1 (copies captured in +fused's graph), same rungs, alternating.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
cp .ab/sort_bench_knob.cpp src/bench/dispatch/sort_bench.cpp
export PATH=/usr/local/cuda/bin:$PATH
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF && cmake --build build-gpu -j16 --target ferry; } > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head; exit 1; }
f=./build-gpu/src/ferry
$f probe -q -o /tmp/profile.json > /dev/null 2>&1 || echo "probe failed"
run() { $f run dispatch -q --profile /tmp/profile.json --keys 32K --iterations 500 --rungs +fused,+zerocopy 2>&1 | tee -a "$out/full.log" | grep -E "^  32768  (\+fused|\+zero)|128 KiB  pinned|rror|FAIL" | cut -c1-110; }
for r in 1 2 3 4 5 6; do
  for v in 0 1; do echo "-- round $r knob $v"; FERRY_AB_FUSED=$v run; done
done 2>&1 | tee "$out/ab.txt"
