#!/usr/bin/env bash
# fused 4 KiB depth 1: ferry's kernel under the probe's host loop, the probe's own kernel, and ferry, one machine.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"; log=$out/log.txt
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L > "$log"
mkdir -p /tmp/var && tar --exclude='./build-*' --exclude=./peer --exclude=./.git --exclude=./.venv -cf - . | tar -xf - -C /tmp/var
(cd /tmp/var && patch -p1 < "$OLDPWD/docs/results/stream-experiments/fused-poll/poll-acquire.patch") >> "$log" 2>&1
p=docs/results/stream-experiments/fused-poll
nv="nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -DFERRY_WITH_CUDA=1"
$nv -o /tmp/bisect $p/bisect.cu >> "$log" 2>&1 &
$nv -Isrc -o /tmp/real-new $p/fused-kernel.cu >> "$log" 2>&1 &
$nv -I/tmp/var/src -o /tmp/real-var $p/fused-kernel.cu >> "$log" 2>&1 &
(cmake -S /tmp/var -B /tmp/b-var -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DFERRY_TESTS=OFF > /tmp/b-var.log 2>&1 && cmake --build /tmp/b-var -j12 --target ferry >> /tmp/b-var.log 2>&1) &
wait
[ -x /tmp/b-var/src/ferry ] || { tail -30 /tmp/b-var.log >> "$log"; exit 1; }
for round in 1 2; do
  /tmp/bisect 2>&1 | grep -E "host-made fresh +poll (volatile|acquire|relaxed\+fence) +reply st.release +host plain" >> "$log"
  for v in new var; do
    for mib in 256 1024; do /tmp/real-$v $mib 3 | sed "s/^/$v: /" >> "$log" 2>&1; done
  done
  /tmp/real-var 256 1 | sed "s/^/var: /" >> "$log" 2>&1
  /tmp/b-var/src/ferry run stream -q --design fused --chunks 4K --depth 1 --json "$out/fused-q$round.json" > "$out/fused-q$round.txt" 2>&1
  grep -h "lowest latency at the smallest" "$out/fused-q$round.txt" | sed 's/^/ferry -q: /' >> "$log"
done
/tmp/b-var/src/ferry run stream --design fused --chunks 4K --depth 1 > "$out/fused-full.txt" 2>&1
grep -h "lowest latency at the smallest" "$out/fused-full.txt" | sed 's/^/ferry 1 GiB: /' >> "$log"
