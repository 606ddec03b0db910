#!/usr/bin/env bash
# fused 4 KiB depth 1: the bisecting probe, then ferry as it is and with an acquire poll, alternating.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"; log=$out/log.txt
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L > "$log"
nvcc -O3 -std=c++20 -arch=sm_90 -o /tmp/bisect docs/results/stream-experiments/fused-poll/bisect.cu >> "$log" 2>&1 || { echo "probe build failed" >> "$log"; exit 1; }
/tmp/bisect > "$out/probe1.txt" 2>&1
mkdir -p /tmp/var && tar --exclude='./build-*' --exclude=./peer --exclude=./.git --exclude=./.venv -cf - . | tar -xf - -C /tmp/var
(cd /tmp/var && patch -p1 < "$OLDPWD/docs/results/stream-experiments/fused-poll/poll-acquire.patch") >> "$log" 2>&1
build() {  # SRC BUILD
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DFERRY_TESTS=OFF > "$2.log" 2>&1 && cmake --build "$2" -j8 --target ferry >> "$2.log" 2>&1
}
start=$SECONDS
build . /tmp/b-new & build /tmp/var /tmp/b-var & wait
echo "builds: $((SECONDS - start)) s" >> "$log"
for t in new var; do [ -x /tmp/b-$t/src/ferry ] || { tail -30 /tmp/b-$t.log >> "$log"; exit 1; }; done
/tmp/bisect > "$out/probe2.txt" 2>&1
/tmp/b-new/src/ferry run link -q > "$out/link.txt" 2>&1
mkdir -p /tmp/runs
for round in 1 2 3; do
  for t in new var; do
    /tmp/b-$t/src/ferry run stream -q --design fused --chunks 4K,64K --depth 1,4 --json /tmp/runs/fused-$t$round.json \
      > /tmp/runs/fused-$t$round.txt 2>&1; echo "$t$round rc=$?" >> "$log"
    grep -E "fused" /tmp/runs/fused-$t$round.txt | head -8 >> "$log"
  done
done
tar czf "$out/runs.tgz" -C /tmp runs
