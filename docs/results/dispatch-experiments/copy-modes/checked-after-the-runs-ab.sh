#!/usr/bin/env bash
# Throwaway A/B: outputs checked after the runs (this tree) against checked between runs (the patch reversed),
# `ferry run dispatch --keys 32K`, every rung, processes alternating.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
{ cmake -S . -B build-gpu $cfg && cmake --build build-gpu -j16 --target ferry; } > "$out/build-new.log" 2>&1 || { grep error "$out/build-new.log" | head; exit 1; }
cp -r . /tmp/old && (cd /tmp/old && rm -rf build-gpu && patch -R -p1 < .ab/deferred.patch > /dev/null && rm -f src/bench/dispatch/kept_outputs.*) || exit 1
{ cmake -S /tmp/old -B /tmp/old/build-gpu $cfg && cmake --build /tmp/old/build-gpu -j16 --target ferry; } > "$out/build-old.log" 2>&1 || { grep error "$out/build-old.log" | head; exit 1; }
grep -c "kept" /tmp/old/src/bench/dispatch/sort_bench.cpp
./build-gpu/src/ferry probe -q -o /tmp/profile.json > /dev/null 2>&1 || echo "probe failed"
run() { $1 run dispatch -q --profile /tmp/profile.json --keys 32K --iterations 300 2>&1 | tee -a "$out/full-$2.log" | grep -E "^  32768  |128 KiB  pinned|rror|FAIL" | cut -c1-120; }
for r in 1 2 3; do
  echo "-- round $r: checked between runs (before)"; run /tmp/old/build-gpu/src/ferry old
  echo "-- round $r: checked after the runs (this change)"; run ./build-gpu/src/ferry new
done 2>&1 | tee "$out/ab.txt"
