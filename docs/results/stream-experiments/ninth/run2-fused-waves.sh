#!/usr/bin/env bash
# Throwaway: (1) the compute-free probe at 64 and 256 MiB, (2) ferry's new pool at 64 and 256 MiB,
# (3) fused and zerocopy moving a team's slice two quads a thread at a time (.ab/fw) against the working tree.
set -uo pipefail
out=${OUT:-/tmp/out}
export PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
(cmake -S . -B build-gpu $cfg > $out/build-new.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build-new.log 2>&1) &
(cmake -S .ab/fw -B .ab/fw/build-gpu $cfg > $out/build-fw.log 2>&1 && cmake --build .ab/fw/build-gpu -j16 --target ferry >> $out/build-fw.log 2>&1) &
(cd .ab && nvcc -O3 -std=c++20 -arch=sm_90 closed_loop_grid.cu -o closed_loop_grid) &
wait
new=build-gpu/src/ferry; fw=.ab/fw/build-gpu/src/ferry
[ -x $new ] && [ -x $fw ] || { tail -20 $out/build-*.log; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" | tee -a $out/ab.txt
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current --format=csv > $out/machine.txt
.ab/closed_loop_grid 64 > $out/probe.txt 2>&1
.ab/closed_loop_grid 256 >> $out/probe.txt 2>&1
prof=docs/results/profile-tune-h100.json
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout ${T:-150} "$@" >> $out/ab.txt 2>&1; echo "rc=$? at $(( $(date +%s) - t0 )) s" >> $out/ab.txt; }
pp="--design pool --chunks 128K,256K,512K --depth 3,4,6 --iterations 3 --profile $prof"
run "pool 64M" $new run stream $pp --total 64M
run "pool 256M" $new run stream $pp --total 256M
fp="--design fused,zerocopy --chunks 4K,64K,128K,256K --depth 1,4,6,8 --total 256M --iterations 2 --profile $prof"
run "new r1" $new run stream $fp
run "fw r1" $fw run stream $fp
run "fw r2" $fw run stream $fp
run "new r2" $new run stream $fp
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
