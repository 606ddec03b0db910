#!/usr/bin/env bash
# Configures a build (no installs but NVML's and NCCL's headers from PyPI when
# the CUDA toolkit lacks them and nvcc is there). Extra arguments go to cmake.
# Usage: scripts/configure.sh BUILD_DIR FERRY_CUDA=AUTO|ON|OFF [CMAKE_ARG...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:?usage: scripts/configure.sh BUILD_DIR AUTO|ON|OFF [CMAKE_ARG...]}
ferry_cuda=${2:?usage: scripts/configure.sh BUILD_DIR AUTO|ON|OFF [CMAKE_ARG...]}
shift 2

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

# `ferry report` and `ferry compare` run the environment scripts/setup-python.sh makes (.venv); without
# one, Debian's Python when it has matplotlib (scripts/run-link.sh installs python3-matplotlib: python3 on
# the PATH may be another one); else .venv's path all the same, and ferry runs python3 from the PATH until
# it exists (src/cli/python_command.cpp). The choice is compiled into the library: changing it rebuilds it.
python=$PWD/.venv/bin/python
if [ ! -x "$python" ] && /usr/bin/python3 -c "import matplotlib" > /dev/null 2>&1; then python=/usr/bin/python3; fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFERRY_CUDA="$ferry_cuda" \
  -DFERRY_NVML_INCLUDE_DIR="$nvml_dir" -DFERRY_NCCL_INCLUDE_DIR="$nccl_dir" -DFERRY_PYTHON="$python" "$@" \
  > "$build_dir.configure.log" 2>&1 || { cat "$build_dir.configure.log"; exit 1; }
grep -E "^-- ferry:" "$build_dir.configure.log" || true
