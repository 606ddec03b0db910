#!/bin/bash
# fused: two waves from depth 2 (now) or from depth 3/5; persistent with 768 or 1024 threads a team (throwaway).
set -u
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
(cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1 && cmake --build build-gpu -j6 --target ferry > $OUT/build.log 2>&1) &
for t in t768 t1024; do (cd .ab/$t && cmake -S . -B build-gpu $CM > /dev/null 2>&1 && cmake --build build-gpu -j5 --target ferry > $OUT/build-$t.log 2>&1) & done
wait
for b in build-gpu/src/ferry .ab/t768/build-gpu/src/ferry .ab/t1024/build-gpu/src/ferry; do [ -x $b ] || { echo "no $b"; tail -20 $OUT/build*.log; exit 1; }; done
NEW=build-gpu/src/ferry
P=docs/results/profile-h100.json
summ() { awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  (persistent|fused)/{print $1,$2,$3,$4,$5,$9,$10}' $1 | tr '\n' ';'; echo; }
F="--design fused --chunks 64K,128K,256K,512K,1M --depth 1,2,3,4 --total 256M --iterations 2 --profile $P"
Q="--design persistent --chunks 4K,64K,256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P"
for round in 1 2; do
  for w in 2 3 5; do
    FERRY_X_WAVES_FROM=$w $NEW run stream -q $F > $OUT/fused-w$w-$round.txt 2>&1; echo "== fused waves from $w, $round rc=$?"; summ $OUT/fused-w$w-$round.txt
  done
  for t in base t768 t1024; do
    B=$NEW; [ $t != base ] && B=.ab/$t/build-gpu/src/ferry
    $B run stream -q $Q > $OUT/pers-$t-$round.txt 2>&1; echo "== persistent $t, $round rc=$?"; summ $OUT/pers-$t-$round.txt
  done
done
