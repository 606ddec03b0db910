#!/bin/bash
# graph: copies retargeted after the launch, against before it (throwaway, not committed).
set -u
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
R=$PWD
mkdir -p /tmp/old && git ls-files -z | xargs -0 cp --parents -t /tmp/old 2>/dev/null; (cd /tmp/old && patch -s -R -p1 < $R/.ab/graph.patch)
grep -c point_copies_at /tmp/old/src/bench/stream/stream_graph.cpp
cmake -S . -B build-gpu $CM > $OUT/cmake.log 2>&1
cmake --build build-gpu -j16 --target ferry > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
(cd /tmp/old && cmake -S . -B build-gpu $CM > /dev/null 2>&1 && cmake --build build-gpu -j16 --target ferry > $OUT/build-old.log 2>&1) || { tail -30 $OUT/build-old.log; exit 1; }
NEW=build-gpu/src/ferry; OLD=/tmp/old/build-gpu/src/ferry; P=docs/results/profile-h100.json
for round in 1 2; do
  for v in old new; do
    B=$NEW; [ $v = old ] && B=$OLD
    $B run stream -q --design graph,chunked --chunks 4K,64K,256K,1M,4M --depth 1,2,4 --total 256M --iterations 2 --profile $P > $OUT/ab-$v-$round.txt 2>&1
    echo "== $v $round"; awk '/Chunk latency/{on=1} on && /^$/{on=0} on && /^  (graph|chunked)/{printf "%s %s%s d%s %s | ", $1,$2,$3,$4,$5} END{print ""}' $OUT/ab-$v-$round.txt
  done
done
