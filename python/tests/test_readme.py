"""Every command in the README's "Using ferry" block, run as written (on the emulator when there is no
GPU), in order, in one folder: the files one writes are the ones the next reads. So the README cannot
drift from what ferry does."""
import os
import re
import subprocess
import time

import pytest

from conftest import REPO, ferry_binary

# Exit codes the README documents as outcomes, not failures.
DOCUMENTED_EXITS = {
    "ferry tune": {0, 4},      # 4: every configuration passed, none met the target (certain on a CPU)
    "ferry compare": {0, 1},   # 1: a figure regressed past the threshold (two runs on a busy CPU may)
}


def readme_commands() -> list:
    text = (REPO / "README.md").read_text()
    block = re.search(r"^## Using ferry\n+```sh\n(.*?)^```", text, re.S | re.M)
    assert block, "README.md has no ```sh block under ## Using ferry"
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    return [c for c in commands if c]


def allowed_exits(command: str) -> set:
    words = command.split()
    start = words.index("ferry")
    return DOCUMENTED_EXITS.get(" ".join(words[start:start + 2]), {0})


def test_the_readme_block_has_the_commands_it_should():
    commands = readme_commands()
    assert commands[0] == "ferry list"
    assert any(c.startswith("mpirun") for c in commands) and any(c.startswith("ferry report") for c in commands)


def test_every_command_in_the_readme_runs_as_written(tmp_path):
    env = dict(os.environ, PATH=f"{ferry_binary().parent}{os.pathsep}{os.environ['PATH']}",
               # CI runs as root; OpenMPI refuses root unless told, which the README's users need not be.
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    for command in readme_commands():
        if command.startswith("mpirun") and subprocess.run(["which", "mpirun"], capture_output=True).returncode:
            pytest.fail("mpirun is not installed: scripts/setup.sh installs openmpi-bin")
        start = time.monotonic()
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=900)
        seconds = time.monotonic() - start
        print(f"{seconds:6.1f} s  exit {done.returncode}  {command}")
        assert done.returncode in allowed_exits(command), \
            f"`{command}` exited {done.returncode}:\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, done.stderr
