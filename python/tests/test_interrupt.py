"""Ctrl-C (SIGINT) or SIGTERM during `ferry report` or `ferry compare`: one line saying what was and was not
written, exit 128 + the signal (130, 143), no traceback, and no output left half-written. Each test stops
the command at a known point, never after a delay: reading a results file that is a FIFO (the test holds
its write end open and writes nothing, and signals once the command sleeps in its read), or a Chromium
stand-in that signals its parent, so the page is written and the screenshot is not."""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PYTHON_DIR, document, row

from ferry import output

LONGEST_S = 300   # only a command that never reaches the FIFO waits this long, and then the test fails


@pytest.fixture
def results(make_results):
    return make_results("r.json", document("link", rows=[row(bytes=1024)]))


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(*args, env=None) -> subprocess.Popen:
    """The command, with SIGINT as a terminal's Ctrl-C finds it. A test run started in the background (a
    script's `cmd &`, nohup) has SIGINT ignored, the child inherits that, and Python then keeps ignoring it,
    as a background job should: the command would sleep in its read until LONGEST_S."""
    env = dict(env or os.environ, PYTHONPATH=str(PYTHON_DIR) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-m", "ferry", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, preexec_fn=default_sigint)


def end_if_running(proc: subprocess.Popen) -> None:
    """A command that timed out ends in its own test, not later as a ResourceWarning in another one."""
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


def sleeps_reading(pid: int, fifo) -> bool:
    """Whether the process sleeps in a system call on its descriptor of the FIFO: its read. A signal that
    came earlier, between its open and its read, would be seen by Python only after the read returned,
    which it never does; one that comes now interrupts the read. /proc/PID/syscall names a sleeping
    process's call and its arguments, the descriptor first ("running" while it runs)."""
    try:
        words = Path(f"/proc/{pid}/syscall").read_text().split()
    except PermissionError as e:
        pytest.skip(f"cannot see the command's system call here: {e}")
    try:
        return len(words) > 1 and os.readlink(f"/proc/{pid}/fd/{int(words[1], 16)}") == os.path.realpath(fifo)
    except (OSError, ValueError):   # not a descriptor, or not open
        return False


def wait_in_load(fifo, proc: subprocess.Popen) -> int:
    """Opens the FIFO's write end once the command has opened its read end, and returns it once the
    command sleeps in its read, inside load, waiting for bytes that never come."""
    deadline, fd = time.monotonic() + LONGEST_S, None
    while fd is None or not sleeps_reading(proc.pid, fifo):
        if fd is None:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno != errno.ENXIO:   # ENXIO: no reader yet
                    raise
        if proc.poll() is not None:
            pytest.fail(f"the command ended ({proc.returncode}) before it read the FIFO: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the command never slept reading the FIFO")
        time.sleep(0.01)
    return fd


def signalled_while_loading(args: list, fifo, signum: int) -> subprocess.CompletedProcess:
    os.mkfifo(fifo)
    proc = start(*args)
    fd = wait_in_load(fifo, proc)
    try:
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=LONGEST_S)
    finally:
        os.close(fd)
        end_if_running(proc)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("signum, code, said", [
    (signal.SIGINT, 130, "interrupted"),
    (signal.SIGTERM, 143, "terminated (SIGTERM)"),
])
def test_a_signal_while_report_reads_is_one_line_and_the_previous_page_stays(results, tmp_path, signum, code, said):
    page = tmp_path / "page.html"
    page.write_text("the previous page\n")
    done = signalled_while_loading(["report", results, tmp_path / "slow.json", "-o", page], tmp_path / "slow.json",
                                   signum)
    assert done.returncode == code, done.stderr
    assert done.stderr == f"ferry report: {said}; nothing was written\n", done.stderr
    assert done.stdout == "" and page.read_text() == "the previous page\n"
    assert sorted(os.listdir(tmp_path)) == ["page.html", "r.json", "slow.json"]


