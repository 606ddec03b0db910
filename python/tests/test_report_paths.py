"""`ferry report` loses nothing and overwrites nothing: no output may name a results file it reads or the
other output, however the path reaches it (another spelling, a symbolic link, a hard link), and an empty
path (an unset shell variable) is refused. Each refusal is exit 2, one line naming both options and
paths, before anything is read or written."""
from __future__ import annotations

import os

import pytest
from conftest import document, row, run_ferry_py

BAD_INPUT = 2


@pytest.fixture
def results(make_results):
    return make_results("x.json", document("teleport", rows=[row(section="ring", value=42.5, bytes=1024)]))


def one_line(text: str) -> bool:
    return text.count("\n") == 1 and "Traceback" not in text


@pytest.mark.parametrize("spelling", [
    lambda p: p,                                      # as given
    lambda p: p.parent / "." / p.name,                # another spelling of the same path
    lambda p: p.parent / ".." / p.parent.name / p.name,
], ids=["same", "dot", "dotdot"])
def test_a_page_over_its_own_results_file_is_refused_and_the_file_kept(results, spelling):
    before = results.read_bytes()
    page = spelling(results)
    done = run_ferry_py("report", results, "-o", page)
    assert done.returncode == BAD_INPUT, done.stdout + done.stderr
    assert f"-o '{page}' is also a results file given as input" in done.stderr, done.stderr
    assert one_line(done.stderr) and done.stdout == ""
    assert results.read_bytes() == before


def test_a_link_to_a_results_file_is_refused_as_the_page(results, tmp_path):
    before = results.read_bytes()
    latest = tmp_path / "latest.html"
    latest.symlink_to(results.name)
    done = run_ferry_py("report", results, "-o", latest)
    assert done.returncode == BAD_INPUT, done.stdout + done.stderr
    assert f"-o '{latest}' is also a results file given as input ('{results}')" in done.stderr, done.stderr
    assert latest.is_symlink() and results.read_bytes() == before


def test_a_hard_link_to_a_results_file_is_refused_as_the_page(results, tmp_path):
    before = results.read_bytes()
    other = tmp_path / "other.html"
    os.link(results, other)
    done = run_ferry_py("report", results, "-o", other)
    assert done.returncode == BAD_INPUT, done.stdout + done.stderr
    assert "is also a results file given as input" in done.stderr and results.read_bytes() == before


def test_the_clash_is_found_before_any_results_file_is_read(results, tmp_path):
    missing = tmp_path / "missing.json"
    done = run_ferry_py("report", missing, results, "-o", results)
    assert done.returncode == BAD_INPUT and "is also a results file given as input" in done.stderr, done.stderr
    assert "cannot read" not in done.stderr


def test_a_screenshot_over_a_results_file_is_refused(results, tmp_path):
    before = results.read_bytes()
    done = run_ferry_py("report", results, "-o", tmp_path / "page.html", "--screenshot", results)
    assert done.returncode == BAD_INPUT, done.stdout + done.stderr
    assert f"--screenshot '{results}' is also a results file given as input" in done.stderr, done.stderr
    assert results.read_bytes() == before and not (tmp_path / "page.html").exists()


@pytest.mark.parametrize("linked", [False, True])
def test_the_page_and_the_screenshot_cannot_be_one_file(results, tmp_path, linked):
    page = tmp_path / "page.html"
    shot = page
    if linked:
        shot = tmp_path / "shot.png"
        shot.symlink_to(page.name)   # dangling: neither exists yet
    done = run_ferry_py("report", results, "-o", page, "--screenshot", shot)
    assert done.returncode == BAD_INPUT, done.stdout + done.stderr
    assert f"-o '{page}' and --screenshot '{shot}' name the same file" in done.stderr, done.stderr
    assert one_line(done.stderr) and not page.exists()


@pytest.mark.parametrize("option", ["-o", "--screenshot"])
def test_an_empty_output_path_is_refused(results, tmp_path, option):
    done = run_ferry_py("report", results, option, "", cwd=tmp_path)
    assert done.returncode == BAD_INPUT, done.stdout + done.stderr
    assert f"{option} is empty" in done.stderr, done.stderr
    assert one_line(done.stderr) and sorted(os.listdir(tmp_path)) == ["x.json"]
