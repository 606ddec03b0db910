#!/usr/bin/env bash
# Throwaway A/B: A = HEAD, B = stages 2, 4 and 8 as one window on chip (the tile still moves in and out whole).

set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
echo 'add_executable(cluster_probe ${PROJECT_SOURCE_DIR}/.ab/cluster_probe.cpp)
target_link_libraries(cluster_probe PRIVATE ferry_lib)
set_source_files_properties(${PROJECT_SOURCE_DIR}/.ab/cluster_probe.cpp PROPERTIES LANGUAGE CUDA)' >> tests/CMakeLists.txt
rm -rf /tmp/a && mkdir /tmp/a && cp -r $(ls -A | grep -v '^build-gpu$') /tmp/a/ && cp .ab/fused_sort_A.hpp /tmp/a/src/bench/dispatch/fused_sort.hpp
bash scripts/gpu-build.sh "$out/build.log" || { tail -30 "$out/build.log"; exit 1; }
(cd /tmp/a && bash scripts/gpu-build.sh /tmp/a/build.log) || { tail -30 /tmp/a/build.log; exit 1; }
(cd build-gpu && ctest -j4 -R "Bitonic|SortBench|Kernel" > "$out/ctest.log" 2>&1); grep -E "tests passed|Failed" "$out/ctest.log" | head -5
P=$(find build-gpu -name cluster_probe -type f | head -1); PA=$(find /tmp/a/build-gpu -name cluster_probe -type f | head -1)
{
for r in 1 2; do
  echo "== A (HEAD)"; $PA | head -4
  echo "== B (stages 2-8 in one window)"; $P | head -4
done
} 2>&1 | tee "$out/probe.txt"
./build-gpu/src/ferry probe -q -o /tmp/profile.json > /dev/null 2>&1 || echo "probe failed"
{
for r in 1 2; do
  for v in A B; do
    f=./build-gpu/src/ferry; [ $v = A ] && f=/tmp/a/build-gpu/src/ferry
    echo "== $v"
    $f run dispatch -q --profile /tmp/profile.json --rungs +fused,+zerocopy,+cluster,+resident --iterations 200 | grep -E "^  32768  \+"  | cut -c1-130
  done
done
} 2>&1 | tee "$out/e2e.txt"
