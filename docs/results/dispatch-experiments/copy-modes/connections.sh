#!/usr/bin/env bash
# Throwaway: does the hardware-queue count (CUDA_DEVICE_MAX_CONNECTIONS) decide +fused's fast or slow mode?
# HEAD (knob 0) and copies-in-graph (knob 1), each process alone, rounds alternating settings.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
git apply .ab/knob.patch || exit 1
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -q | grep -iE "numa|affinity" | head > "$out/numa.txt"; lscpu | grep -i numa >> "$out/numa.txt"
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF && cmake --build build-gpu -j16 --target ferry; } > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head; exit 1; }
f=./build-gpu/src/ferry
$f probe -q -o /tmp/profile.json > /dev/null 2>&1 || echo "probe failed"
run() { $f run dispatch -q --profile /tmp/profile.json --keys 32K --iterations 300 --rungs +fused 2>&1 | tee -a "$out/full.log" | grep -E "^  32768  \+fused|128 KiB  pinned|rror|FAIL" | cut -c1-110; }
for r in 1 2 3 4 5; do
  for c in unset 1 2 32; do
    for v in 0 1; do
      echo "-- round $r connections $c knob $v"
      if [ "$c" = unset ]; then FERRY_AB_FUSED=$v run; else CUDA_DEVICE_MAX_CONNECTIONS=$c FERRY_AB_FUSED=$v run; fi
    done
  done
done 2>&1 | tee "$out/ab.txt"
