#!/usr/bin/env bash
# Throwaway A/B: persistent moving 8 (working tree), 4 or 2 quads a thread at a time through its roles, one H100.
set -uo pipefail
out=${OUT:-/tmp/out}
export PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF"
(cmake -S . -B build-gpu $cfg > $out/build-w8.log 2>&1 && cmake --build build-gpu -j6 --target ferry >> $out/build-w8.log 2>&1) &
for w in 2 4; do (cmake -S .ab/w$w -B .ab/w$w/build-gpu $cfg > $out/build-w$w.log 2>&1 && cmake --build .ab/w$w/build-gpu -j5 --target ferry >> $out/build-w$w.log 2>&1) & done
wait
for b in build-gpu/src/ferry .ab/w2/build-gpu/src/ferry .ab/w4/build-gpu/src/ferry; do [ -x $b ] || { tail -20 $out/build-*.log; exit 1; }; done
echo "built in $(( $(date +%s) - t0 )) s" | tee -a $out/ab.txt
run() { local name=$1; shift; echo "=== $name $*" >> $out/ab.txt; timeout 120 "$@" >> $out/ab.txt 2>&1; echo "rc=$? at $(( $(date +%s) - t0 )) s" >> $out/ab.txt; }
pts="--design persistent --chunks 4K,64K,256K,1M,4M --depth 1,2,4 --total 256M --iterations 2 --profile docs/results/profile-tune-h100.json"
for r in 1 2; do
  run "w8 r$r" build-gpu/src/ferry run stream $pts
  run "w2 r$r" .ab/w2/build-gpu/src/ferry run stream $pts
  run "w4 r$r" .ab/w4/build-gpu/src/ferry run stream $pts
done
echo "total $(( $(date +%s) - t0 )) s" >> $out/ab.txt
