"""Every command in the README's "Using ferry" block, run as written (on the emulator when there is no
GPU), in one folder: a command that names a file runs after the earlier ones that name it, so the files
one writes are the ones the next reads. So the README cannot drift from what ferry does."""
import concurrent.futures
import os
import re
import subprocess
import time

import pytest

from conftest import REPO, ferry_binary

# Exit codes the README documents as outcomes, not failures.
DOCUMENTED_EXITS = {
    "ferry tune": {0, 4},      # 4: every configuration passed, none met the target (certain on a CPU)
    "ferry compare": {0, 1},   # 1: a figure regressed past the threshold (on a GPU; the emulator's are not judged)
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


# A file a command names (writes or reads): a later command that names it waits for the earlier one.
FILE_NAME = re.compile(r"[\w.-]+\.(?:json|csv|html)\b")


def waits_for(commands: list) -> list:
    """For each command, the earlier ones it waits for: those that name one of its files."""
    files = [set(FILE_NAME.findall(c)) for c in commands]
    return [[j for j in range(i) if files[i] & files[j]] for i in range(len(commands))]


def test_a_command_waits_for_the_one_that_wrote_its_file():
    commands = ["ferry run link --json a.json", "ferry run stream", "ferry report a.json b.json",
                "ferry run overlap --json b.json", "ferry compare a.json b.json"]
    assert waits_for(commands) == [[], [], [0], [2], [0, 2, 3]]


def test_every_command_in_the_readme_runs_as_written(tmp_path):
    env = dict(os.environ, PATH=f"{ferry_binary().parent}{os.pathsep}{os.environ['PATH']}",
               # CI runs as root; OpenMPI refuses root unless told, which the README's users need not be.
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    commands = readme_commands()
    if any(c.startswith("mpirun") for c in commands) and subprocess.run(["which", "mpirun"],
                                                                         capture_output=True).returncode:
        pytest.fail("mpirun is not installed: scripts/setup.sh installs openmpi-bin")
    earlier = waits_for(commands)

    def run(i: int, started: list) -> subprocess.CompletedProcess:
        for j in earlier[i]:
            started[j].result()  # raises, failing this command too, when the one that wrote its file failed
        begin = time.monotonic()
        done = subprocess.run(["bash", "-c", commands[i]], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=900)
        print(f"{time.monotonic() - begin:6.1f} s  exit {done.returncode}  {commands[i]}")
        assert done.returncode in allowed_exits(commands[i]), \
            f"`{commands[i]}` exited {done.returncode}:\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, done.stderr
        return done

    # Two at a time, each after the commands whose files it names: on the emulator most of them keep about
    # one core busy, and on a 2-core machine they took 137 s one at a time, 108 s two at a time. Tasks start
    # in order, so the ones a command waits for have started before it waits.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        started: list = []
        for i in range(len(commands)):
            started.append(pool.submit(run, i, started))
        for future in started:
            future.result()
