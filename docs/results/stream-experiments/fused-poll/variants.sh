#!/usr/bin/env bash
# fused 4 KiB depth 1: ferry's kernel (acquire poll) against variants that change one piece each.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"; log=$out/log.txt
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L > "$log"
mkdir -p /tmp/var && tar --exclude='./build-*' --exclude=./peer --exclude=./.git --exclude=./.venv -cf - . | tar -xf - -C /tmp/var
(cd /tmp/var && patch -p1 < "$OLDPWD/docs/results/stream-experiments/fused-poll/poll-acquire.patch") >> "$log" 2>&1
p=docs/results/stream-experiments/fused-poll
nv="nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -DFERRY_WITH_CUDA=1"
$nv -o /tmp/bisect $p/bisect.cu >> "$log" 2>&1 &
$nv -I/tmp/var/src -o /tmp/real-var $p/fused-kernel.cu >> "$log" 2>&1 &
wait
for round in 1 2; do
  /tmp/bisect 2>&1 | grep -E "host-made fresh +poll acquire +reply st.release +host plain" >> "$log"
  for w in -1 0 1 2 3 4 5 6 7; do /tmp/real-var 256 3 $w >> "$log" 2>&1; done
  for w in -1 7; do /tmp/real-var 256 0 $w >> "$log" 2>&1; done
done