@pytest.mark.parametrize("signum, code, said", [
    (signal.SIGINT, 130, "interrupted"),
    (signal.SIGTERM, 143, "terminated (SIGTERM)"),
])
def test_a_signal_while_compare_reads_is_one_line(results, tmp_path, signum, code, said):
    done = signalled_while_loading(["compare", results, tmp_path / "slow.json"], tmp_path / "slow.json", signum)
    assert done.returncode == code, done.stderr
    assert done.stderr == f"ferry compare: {said}; nothing was compared\n", done.stderr
    assert done.stdout == ""


def test_ctrl_c_during_the_screenshot_says_the_page_was_written_and_the_screenshot_not(results, tmp_path):
    chromium = tmp_path / "chromium"
    # Ctrl-C while Chromium works. The signal reaches ferry report before the stand-in's exit can: a pending
    # signal is taken on the way back from the wait, so the report never sees Chromium finish.
    chromium.write_text("#!/bin/sh\nkill -INT $PPID\n")
    chromium.chmod(0o755)
    page, shot = tmp_path / "page.html", tmp_path / "page.png"
    proc = start("report", results, "-o", page, "--screenshot", shot, env=dict(os.environ, FERRY_CHROMIUM=str(chromium)))
    out, err = proc.communicate(timeout=LONGEST_S)
    assert proc.returncode == 130, err
    assert err == f"ferry report: interrupted; wrote the page to '{page}', not the screenshot\n", err
    assert page.read_text().startswith("<!DOCTYPE html>") and not shot.exists()
    assert sorted(os.listdir(tmp_path)) == ["chromium", "page.html", "r.json"]


def test_an_interrupted_write_leaves_the_previous_file_and_no_temporary_one(tmp_path, monkeypatch):
    page = tmp_path / "page.html"
    page.write_text("the previous page\n")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(output.os, "fsync", interrupted)   # the page written, not yet renamed over the old one
    with pytest.raises(KeyboardInterrupt):
        output.write(str(page), b"<!DOCTYPE html>" + b"x" * 100000)
    assert page.read_text() == "the previous page\n" and os.listdir(tmp_path) == ["page.html"]


def child_of(pid: int) -> int | None:
    """The one child process of `pid` (the C++ ferry's Python), or None before it is started."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if children else None


@pytest.mark.parametrize("signum, code, said", [
    (signal.SIGINT, 130, "interrupted"),
    (signal.SIGTERM, 143, "terminated (SIGTERM)"),
])
def test_the_command_line_passes_a_signal_to_its_python_and_exits_as_it_does(results, tmp_path, signum, code, said):
    """`ferry report` as users run it: the C++ ferry forwards to Python and waits. A SIGTERM sent to the
    C++ process alone (`kill PID`, a batch system) is passed on, so no Python is left running; a Ctrl-C
    reaches the whole process group on a terminal, so the C++ process ignores it and the child says what
    it wrote. Either way the command exits as its Python does, with its one line."""
    from conftest import ferry_binary
    fifo = tmp_path / "slow.json"
    os.mkfifo(fifo)
    proc = subprocess.Popen([str(ferry_binary()), "report", str(results), str(fifo), "-o", str(tmp_path / "p.html")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline, fd, python = time.monotonic() + LONGEST_S, None, None
    while python is None or fd is None or not sleeps_reading(python, fifo):
        python = python or child_of(proc.pid)
        if fd is None:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno != errno.ENXIO:
                    raise
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the command's Python never slept reading the FIFO: {proc.communicate()}")
        time.sleep(0.01)
    try:
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)   # a terminal's Ctrl-C: every process of the foreground group
        else:
            proc.send_signal(signum)      # the C++ process alone
        out, err = proc.communicate(timeout=LONGEST_S)
    finally:
        os.close(fd)
        end_if_running(proc)
    assert proc.returncode == code, err
    assert err == f"ferry report: {said}; nothing was written\n", err
    assert not Path(f"/proc/{python}").exists() or "Z" in Path(f"/proc/{python}/stat").read_text().split()[2], \
        "the Python child was left running"
