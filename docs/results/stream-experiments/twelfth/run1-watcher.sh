#!/bin/bash
# launch-per-chunk and graph designs: a watcher thread that sees chunks come back while the host launches, against one thread (throwaway).
set -u
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1 && cmake --build build-gpu -j16 --target ferry > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
B=build-gpu/src/ferry
P=docs/results/profile-h100.json
summ() { awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  (chunked|zerocopy|graph|pipeline)/{print $1,$2$3,"x"$4,$5,$10}' $1 | tr '\n' ';'; echo; }
Q="--design chunked,zerocopy,pipeline,graph --chunks 64K,256K,1M --depth 1,2,4 --total 256M --iterations 2 --profile $P"
for round in 1 2; do
  for v in plain launch; do
    FERRY_X_HOSTSTATS=1 FERRY_X_WATCH=$v $B run stream -q $Q > $OUT/$v-$round.txt 2> $OUT/$v-$round.err; echo "== $v $round rc=$?"; summ $OUT/$v-$round.txt
    grep -E "^stream:|did not" $OUT/$v-$round.txt | head -2
  done
done
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/gpu.txt
