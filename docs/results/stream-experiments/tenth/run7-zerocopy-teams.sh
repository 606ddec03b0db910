#!/bin/bash
# zerocopy with the teams of every chunk in flight capped (throwaway, not committed).
set -u
git apply .ab/zcteams.patch || exit 1
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
cmake -S . -B build-gpu $CM > /tmp/cmake.log 2>&1
cmake --build build-gpu -j16 --target ferry > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
F=build-gpu/src/ferry; P=docs/results/profile-h100.json
for round in 1 2; do
  for budget in 0 16 32 64; do
    FERRY_X_ZC_TEAMS=$budget $F run stream -q --design zerocopy --chunks 64K,256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P > $OUT/zc-$budget-$round.txt 2>&1
    echo "== budget $budget round $round"; awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  zerocopy/{printf "%s%s d%s %s | ", $2,$3,$4,$5} END{print ""}' $OUT/zc-$budget-$round.txt
    awk '/^Throughput/{on=1} on && /^$/{on=0} on && /^  zerocopy/{printf "%s%s d%s %s | ", $2,$3,$4,$5} END{print ""}' $OUT/zc-$budget-$round.txt
  done
done
