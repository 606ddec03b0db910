#!/usr/bin/env bash
# Throwaway A/B: committed pool (.ab/old: 16 workers, a thread's whole share at once) against
# the working tree's (32 workers, one quad a thread in flight), one H100.
set -uo pipefail
out=${OUT:-/tmp/out}
export PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
(cmake -S . -B build-gpu $cfg > $out/build-new.log 2>&1 && cmake --build build-gpu -j16 --target ferry >> $out/build-new.log 2>&1) &
(cmake -S .ab/old -B .ab/old/build-gpu $cfg > $out/build-old.log 2>&1 && cmake --build .ab/old/build-gpu -j16 --target ferry >> $out/build-old.log 2>&1) &
wait
new=build-gpu/src/ferry; old=.ab/old/build-gpu/src/ferry
[ -x $new ] && [ -x $old ] || { tail -20 $out/build-*.log; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s" | tee -a $out/ab.txt
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.mem --format=csv > $out/machine.txt
prof=docs/results/profile-tune-h100.json
common="--total 256M --iterations 2 --profile $prof"
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout ${T:-150} "$@" >> $out/ab.txt 2>&1; echo "rc=$? at $(( $(date +%s) - t0 )) s" >> $out/ab.txt; }
pts="--design pool,fused --chunks 4K,64K,128K,256K,512K --depth 1,4,6,8"
run "old r1" $old run stream $pts $common
run "new r1" $new run stream $pts $common
T=200 run "tune 40 new" $new tune stream --design pool,fused --latency 40us $common
T=200 run "tune 20 new" $new tune stream --design pool,fused --latency 20us $common
run "new r2" $new run stream $pts $common
run "old r2" $old run stream $pts $common
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
grep -E "^===|^  (pool|fused)  +[0-9]+ [KM]iB +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ |rc=|note: (link|best|no conf|within)|^best|chose|tune" $out/ab.txt > $out/summary.txt
