"""Where `ferry report` writes, by the rules ferry keeps for every file it writes
(docs/reliability.md, "Where output goes"): - is standard output and nothing else goes
there; a symbolic link is written through and stays; a FIFO is written in place; a device
node is written, never replaced; a socket is refused; a failed write is exit 3 naming the
cause. Each case in the test's own temporary folder, never in the machine's /dev."""
from __future__ import annotations

import errno
import os
import select
import socket
import stat
import subprocess
import sys
import threading

import pytest
from conftest import PYTHON_DIR, document, row, run_ferry_py

BAD_INPUT, FAILURE = 2, 3


@pytest.fixture
def results(make_results):
    return make_results("r.json", document("teleport", rows=[row(section="ring", value=42.5, bytes=1024)]))


def is_page(text: str) -> bool:
    return text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")


class FifoReader(threading.Thread):
    """Reads a FIFO from before the report opens it until finish(), keeping its read end
    open all the while, so the writer never waits for a reader and finish() never waits on
    the writer (a report that renames a file over the FIFO leaves it with nothing, not hung)."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.stop_r, self.stop_w = os.pipe()
        self.data = bytearray()
        self.ends = 0
        self.start()

    def run(self):
        while True:
            ready, _, _ = select.select([self.fd, self.stop_r], [], [])
            if self.fd in ready and not self._drain():
                self.ends += 1   # a writer came and went: read on, as `while :; do cat FIFO; done` does
                os.close(self.fd)
                self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            if self.stop_r in ready:
                self._drain()
                return

    def _drain(self) -> bool:
        """Reads what is there; False once the writer has closed."""
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            self.data += chunk

    def finish(self) -> str:
        os.write(self.stop_w, b"x")
        self.join()
        for fd in (self.fd, self.stop_r, self.stop_w):
            os.close(fd)
        return self.data.decode("utf-8", "replace")


def test_a_dash_writes_the_page_to_standard_output_and_says_so_on_standard_error(results, tmp_path):
    done = run_ferry_py("report", results, "-o", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert is_page(done.stdout), done.stdout[:300]
    assert 'id="workload-teleport"' in done.stdout
    assert "ferry report: wrote standard output" in done.stderr
    assert not (tmp_path / "-").exists()


def test_the_page_and_the_screenshot_cannot_both_go_to_standard_output(results, tmp_path):
    done = run_ferry_py("report", results, "-o", "-", "--screenshot", "-", cwd=tmp_path)
    assert done.returncode == BAD_INPUT
    assert "both name standard output" in done.stderr and done.stdout == ""


def test_a_standard_output_nobody_reads_is_exit_3_naming_the_cause(results, tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)   # no reader from the start: the write meets EPIPE, however fast the machine is
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "ferry", "report", str(results), "-o", "-"], stdout=write_end,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, timeout=600)
    os.close(write_end)
    assert done.returncode == FAILURE, done.stderr
    assert "cannot write to standard output (-): Broken pipe" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_a_symbolic_link_is_written_through_and_stays_a_link(results, tmp_path):
    (tmp_path / "pages").mkdir()
    dated = tmp_path / "pages" / "2026-11-25.html"
    dated.write_text("the previous page\n")
    latest = tmp_path / "latest.html"
    latest.symlink_to("pages/2026-11-25.html")
    done = run_ferry_py("report", results, "-o", latest)
    assert done.returncode == 0, done.stderr
    assert latest.is_symlink() and os.readlink(latest) == "pages/2026-11-25.html"
    assert is_page(dated.read_text())

    dangling = tmp_path / "next.html"
    dangling.symlink_to(tmp_path / "pages" / "new.html")
    done = run_ferry_py("report", results, "-o", dangling)
    assert done.returncode == 0, done.stderr
    assert dangling.is_symlink() and is_page((tmp_path / "pages" / "new.html").read_text())

    broken = tmp_path / "broken.html"
    broken.symlink_to("gone/r.html")
    done = run_ferry_py("report", results, "-o", broken)
    assert done.returncode == BAD_INPUT
    assert f"cannot write '{broken}'" in done.stderr and "it links to" in done.stderr, done.stderr
    assert broken.is_symlink()


def test_a_fifo_is_written_in_place_and_its_reader_gets_the_whole_page(results, tmp_path):
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    done = run_ferry_py("report", results, "-o", fifo)
    page = reader.finish()
    assert done.returncode == 0, done.stderr
    assert is_page(page), f"the reader got {len(page)} characters"
    assert reader.ends == 1, "one writer, the page: the check before it did not open the FIFO"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"


def test_a_socket_is_refused_and_left_as_it_is(results, tmp_path):
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        done = run_ferry_py("report", results, "-o", path)
    assert done.returncode == BAD_INPUT
    assert f"cannot write '{path}': it is a socket" in done.stderr, done.stderr
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def device_copy(folder, name: str, major: int, minor: int):
    """A character device node in the test's folder, a copy of one of the machine's."""
    if os.geteuid() != 0:
        pytest.skip("making a device node (mknod) needs root, and this test runs as another user")
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))
    except OSError as e:
        pytest.skip(f"mknod is refused here (a container without CAP_MKNOD?): {e.strerror}")
    return path


def test_a_copy_of_dev_null_is_written_and_stays_a_device(results, tmp_path):
    null = device_copy(tmp_path, "null", 1, 3)
    done = run_ferry_py("report", results, "-o", null)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode), "the device node was replaced by a regular file"


def test_a_copy_of_dev_full_is_exit_3_naming_the_path_and_the_cause(results, tmp_path):
    full = device_copy(tmp_path, "full", 1, 7)
    done = run_ferry_py("report", results, "-o", full)
    assert done.returncode == FAILURE, done.stderr
    assert f"cannot write '{full}': {os.strerror(errno.ENOSPC)}" in done.stderr, done.stderr
    assert stat.S_ISCHR(os.lstat(full).st_mode), "the device node was replaced by a regular file"
