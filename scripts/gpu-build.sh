#!/usr/bin/env bash
# On the GPU machine: configure and build build-gpu with the CUDA backend for
# Hopper, tests included (a build folder configured without them keeps that
# choice in its cache otherwise). The log goes to $1 (default build-gpu.log);
# on failure its errors are shown.
set -euo pipefail
log=${1:-build-gpu.log}
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
nvml_dir=""
for d in /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include "$PWD/.deps/nvml"; do
  if [ -f "$d/nvml.h" ]; then nvml_dir=$d; break; fi
done
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFERRY_TESTS=ON \
    -DFERRY_NVML_INCLUDE_DIR="$nvml_dir" && cmake --build build-gpu -j"$(nproc)"; } > "$log" 2>&1 ||
  { grep -E "error|Error" "$log" | head -30; exit 1; }
grep -E "^-- ferry:" "$log" || true
