#!/usr/bin/env bash
# Throwaway: pinned_probe.cu (with NVML state per block) in three processes, the last pinned to CPU 2.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
nvcc -std=c++17 -O2 -arch=sm_90 -o /tmp/pinned_probe .ab/pinned_probe.cu -lnvidia-ml > "$out/build.log" 2>&1 ||
  nvcc -std=c++17 -O2 -arch=sm_90 -o /tmp/pinned_probe .ab/pinned_probe.cu -L/usr/local/cuda/lib64/stubs -lnvidia-ml >> "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
echo 8 > /proc/sys/vm/nr_hugepages 2>/dev/null
nvidia-smi -q -d PERFORMANCE,CLOCK > "$out/smi-before.txt" 2>&1
for r in 1 2; do echo "== process $r"; /tmp/pinned_probe | grep -v "^    "; done 2>&1 | tee "$out/probe.txt"
echo "== process 3 (taskset -c 2)"; taskset -c 2 /tmp/pinned_probe | grep -v "^    " 2>&1 | tee -a "$out/probe.txt"
nvidia-smi -q -d PERFORMANCE,CLOCK > "$out/smi-after.txt" 2>&1
