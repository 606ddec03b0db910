#!/bin/bash
# The persistent ring in 16-byte planes against the committed ring (throwaway, not committed).
set -u
nvidia-smi -L > $OUT/machine.txt
git worktree add -q /tmp/old HEAD
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1
cmake --build build-gpu -j16 --target ferry > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
(cd /tmp/old && cmake -S . -B build-gpu $CM > /dev/null 2>&1 && cmake --build build-gpu -j16 --target ferry > $OUT/build-old.log 2>&1) || { tail -30 $OUT/build-old.log; exit 1; }
NEW=build-gpu/src/ferry; OLD=/tmp/old/build-gpu/src/ferry
P=docs/results/profile-h100.json
FERRY_X_STAMPS=1 $NEW run stream -q --design persistent --total 64M --iterations 1 --profile $P --chunks 16K,64K,256K,1M --depth 1 > $OUT/stamps-d1.txt 2>&1
FERRY_X_STAMPS=1 $NEW run stream -q --design persistent --total 64M --iterations 1 --profile $P --chunks 256K --depth 2 > $OUT/stamps-d2.txt 2>&1
grep -E "stamps|chunk 1[67] host" $OUT/stamps-d1.txt $OUT/stamps-d2.txt | cut -c1-400
for round in 1 2; do
  for v in old new; do
    B=$NEW; [ $v = old ] && B=$OLD
    $B run stream -q --design persistent --chunks 4K,16K,64K,256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P > $OUT/ab-$v-$round.txt 2>&1
    echo "== $v $round"; awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  persistent/{print $2,$3,$4,$5,$6}' $OUT/ab-$v-$round.txt
  done
done
