#!/usr/bin/env bash
# Evidence: a fresh machine profile (ferry probe: link's ceilings, loaded figures included), then
# ferry tune stream --latency 40us and 20us over every design, reading that profile.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=OFF && cmake --build build-gpu -j16 --target ferry; } > "$out/build.log" 2>&1 || { grep error "$out/build.log" | head; exit 1; }
f=./build-gpu/src/ferry
git log --oneline -1 > "$out/commit.txt" 2>/dev/null || true
start=$(date +%s)
$f probe -q -o "$out/profile.json" > "$out/probe.txt" 2>&1 || { tail -20 "$out/probe.txt"; exit 1; }
echo "probe: $(( $(date +%s) - start )) s"
for L in 40us 20us; do
  t=$(date +%s)
  $f tune stream -q --latency $L --profile "$out/profile.json" --json "$out/tune-stream-$L.json" > "$out/tune-stream-$L.txt" 2>&1
  echo "tune $L: exit $?, $(( $(date +%s) - t )) s"
  grep -A30 -E '^(The configuration|note: model)' "$out/tune-stream-$L.txt" | tail -14
done
