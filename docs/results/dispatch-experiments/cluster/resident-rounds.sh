#!/usr/bin/env bash
# Throwaway: build, the tests that touch clusters, and +cluster beside +fused/+zerocopy.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
bash scripts/gpu-build.sh "$out/build.log" || { tail -30 "$out/build.log"; exit 1; }
(cd build-gpu && ctest --output-on-failure -j4 -R "Kernel|Bitonic|Dispatch|SortBench|Link" > "$out/ctest.log" 2>&1); echo "ctest rc=$?"
grep -E "tests passed|Failed|FAILED" "$out/ctest.log" | head -20
f=./build-gpu/src/ferry
for round in 1 2; do
  $f run dispatch -q --rungs baseline,+fused,+zerocopy,+cluster,+resident --iterations 100 --json "$out/d$round.json" > "$out/d$round.txt" 2>&1; echo "dispatch rc=$?"
  sed -n '/^Bitonic sort/,$p' "$out/d$round.txt" | grep -v "^note: [0-9]* keys:" | head -30
done
$f run dispatch -q --rungs +fused,+zerocopy,+cluster,+resident --keys 1K:32K:x2 --iterations 50 > "$out/sweep.txt" 2>&1; echo "sweep rc=$?"
sed -n '/^Bitonic sort/,/^$/p' "$out/sweep.txt"
grep -i "cluster" "$out/sweep.txt" | grep -v "^note: [0-9]* keys: best" | head
