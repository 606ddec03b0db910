#!/usr/bin/env bash
# Throwaway: the one-kernel cluster sort against ferry's +fused and +zerocopy, same call.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
nvcc -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr -Isrc .ab/cluster.cu -o /tmp/cluster > $out/nvcc.log 2>&1 || { cat $out/nvcc.log; exit 1; }
bash scripts/gpu-build.sh $out/build.log || exit 1
{
for kt in "32768 2048" "32768 4096" "16384 1024" "16384 2048"; do /tmp/cluster $kt; echo; done
prof=docs/results/profile-h100.json
for round in 1 2; do
  ./build-gpu/src/ferry run dispatch -q --rungs +fused,+zerocopy --keys 32K --iterations 100 --profile $prof > /tmp/e2e.txt 2>&1
  grep -E "^\s+32768\s+\+" /tmp/e2e.txt | awk '{printf "ferry %-12s %s kernels median %s min %s p99 %s %s\n", $2, $3, $9, $11, $10, $NF}'
done
for kt in "32768 2048"; do /tmp/cluster $kt; done
} 2>&1 | tee $out/cluster.txt
