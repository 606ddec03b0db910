#!/bin/bash
# A/B of the persistent pipeline's ring polls (throwaway, not committed).
set -u
git apply .ab/poll.patch || exit 1
nvidia-smi -L > $OUT/machine.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $OUT/cmake.log 2>&1
cmake --build build-gpu -j16 --target ferry > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
F=build-gpu/src/ferry
run() { name=$1; shift; echo "== $name" ; env "$@" $F run stream -q --design persistent --chunks 16K,64K,256K,1M,4M --depth 1,2,4 --total 64M --iterations 2 --profile docs/results/profile-h100.json > $OUT/$name.txt 2>&1; grep -E "^  persistent" $OUT/$name.txt | awk '{print $2,$3,$4,$5,$6}' | head -40; }
for round in 1 2; do
run base$round X=0
run poll1_$round FERRY_X_POLL=1
run sleep100_$round FERRY_X_SLEEP=100
run poll1sleep50_$round FERRY_X_POLL=1 FERRY_X_SLEEP=50
done
