#!/bin/bash
# Persistent (batch 512, 8 slots): a flagger role, and 8 KiB per team (throwaway).
set -u
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1 && cmake --build build-gpu -j16 --target ferry > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
NEW=build-gpu/src/ferry
P=docs/results/profile-h100.json
summ() { awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  (persistent|fused)/{print $1,$2,$3,$4,$5,$9,$10}' $1; }
A="--chunks 4K,64K,256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P"
for round in 1 2; do
  for v in base flag qpt512 qpt512flag; do
    E=""; [ $v = flag ] && E="FERRY_X_FLAGGER=1"; [ $v = qpt512 ] && E="FERRY_X_QPT=512"; [ $v = qpt512flag ] && E="FERRY_X_QPT=512 FERRY_X_FLAGGER=1"
    env $E $NEW run stream -q --design persistent $A > $OUT/$v-$round.txt 2>&1; echo "== $v $round rc=$?"; summ $OUT/$v-$round.txt | tr '\n' ';'; echo
  done
done
