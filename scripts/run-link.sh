#!/usr/bin/env bash
# Quick start, first command: install what is missing, build, install `ferry`
# under ~/.local (FERRY_PREFIX to choose another prefix), and run
# `ferry run link` on the GPU when there is one, else on the CPU emulator.
# Extra arguments go to `ferry run link` (e.g. --quick, --json link.json).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${FERRY_PREFIX:-$HOME/.local}

# The Python side first, so `ferry report` and `ferry compare` run in its environment (.venv, matplotlib).
scripts/setup-python.sh > /dev/null
scripts/setup.sh build AUTO
cmake --install build --prefix "$prefix" > build/install.log || { cat build/install.log; exit 1; }

case ":$PATH:" in
  *":$prefix/bin:"*) echo "run-link: ferry is installed as $prefix/bin/ferry" ;;
  *) echo "run-link: ferry is installed as $prefix/bin/ferry; to run it as \`ferry\`, add its folder to your PATH:"
     echo "  export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
exec "$prefix/bin/ferry" run link "$@"
