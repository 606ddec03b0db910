"""Reading results: what ferry writes loads; anything else is one clear error naming the file."""
from __future__ import annotations

import gzip
import json

import pytest
from conftest import document, row

from ferry.results import ResultsError, load


def test_a_link_run_on_the_emulator_loads_with_every_section_it_measured(emulator_results):
    results = load(emulator_results["link"])
    link = results.workload("link")
    assert results.verification == "PASSED" and results.machine["backend"] == "emu"
    assert {"bandwidth", "copy_latency", "dispatch", "flag", "ceiling", "peer_bandwidth"} <= set(link.sections)
    assert all(r.metric in ("rate", "latency") and r.value > 0 for r in link.rows)
    assert not link.for_model


def test_the_link_run_inside_a_stream_file_is_marked_as_the_models(emulator_results):
    results = load(emulator_results["stream"])
    assert [(w.name, w.for_model) for w in results.workloads] == [("link", True), ("stream", False)]


def test_a_rows_spread_brackets_its_median_for_rates_and_latencies(emulator_results):
    link = load(emulator_results["link"]).workload("link")
    for r in link.rows_in("bandwidth") + link.rows_in("copy_latency"):
        low, high = r.spread()
        assert low <= r.value * (1 + 1e-9) and r.value <= high * (1 + 1e-9), r


@pytest.mark.parametrize("content, message", [
    ("{not json", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    (json.dumps({"workloads": []}), "no 'schema' field"),
    (json.dumps({"schema": "ferry.profile/1", "devices": []}), "its schema is \"ferry.profile/1\""),
    (json.dumps(document(rows=[{**row(), "value": "fast"}])), "workloads[0].rows[0].value is \"fast\", not a number"),
    (json.dumps(document(rows=[{k: v for k, v in row().items() if k != "unit"}])), "workloads[0].rows[0].unit is missing"),
    (json.dumps(document(rows=[row(metric="speed")])), "metric is \"speed\""),
    (json.dumps(document(rows=[{**row(), "samples_s": [1e-6, "slow"]}])),
     "workloads[0].rows[0].samples_s[1] is \"slow\", not a number"),
    (json.dumps(document(workloads=[])), "workloads is empty"),
    # Found by fuzzing: the report joins the command line's words.
    (json.dumps({**document(rows=[row()]), "command_line": ["ferry", None]}), "command_line[1] is null, not a string"),
])
def test_a_malformed_or_foreign_file_is_one_error_naming_the_file_and_the_problem(make_results, content, message):
    path = make_results("bad.json", content)
    with pytest.raises(ResultsError) as error:
        load(path)
    assert str(path) in str(error.value) and message in str(error.value)


def _with_machine(**changes) -> dict:
    doc = document(rows=[row()])
    doc["machine"].update(changes)
    return doc


@pytest.mark.parametrize("doc, message", [
    # Found by fuzzing: each crashed `ferry compare` when it printed the machine.
    (_with_machine(gpus=None), None),
    (_with_machine(gpus=[None]), "machine.gpus[0] is null, not an object"),
    (_with_machine(gpus=[{"name": 5}]), "machine.gpus[0].name is 5, not a string"),
    (_with_machine(gpus=[{"name": "H100", "pcie": 5}]), "machine.gpus[0].pcie is 5, not an object"),
    (_with_machine(gpus=[{"name": "H100", "memory_bytes": "80G"}]), "machine.gpus[0].memory_bytes is \"80G\", not a number"),
    (_with_machine(host="h"), "machine.host is \"h\", not an object"),
    (_with_machine(peers=[{"from": 0, "to": 1, "nvlinks": "18"}]), "machine.peers[0].nvlinks is \"18\", not a number"),
    (_with_machine(backend=None, host=None), None),
])
def test_a_machine_whose_facts_are_malformed_is_refused_naming_the_fact_or_read_without_the_null_ones(
        make_results, doc, message):
    path = make_results("machine.json", doc)
    if message is None:
        results = load(path)  # a null fact is as good as a missing one
        assert results.gpus() == "no GPU"
        assert results.machine.get("backend", "?") in ("emu", "?")
        return
    with pytest.raises(ResultsError) as error:
        load(path)
    assert message in str(error.value), str(error.value)


def test_a_row_keeps_every_sample_in_the_order_taken_and_one_without_samples_has_none(make_results):
    without = {k: v for k, v in row().items() if k != "samples_s"}
    path = make_results("samples.json", document(rows=[{**row(), "samples_s": [3e-6, 1e-6, 2e-6]}, without]))
    kept, empty = load(path).workloads[0].rows
    assert kept.samples_s == (3e-6, 1e-6, 2e-6) and empty.samples_s == ()


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ResultsError, match="cannot read '.*nowhere.json'"):
        load(tmp_path / "nowhere.json")


def test_true_is_not_a_number(make_results):
    path = make_results("bool.json", json.dumps(document(rows=[{**row(), "value": True}])))
    with pytest.raises(ResultsError, match="value is true, not a number"):
        load(path)


def test_a_gzipped_results_file_loads_as_the_file_it_holds(make_results, tmp_path):
    plain = make_results("run.json", document(rows=[row()]))
    packed = tmp_path / "run.json.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = load(plain), load(packed)
    assert b.label == a.label == "run"
    assert [(r.metric, r.value) for r in b.workload("link").rows] == [(r.metric, r.value) for r in a.workload("link").rows]


@pytest.mark.parametrize("content, message", [
    (lambda text: gzip.compress(text)[:20], "a gzip file that does not unpack"),
    (lambda text: b"\xff\xfe" + text, "not UTF-8 text"),
])
def test_a_broken_gzip_or_non_text_file_is_one_error_naming_it(tmp_path, content, message):
    path = tmp_path / "broken.json.gz"
    path.write_bytes(content(json.dumps(document(rows=[row()])).encode()))
    with pytest.raises(ResultsError) as error:
        load(path)
    assert str(path) in str(error.value) and message in str(error.value)
