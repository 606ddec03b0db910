#!/bin/bash
# persistent's teams per role with the ring in planes (throwaway, not committed).
set -u
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1
cmake --build build-gpu -j16 --target ferry > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
F=build-gpu/src/ferry; P=docs/results/profile-h100.json
for round in 1 2; do
for t in default 2 4 8 16; do
  T=""; [ $t = default ] || T="--teams $t"
  $F run stream -q --design persistent --chunks 16K,64K,256K,1M --depth 1,2,4 --total 64M --iterations 2 --profile $P $T > $OUT/teams-$t-$round.txt 2>&1
  echo "== teams $t round $round"; awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  persistent/{printf "%s%s d%s %s | ", $2,$3,$4,$5} END{print ""}' $OUT/teams-$t-$round.txt
done
done
