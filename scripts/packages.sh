#!/usr/bin/env bash
# Prints the Debian packages each part needs, for scripts/apt-install.sh:
#   build   building and running ferry (OpenMPI: the README's `mpirun` examples; pip: NVML's and NCCL's headers)
#   report  `ferry report` and `ferry compare` in Debian's Python
#   tests   the C++ tests (GoogleTest; dpkg-dev: the Debian package test; iproute2 and util-linux: the
#           cluster in a box's namespaces, links and rates; slurmctld, slurmd and munge: the one-node Slurm
#           of scripts/slurm.sh, which tests/slurm launches the fleet and the health check under;
#           prometheus: promtool, which checks doctor's --prometheus file)
#   python  the Python tests (.venv; Chromium: the report's screenshot and browser tests)
#   fuzz    the libFuzzer targets (clang)
#   format  scripts/check-format.sh (clang-format 14 on Debian 12)
# Usage: scripts/packages.sh PART...
set -euo pipefail
for part in "$@"; do
  case $part in
    build) echo cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libfmt-dev python3-pip libopenmpi-dev openmpi-bin ;;
    report) echo python3-matplotlib ;;
    tests) echo libgtest-dev dpkg-dev iproute2 util-linux slurmctld slurmd munge prometheus ;;
    python) echo python3-venv chromium ;;
    fuzz) echo clang libclang-rt-14-dev ;;
    format) echo clang-format ;;
    *) echo "packages: no part '$part' (build, report, tests, python, fuzz, format)" >&2; exit 2 ;;
  esac
done
