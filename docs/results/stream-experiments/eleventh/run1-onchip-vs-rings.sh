#!/bin/bash
# Persistent roles on the warps of one team (on-chip ring) against the committed L2 rings (throwaway).
set -u
nvidia-smi -L > $OUT/machine.txt
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
(cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1 && cmake --build build-gpu -j8 --target ferry > $OUT/build.log 2>&1) &
(cd .ab/old && cmake -S . -B build-gpu $CM > /dev/null 2>&1 && cmake --build build-gpu -j8 --target ferry > $OUT/build-old.log 2>&1) &
wait
[ -x build-gpu/src/ferry ] || { tail -30 $OUT/build.log; exit 1; }
[ -x .ab/old/build-gpu/src/ferry ] || { tail -30 $OUT/build-old.log; exit 1; }
NEW=build-gpu/src/ferry; OLD=.ab/old/build-gpu/src/ferry
P=docs/results/profile-h100.json
for where in producer@0 stage2@3 consumer@5; do
  s=$(date +%s.%N)
  FERRY_FAULT_UNSEEN_FLAG=$where $NEW run stream -q --design persistent --chunks 64K --depth 1 --total 16M --iterations 1 --timeout 300ms --profile $P > $OUT/fault-$where.txt 2>&1
  echo "fault $where: rc=$? $(echo "$(date +%s.%N) - $s" | bc) s: $(tail -1 $OUT/fault-$where.txt)"
done
summ() { awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  (persistent|fused)/{print $1,$2,$3,$4,$5,$9,$10}' $1; }
for round in 1 2; do
  for v in old new; do
    B=$NEW; [ $v = old ] && B=$OLD
    $B run stream -q --design persistent --chunks 4K,16K,64K,256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P > $OUT/ab-$v-$round.txt 2>&1
    echo "== $v $round rc=$?"; summ $OUT/ab-$v-$round.txt
  done
done
$NEW run stream -q --design fused --chunks 4K,16K,64K,256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P > $OUT/fused.txt 2>&1
echo "== fused rc=$?"; summ $OUT/fused.txt
for t in 8 16 64; do
  $NEW run stream -q --design persistent --teams $t --chunks 256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P > $OUT/teams-$t.txt 2>&1
  echo "== teams $t rc=$?"; summ $OUT/teams-$t.txt
done
