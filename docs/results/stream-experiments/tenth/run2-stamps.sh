#!/bin/bash
set -u
git apply .ab/stamps.patch || exit 1
[ -d build-gpu ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF > $OUT/cmake.log 2>&1
cmake --build build-gpu -j16 --target ferry > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
F=build-gpu/src/ferry
run() { name=$1; shift; echo "== $name $*"; FERRY_X_STAMPS=1 $F run stream -q --design persistent --total 64M --iterations 1 --profile docs/results/profile-h100.json "$@" > $OUT/$name.txt 2>&1; grep -E "^  persistent|stamps|chunk 1[6-9] host" $OUT/$name.txt | grep -v "^  persistent.*GB/s" ; }
run d1 --chunks 16K,64K,256K,1M --depth 1
run d2 --chunks 256K --depth 2
run t4 --chunks 64K --depth 1 --teams 4
run t1 --chunks 256K --depth 1 --teams 1
run t8 --chunks 256K --depth 1 --teams 8
