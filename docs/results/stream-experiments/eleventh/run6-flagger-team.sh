#!/bin/bash
# persistent: one flagger team and one system fence per chunk, against a system-scope release per team and chunk (throwaway).
set -u
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
(cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1 && cmake --build build-gpu -j8 --target ferry > $OUT/build.log 2>&1) &
(cd .ab/flagger && cmake -S . -B build-gpu $CM > /dev/null 2>&1 && cmake --build build-gpu -j8 --target ferry > $OUT/build-flagger.log 2>&1) &
wait
for b in build-gpu/src/ferry .ab/flagger/build-gpu/src/ferry; do [ -x $b ] || { echo "no $b"; tail -30 $OUT/build*.log; exit 1; }; done
P=docs/results/profile-h100.json
summ() { awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  (persistent|fused)/{print $2,$3,$4,$5}' $1 | tr '\n' ';'; echo; }
Q="--design persistent --chunks 4K,64K,256K,1M,4M --depth 1,2,4,8 --total 256M --iterations 2 --profile $P"
for round in 1 2; do
  for v in base flagger; do
    B=build-gpu/src/ferry; [ $v = flagger ] && B=.ab/flagger/build-gpu/src/ferry
    $B run stream -q $Q > $OUT/$v-$round.txt 2>&1; echo "== $v $round rc=$?"; summ $OUT/$v-$round.txt
    grep -E "^stream:|did not" $OUT/$v-$round.txt | head -2
  done
done
