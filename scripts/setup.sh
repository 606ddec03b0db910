#!/usr/bin/env bash
# Installs what ferry needs and is missing (Debian packages, OpenMPI among them;
# NVML's and NCCL's headers from PyPI when the CUDA toolkit lacks them), then
# configures and builds.
# Usage: scripts/setup.sh [BUILD_DIR] [FERRY_CUDA=AUTO|ON|OFF]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
ferry_cuda=${2:-AUTO}

scripts/apt-install.sh setup cmake ninja-build g++ dpkg-dev libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev python3-pip libopenmpi-dev openmpi-bin

[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
nvml_dir=""
if [ "$ferry_cuda" != OFF ] && command -v nvcc > /dev/null; then
  for d in /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include .deps/nvml .deps/pip/nvidia/cu13/include; do
    if [ -f "$d/nvml.h" ]; then nvml_dir=$(realpath "$d"); break; fi
  done
  if [ -z "$nvml_dir" ]; then
    echo "setup: fetching NVML's header (PyPI nvidia-nvml-dev) for the link facts"
    if python3 -m pip install -q --disable-pip-version-check --target .deps/pip nvidia-nvml-dev > /dev/null 2>&1 &&
       [ -f .deps/pip/nvidia/cu13/include/nvml.h ]; then
      nvml_dir=$(realpath .deps/pip/nvidia/cu13/include)
    else
      echo "setup: no nvml.h; PCIe facts will come from sysfs and NVLink counts will be missing"
    fi
  fi
fi

# NCCL's header builds the nccl transport; the library is opened at run time, so CI (no GPU) needs only the header.
nccl_dir=""
if [ "$ferry_cuda" != OFF ] && command -v nvcc > /dev/null; then
  for d in /usr/include /usr/local/cuda/include /usr/local/include .deps/pip/nvidia/nccl/include; do
    if [ -f "$d/nccl.h" ]; then nccl_dir=$(realpath "$d"); break; fi
  done
  if [ -z "$nccl_dir" ]; then
    echo "setup: fetching NCCL's header (PyPI nvidia-nccl-cu13) for the nccl transport"
    python3 -m pip install -q --disable-pip-version-check --target .deps/pip nvidia-nccl-cu13 > /dev/null 2>&1 || true
    found=$(find .deps/pip -name nccl.h 2> /dev/null | head -1)
    if [ -n "$found" ]; then nccl_dir=$(realpath "$(dirname "$found")"); else echo "setup: no nccl.h; the nccl transport is left out"; fi
  fi
fi

# `ferry report` and `ferry compare` run the environment scripts/setup-python.sh made, when there is one.
python_arg=()
[ -x .venv/bin/python ] && python_arg=("-DFERRY_PYTHON=$PWD/.venv/bin/python")

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA="$ferry_cuda" \
  -DFERRY_NVML_INCLUDE_DIR="$nvml_dir" -DFERRY_NCCL_INCLUDE_DIR="$nccl_dir" "${python_arg[@]}" > "$build_dir.configure.log" 2>&1 || { cat "$build_dir.configure.log"; exit 1; }
grep -E "^-- ferry:" "$build_dir.configure.log" || true
cmake --build "$build_dir" -j"$(nproc)"
