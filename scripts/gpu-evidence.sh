#!/usr/bin/env bash
# On the GPU machine: build with the CUDA backend for Hopper, run the tests
# (the GPU ones included), then `ferry run link` and `ferry probe`, writing
# everything under $OUT (or ./evidence). Usage: scripts/gpu-evidence.sh [link options...]
set -euo pipefail
out=$(realpath -m "${OUT:-evidence}")
mkdir -p "$out"
nvml_dir=""
for d in /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include "$PWD/.deps/nvml"; do
  if [ -f "$d/nvml.h" ]; then nvml_dir=$d; break; fi
done
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DFERRY_NVML_INCLUDE_DIR="$nvml_dir" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
(cd build-gpu && ctest --output-on-failure -j4 > "$out/ctest.log" 2>&1) || { tail -40 "$out/ctest.log"; exit 1; }
tail -3 "$out/ctest.log"
./build-gpu/src/ferry run link --json "$out/link.json" --csv "$out/link.csv" "$@" 2> "$out/link-progress.log" | tee "$out/link.txt"
./build-gpu/src/ferry probe --quick -q -o "$out/profile.json" > "$out/probe.txt"
echo "evidence in $out"
