#!/bin/bash
# Persistent: doorbell relayed by team 0, one waiter per player; batch/slot variants (throwaway).
set -u
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
(cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1 && cmake --build build-gpu -j8 --target ferry > $OUT/build.log 2>&1) &
(cd .ab/old && cmake -S . -B build-gpu $CM > /dev/null 2>&1 && cmake --build build-gpu -j8 --target ferry > $OUT/build-old.log 2>&1) &
wait
[ -x build-gpu/src/ferry ] || { tail -30 $OUT/build.log; exit 1; }
NEW=build-gpu/src/ferry; OLD=.ab/old/build-gpu/src/ferry
P=docs/results/profile-h100.json
summ() { awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  (persistent|fused)/{print $1,$2,$3,$4,$5,$9,$10}' $1; }
A="--chunks 4K,16K,64K,256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P"
for round in 1 2; do
  $NEW run stream -q --design persistent $A > $OUT/new-$round.txt 2>&1; echo "== new $round rc=$?"; summ $OUT/new-$round.txt
  $OLD run stream -q --design persistent,fused $A > $OUT/old-$round.txt 2>&1; echo "== old+fused $round rc=$?"; summ $OUT/old-$round.txt
done
for v in "512 8" "256 8" "2048 2" "512 4"; do
  set -- $v
  FERRY_X_BATCH=$1 FERRY_X_SLOTS=$2 $NEW run stream -q --design persistent --chunks 4K,64K,256K,1M,4M --depth 1,2,4 --total 256M --iterations 2 --profile $P > $OUT/v-$1-$2.txt 2>&1
  echo "== batch $1 slots $2 rc=$?"; summ $OUT/v-$1-$2.txt
done
for t in 8 16; do
  $NEW run stream -q --design persistent --teams $t --chunks 256K,1M,4M --depth 1,2,4 --total 256M --iterations 2 --profile $P > $OUT/teams-$t.txt 2>&1
  echo "== teams $t rc=$?"; summ $OUT/teams-$t.txt
done
