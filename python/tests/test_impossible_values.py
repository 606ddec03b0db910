"""A results file whose figures cannot be (a NaN, an infinity, a time or a rate that is not above zero) is
refused when it is loaded, naming the file, the workload and the row, so no report draws it and no compare
counts it as "same". What ferry itself writes still loads: a derived row's 0 (beff's fitted t_lat), a
latency row's 0 bytes per sample, null models and efficiencies. Python's json reads NaN and Infinity
tokens; ferry's C++ writes none (a NaN or infinity goes out as null)."""
from __future__ import annotations

import gzip
import json
import math

import pytest
from conftest import REPO, derived, document, row, run_ferry_py

from ferry.results import ResultsError, load

NAN, INF = math.nan, math.inf


def with_field(field: str, value) -> dict:
    """A link bandwidth row at 4 KiB with one field (value, stats_s.median, samples_s[1], ...) replaced."""
    r = row(model=20.0, bytes=4096)
    if "." in field:
        outer, inner = field.split(".")
        r[outer] = {**r[outer], inner: value}
    elif "[" in field:
        name, index = field.rstrip("]").split("[")
        r[name] = list(r[name])
        r[name][int(index)] = value
    else:
        r[field] = value
    return document("link", rows=[row(bytes=1024), r])


@pytest.mark.parametrize("field, value, shown", [
    ("value", NAN, "NaN"),
    ("value", INF, "Infinity"),
    ("value", -5.0, "-5.0"),
    ("value", 0.0, "0.0"),          # a measured figure: no rate or time is 0
    ("model", NAN, "NaN"),
    ("model", 0.0, "0.0"),
    ("model", -20.0, "-20.0"),
    ("efficiency", NAN, "NaN"),
    ("efficiency", -INF, "-Infinity"),
    ("stats_s.median", NAN, "NaN"),
    ("stats_s.min", 0.0, "0.0"),
    ("stats_s.p99", -1e-06, "-1e-06"),
    ("stats_s.max", INF, "Infinity"),
    ("samples_s[1]", 0.0, "0.0"),
    ("samples_s[0]", NAN, "NaN"),
    ("samples_s[2]", -2e-06, "-2e-06"),
    ("bytes_per_sample", -1, "-1"),
    ("bytes_per_sample", INF, "Infinity"),
])
def test_an_impossible_figure_is_refused_naming_the_file_the_workload_the_row_and_the_field(
        make_results, field, value, shown):
    path = make_results("impossible.json", json.dumps(with_field(field, value)))
    with pytest.raises(ResultsError) as error:
        load(path)
    message = str(error.value)
    assert f"'{path}'" in message, message
    assert "link bandwidth (bytes=4 KiB)" in message and "workloads[0].rows[1]" in message, message
    assert f"{field} is {shown}" in message, message


def test_a_number_too_large_for_a_float_is_an_infinity_and_refused(make_results):
    text = json.dumps(document("link", rows=[row(bytes=1024)])).replace('"value": 10.0', '"value": 1e999')
    path = make_results("huge.json", text)
    with pytest.raises(ResultsError, match=r"value is Infinity"):
        load(path)


@pytest.mark.parametrize("place, message", [
    (lambda d: d["workloads"][0]["rows"][0]["params"].update(bytes=NAN),
     "workloads[0].rows[0].params.bytes is NaN"),
    (lambda d: d["workloads"][0]["config"].update(sweep=INF), "workloads[0].config.sweep is Infinity"),
    (lambda d: d["machine"].update(gpus=[{"name": "H100", "memory_bandwidth_GBps": NAN}]),
     "machine.gpus[0].memory_bandwidth_GBps is NaN"),
    (lambda d: d["workloads"][0].update(findings=[{
        "check": "pass time", "subject": "host", "verdict": "OK", "measured": "1 s", "expected": "60 s",
        "basis": "", "cause": "", "action": "", "value": INF, "model": 60.0}]),
     "workloads[0].findings[0].value is Infinity"),
])
def test_a_nan_or_infinity_anywhere_else_is_refused_naming_where(make_results, place, message):
    doc = document("link", rows=[row()])
    place(doc)
    path = make_results("elsewhere.json", json.dumps(doc))
    with pytest.raises(ResultsError) as error:
        load(path)
    assert f"'{path}'" in str(error.value) and message in str(error.value), str(error.value)


def test_what_ferry_writes_at_zero_or_null_still_loads(make_results):
    latency = {**row(section="copy_latency", metric="latency", value=3.2, bytes=4), "bytes_per_sample": 0}
    fitted = derived(0.0, section="model_fitted", transport="p2p-sm", basis="direct: fitted to this run's 1 MiB and 2 MiB")
    path = make_results("zeros.json", json.dumps(document("beff", rows=[latency, fitted, row(model=None)])))
    rows = load(path).workloads[0].rows
    assert [r.value for r in rows] == [3.2, 0.0, 10.0]


def test_a_derived_figure_below_zero_is_refused(make_results):
    path = make_results("negative.json", json.dumps(document("beff", rows=[derived(-1.0, section="model_fitted", transport="p2p-ce")])))
    with pytest.raises(ResultsError, match=r"beff model_fitted \(transport=p2p-ce\).*value is -1.0"):
        load(path)


def committed_results() -> list:
    paths = sorted((REPO / "docs" / "results").glob("*.json*"))
    return [p for p in paths if b'"ferry.results/1"' in (gzip.decompress(p.read_bytes())
                                                           if p.suffix == ".gz" else p.read_bytes())[:200]]


def test_there_are_committed_results_files_to_load():
    assert len(committed_results()) >= 10


@pytest.mark.parametrize("path", committed_results(), ids=lambda p: p.name)
def test_every_committed_results_file_loads(path):
    assert load(path).workloads


def test_every_file_the_emulator_writes_loads(emulator_results):
    for path in emulator_results.values():
        assert load(path).workloads


@pytest.mark.parametrize("command", ["compare", "report"])
def test_a_nan_figure_is_exit_two_naming_the_file_not_a_figure_that_stayed_the_same(make_results, tmp_path, command):
    base = make_results("base.json", json.dumps(document("link", rows=[row(bytes=4096)])))
    new = make_results("new.json", json.dumps(document("link", rows=[row(bytes=4096, value=NAN)])))
    args = [base, new] if command == "compare" else [new, "-o", tmp_path / "page.html"]
    done = run_ferry_py(command, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"'{new}'" in done.stderr and "value is NaN" in done.stderr, done.stderr
    assert done.stdout == "" and not (tmp_path / "page.html").exists()
