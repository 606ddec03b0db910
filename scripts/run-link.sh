#!/usr/bin/env bash
# Quick start, first command: install what building and running ferry needs and
# is missing (Debian's matplotlib too, for `ferry report`), build the `ferry`
# program alone (no tests), install it under ~/.local (FERRY_PREFIX to choose
# another prefix), and run `ferry run link` on the GPU when there is one, else on
# the CPU emulator. The test command (scripts/test.sh) installs the rest.
# Extra arguments go to `ferry run link` (e.g. --quick, --json link.json).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${FERRY_PREFIX:-$HOME/.local}

scripts/apt-install.sh run-link $(scripts/packages.sh build report)
# The tests' targets are left out of the build: a run needs none of them.
scripts/configure.sh build AUTO -DFERRY_TESTS=OFF
cmake --build build -j"$(nproc)" --target ferry
cmake --install build --prefix "$prefix" > build/install.log || { cat build/install.log; exit 1; }

case ":$PATH:" in
  *":$prefix/bin:"*) echo "run-link: ferry is installed as $prefix/bin/ferry" ;;
  *) echo "run-link: ferry is installed as $prefix/bin/ferry; to run it as \`ferry\`, add its folder to your PATH:"
     echo "  export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
exec "$prefix/bin/ferry" run link "$@"
