#!/usr/bin/env bash
# fused at 1-64 MiB: the acquire poll (HEAD) against relaxed polls and a fence (the patch reversed), in turns.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"; log=$out/log.txt
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L > "$log"
mkdir -p /tmp/old && tar --exclude='./build-*' --exclude=./peer --exclude=./.git --exclude=./.venv -cf - . | tar -xf - -C /tmp/old
(cd /tmp/old && patch -R -p1 < "$OLDPWD/docs/results/stream-experiments/fused-poll/poll-acquire.patch (at 7c77e28)") >> "$log" 2>&1
build() {
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DFERRY_TESTS=OFF > "$2.log" 2>&1 && cmake --build "$2" -j8 --target ferry >> "$2.log" 2>&1
}
s=$SECONDS; build . /tmp/b-new & build /tmp/old /tmp/b-old & wait; echo "builds: $((SECONDS - s)) s" >> "$log"
for t in new old; do [ -x /tmp/b-$t/src/ferry ] || { tail -20 /tmp/b-$t.log >> "$log"; exit 1; }; done
for round in 1 2 3; do
  for t in new old; do
    /tmp/b-$t/src/ferry run stream -q --design fused --chunks 1M,16M,64M --depth 1,4 --profile docs/results/profile-h100.json \
      > "$out/$t$round.txt" 2>&1; echo "== $t$round rc=$?" >> "$log"
    grep -E "^  fused " "$out/$t$round.txt" | head -12 >> "$log"
  done
done
