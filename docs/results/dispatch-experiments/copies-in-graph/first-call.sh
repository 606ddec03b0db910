#!/usr/bin/env bash
# Throwaway A/B of +fused: knob 0 = HEAD (copy, graph of the steps, copy), 1 = the copies captured in the graph,
# 2 = also the keys in pieces, each piece's copy in then its first step, and its last step then copy out, forked.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
cp .ab/sort_bench_knob.cpp src/bench/dispatch/sort_bench.cpp
export PATH=/usr/local/cuda/bin:$PATH
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF && cmake --build build-gpu -j16 --target ferry; } > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head; exit 1; }
f=./build-gpu/src/ferry
$f probe -q -o /tmp/profile.json > /dev/null 2>&1 || echo "probe failed"
run() { $f run dispatch -q --profile /tmp/profile.json --keys 32K --iterations 300 --rungs "$1" 2>&1 | tee -a "$out/full.log" | grep -E "^ +32768 +[0-9]+ +[+b]|rror|FAIL" | cut -c1-140; }
old() { grep -E "^ +32768 +[0-9]+ +[+b]" | cut -c1-140; }
{
for r in 1 2 3; do
  echo "== round $r"
  echo "-- 0 (HEAD)"; FERRY_AB_FUSED=0 run baseline,+fused,+zerocopy
  echo "-- 1 (copies in graph)"; FERRY_AB_FUSED=1 run +fused
  for p in 2 4 8; do echo "-- 2 pieces $p"; FERRY_AB_FUSED=2 FERRY_AB_PIECES=$p run +fused; done
done
} 2>&1 | tee "$out/ab.txt"
{
for v in 0 1 2; do echo "== knob $v sweep"; FERRY_AB_FUSED=$v $f run dispatch -q --profile /tmp/profile.json --keys 4K:4M:x4 --iterations 50 --rungs +fused 2>&1 | grep -E "^ +[0-9]+ +[0-9]+ +\+fused" | cut -c1-140; done
} 2>&1 | tee "$out/sweep.txt"
