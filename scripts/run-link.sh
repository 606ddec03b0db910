#!/usr/bin/env bash
# Quick start, first command: install what is missing, build, and run
# `ferry run link` on the GPU when there is one, else on the CPU emulator.
# Extra arguments go to `ferry run link` (e.g. --quick, --json link.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build AUTO
exec ./build/src/ferry run link "$@"
