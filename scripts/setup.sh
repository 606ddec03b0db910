#!/usr/bin/env bash
# Installs what ferry and its tests need and is missing (Debian packages, OpenMPI
# and GoogleTest among them; NVML's and NCCL's headers from PyPI when the CUDA
# toolkit lacks them), then configures and builds everything, tests included
# (a later -DFERRY_UNIT_TESTS=OFF leaves out the C++ unit tests: scripts/test.sh).
# Usage: scripts/setup.sh [BUILD_DIR] [FERRY_CUDA=AUTO|ON|OFF] [CMAKE_ARG...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
ferry_cuda=${2:-AUTO}
shift $(($# < 2 ? $# : 2))

scripts/apt-install.sh setup $(scripts/packages.sh build tests)
scripts/configure.sh "$build_dir" "$ferry_cuda" -DFERRY_TESTS=ON -DFERRY_UNIT_TESTS=ON "$@"
cmake --build "$build_dir" -j"$(nproc)"
