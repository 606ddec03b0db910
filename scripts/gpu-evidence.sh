#!/usr/bin/env bash
# On the GPU machine: build with the CUDA backend for Hopper, run every test
# (the GPU ones included), then `ferry run link` (tables, JSON, CSV) and
# `ferry probe` (the machine profile). Writes 8 files under $OUT (or ./evidence).
# Usage: scripts/gpu-evidence.sh [extra `ferry run link` options]
set -euo pipefail
out=$(realpath -m "${OUT:-evidence}")
mkdir -p "$out"
nvml_dir=""
for d in /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include "$PWD/.deps/nvml"; do
  if [ -f "$d/nvml.h" ]; then nvml_dir=$d; break; fi
done
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DFERRY_NVML_INCLUDE_DIR="$nvml_dir" && cmake --build build-gpu -j"$(nproc)"; } > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
(cd build-gpu && ctest --output-on-failure -j4 > "$out/ctest.log" 2>&1) || { tail -40 "$out/ctest.log"; exit 1; }
grep -E "tests passed|Skipped|Failed" "$out/ctest.log" || true
./build-gpu/src/ferry run link -q --json "$out/link.json" --csv "$out/link.csv" "$@" | tee "$out/link.txt"
./build-gpu/src/ferry probe -q -o "$out/profile.json" "$@" > "$out/probe.txt"
tail -2 "$out/probe.txt"
