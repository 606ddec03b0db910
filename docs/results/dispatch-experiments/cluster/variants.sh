#!/usr/bin/env bash
# Throwaway: where the cluster kernel's time goes. EXP 1: long windows' work left out; 2: cluster
# barriers left out (block barriers instead); 3: the on-chip stages after the tile sort left out.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
for e in 0 1 2 3; do
  nvcc -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr -Isrc -DEXP=$e .ab/cluster.cu -o /tmp/cluster$e > $out/nvcc$e.log 2>&1 || { cat $out/nvcc$e.log; exit 1; } &
done
wait
for e in 0 1 2 3; do echo "== EXP $e"; /tmp/cluster$e 32768 2048 | grep -E "kernel alone|wrong"; done | tee $out/variants.txt
