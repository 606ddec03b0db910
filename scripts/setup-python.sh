#!/usr/bin/env bash
# The Python side of ferry (`ferry report`, `ferry compare` and their tests): Debian's
# headless Chromium and venv, then a virtual environment in .venv with the package
# from ./python and its test extras (matplotlib, pytest, hypothesis, wheel) from PyPI.
# Usage: scripts/setup-python.sh   (prints the environment's python on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/apt-install.sh setup-python python3-venv chromium

if ! .venv/bin/python -c "import matplotlib, pytest, hypothesis" > /dev/null 2>&1; then
  echo "setup-python: creating .venv with ./python[test] (matplotlib, pytest, hypothesis, wheel from PyPI)" >&2
  python3 -m venv .venv
fi
# Reinstalled every time: cheap when nothing changed, and the installed copy never lags the source.
.venv/bin/python -m pip install -q --disable-pip-version-check "./python[test]" >&2
echo "$PWD/.venv/bin/python"  # not realpath: the link is what makes it the environment
