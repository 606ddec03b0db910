"""compare on the emulator's files: their timings are CPU timings (machine.backend "emu", machine.timings
"emulated: ..."), which move with whatever else the machine runs; two runs of the same code differ past
any threshold. So when either file's timings are emulated, compare prints the ratios, says plainly that it
does not judge them, and exits 0 however far a figure moved. Data that arrived wrong still counts: a
figure FAILED in NEW exits 1, as on a GPU."""
from __future__ import annotations

import json

import pytest
from conftest import document, on_gpu, row, run_ferry_py, write_json


def halved_second(doc: dict) -> dict:
    doc["workloads"][0]["rows"][1]["value"] /= 2
    return doc


def link_doc(**changes) -> dict:
    return document("link", rows=[row(bytes=1024, **changes), row(bytes=4096, **changes), row(bytes=8192, **changes)])


def emulated(doc: dict, backend="emu", timings="emulated: CPU timings, not GPU timings") -> dict:
    doc["machine"].update(backend=backend, timings=timings)
    return doc


@pytest.mark.parametrize("base_doc, new_doc", [
    (emulated(link_doc()), emulated(halved_second(link_doc()))),
    (on_gpu(link_doc()), emulated(halved_second(link_doc()))),
    (emulated(link_doc()), on_gpu(halved_second(link_doc()))),
    (emulated(link_doc(), timings=None), emulated(halved_second(link_doc()), timings=None)),   # backend alone
    (emulated(link_doc(), backend=None), emulated(halved_second(link_doc()), backend=None)),  # timings alone
], ids=["both", "new", "base", "backend", "timings"])
def test_emulated_timings_are_printed_not_judged_and_exit_zero(make_results, base_doc, new_doc):
    base, new = make_results("base.json", base_doc), make_results("new.json", new_doc)
    done = run_ferry_py("compare", base, new)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "CPU timings" in out and "vary with the machine's load" in out and "not judged" in out, out
    halved = next(line for line in out.splitlines() if "bytes=4 KiB" in line)
    assert "0.500" in halved and halved.endswith("not judged"), halved
    assert not any(line.endswith(("regressed", "improved", "same")) for line in out.splitlines()), out
    assert "REGRESSED" not in out
    assert "1 moved past the threshold, 2 within the threshold" in out, out


def test_show_changed_keeps_the_figures_that_moved_past_the_threshold(make_results):
    base = make_results("base.json", emulated(link_doc()))
    new = make_results("new.json", emulated(halved_second(link_doc())))
    out = run_ferry_py("compare", base, new, "--show", "changed").stdout
    figures = [line for line in out.splitlines() if line.startswith("link ")]
    assert len(figures) == 1 and "bytes=4 KiB" in figures[0], out


def test_a_figure_failed_in_new_still_exits_one_on_the_emulator(make_results):
    base = make_results("base.json", emulated(link_doc()))
    new = make_results("new.json", emulated(document("link", rows=[row(bytes=1024, check="FAILED")],
                                                     verification="FAILED")))
    done = run_ferry_py("compare", base, new, "--allow-failed")
    assert done.returncode == 1, done.stdout + done.stderr
    failed = next(line for line in done.stdout.splitlines() if "bytes=1 KiB" in line)
    assert failed.endswith("FAILED"), failed


def test_two_emulator_runs_of_one_workload_compare_with_exit_zero_whatever_moved(emulator_results, tmp_path):
    doc = json.loads(emulator_results["link"].read_text())
    for r in doc["workloads"][0]["rows"]:
        r["value"] /= 2   # every figure moved past any threshold, as a busy CPU can make them
    new = write_json(tmp_path / "slower.json", doc)
    done = run_ferry_py("compare", emulator_results["link"], new)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not judged" in done.stdout and "0.500" in done.stdout
