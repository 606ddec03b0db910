#!/usr/bin/env bash
# Records what a terminal shows while COMMAND runs, through a pseudo-terminal
# so that ferry draws its one-line progress: OUT.typescript holds the raw bytes
# (`cat` it on a terminal to replay the end state), OUT.txt each state of the
# line on a row of its own ("|" marks a rewrite), then what the run printed.
# Usage: scripts/record-progress.sh OUT COMMAND...
set -euo pipefail
out=${1:?usage: scripts/record-progress.sh OUT COMMAND...}
shift
python3 - "$out" "$@" <<'PY'
import os, pty, sys

out, command = sys.argv[1], sys.argv[2:]
raw = bytearray()

def read(fd):
    data = os.read(fd, 4096)
    raw.extend(data)
    return data

status = pty.spawn(command, read)
with open(out + ".typescript", "wb") as f:
    f.write(raw)
text = raw.decode("utf-8", "replace").replace("\r\n", "\n")
frames = text.split("\r\x1b[K")
with open(out + ".txt", "w") as f:
    f.write("$ " + " ".join(command) + "\n")
    for frame in frames:
        if frame:
            f.write("| " + frame + ("" if frame.endswith("\n") else "\n"))
sys.exit(os.waitstatus_to_exitcode(status))
PY
