#!/usr/bin/env bash
# On the GPU machine: builds nccl-tests' sendrecv_perf, with MPI, for Hopper,
# from its source folder SOURCE into SOURCE/build. The log goes to LOG, the
# binary's path to standard output; exit 1, saying what is missing, when it
# cannot be built.
# nccl-tests' Makefile looks for NCCL only under NCCL_HOME/include and
# NCCL_HOME/lib, and for MPI under MPI_HOME/include and MPI_HOME/lib, while
# NVIDIA's installer puts NCCL beside CUDA, Debian's packages put it in /usr
# and OpenMPI's in /usr/lib/<arch>/openmpi. So each HOME here is a folder of
# links to what this machine has: NCCL where the loader finds it (the one
# ferry opens), MPI where mpicc says.
# Usage: scripts/nccl-tests-build.sh SOURCE LOG
set -euo pipefail
usage="usage: scripts/nccl-tests-build.sh SOURCE LOG"
src=$(realpath "${1:?$usage}")
log=$(realpath -m "${2:?$usage}")
build=$src/build
: > "$log"
fail() {
  echo "nccl-tests: $*" | tee -a "$log" >&2
  exit 1
}
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)

# The library file NAME where the loader finds it (its cache), else nothing.
loader_path() { "$ldconfig" -p 2> /dev/null | awk -v name="$1" '$1 == name { print $NF; exit }' | grep .; }
# The first FOLDER that holds the file NAME, as FOLDER/NAME.
in_folders() {
  local name=$1 dir
  shift
  for dir in "$@"; do
    if [ -f "$dir/$name" ]; then
      echo "$dir/$name"
      return 0
    fi
  done
  return 1
}

nvcc=$(command -v nvcc) || fail "no nvcc on PATH (nor in /usr/local/cuda/bin)"
cuda_home=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
cudart=$(in_folders libcudart.so "$cuda_home/lib64" "$cuda_home/targets/x86_64-linux/lib" "$cuda_home/lib" ||
  loader_path libcudart.so) || fail "no libcudart.so beside $nvcc nor where the loader looks"
pip_nccl=$PWD/.deps/pip/nvidia/nccl
nccl_h=$(in_folders nccl.h "$cuda_home/include" /usr/include /usr/local/include "$pip_nccl/include") ||
  fail "no nccl.h (looked in $cuda_home/include, /usr/include, /usr/local/include, $pip_nccl/include)"
libnccl=$(loader_path libnccl.so.2 || in_folders libnccl.so.2 "$cuda_home/lib64" "$cuda_home/lib" "$pip_nccl/lib") ||
  fail "no libnccl.so.2 where the loader looks, nor beside CUDA or in $pip_nccl/lib"
command -v mpicc > /dev/null || fail "no mpicc on PATH (Debian: libopenmpi-dev)"
# shellcheck disable=SC2046  # mpicc prints its folders separated by spaces
mpi_h=$(in_folders mpi.h $(mpicc --showme:incdirs) /usr/include) || fail "no mpi.h in mpicc's include folders"
# shellcheck disable=SC2046
libmpi=$(in_folders libmpi.so $(mpicc --showme:libdirs) || loader_path libmpi.so) ||
  fail "no libmpi.so in mpicc's library folders nor where the loader looks"

homes=$build/homes
rm -rf "$homes"
mkdir -p "$homes/nccl/lib" "$homes/mpi/lib"
ln -s "$(dirname "$nccl_h")" "$homes/nccl/include"
ln -s "$libnccl" "$homes/nccl/lib/libnccl.so"
ln -s "$(dirname "$mpi_h")" "$homes/mpi/include"
ln -s "$libmpi" "$homes/mpi/lib/libmpi.so"
{
  echo "# nccl-tests sendrecv_perf from $src: nvcc $nvcc, NCCL $nccl_h and $libnccl, MPI $mpi_h and $libmpi"
  # The binary finds its libraries where they were found here, also where the loader would not look.
  LD_RUN_PATH="$(dirname "$libnccl"):$(dirname "$libmpi"):$(dirname "$cudart")" \
    make -C "$src/src" -j"$(nproc)" "$build/sendrecv_perf" BUILDDIR="$build" MPI=1 \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" CUDA_HOME="$cuda_home" NVCC="$nvcc" \
    CUDA_LIB="$(dirname "$cudart")" NCCL_HOME="$homes/nccl" MPI_HOME="$homes/mpi"
} >> "$log" 2>&1 || { grep -E "error|Error" "$log" | head -20 >&2; fail "the build failed (log: $log)"; }
echo "$build/sendrecv_perf"
