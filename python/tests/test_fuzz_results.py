"""Hostile results files given to `ferry report` and `ferry compare`: documents
with random parts replaced or removed, and text that is not JSON at all. Each
must be read, drawn and compared, or refused with ResultsError; nothing else
may escape. A short run comes with every test run; FERRY_FUZZ_SECONDS=30 (CI)
keeps drawing new documents for that long. A document that breaks this
becomes an example below (@example), so it stays tested."""
from __future__ import annotations

import copy
import json
import os
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings, strategies as st

from conftest import document, row
from ferry import report
from ferry.checksum import json_checksum
from ferry.compare import NothingToCompare, compare, render
from ferry.results import ResultsError, load

BASE = document("link", rows=[
    row(),
    row(section="copy_latency", metric="latency", value=3.0, model=2.5, bytes=8),
    row(section="bandwidth", value=50.0, model=63.0, memory="pinned", direction="h2d", bytes=1 << 30),
])
BASE["workloads"].append({"name": "stream", "verification": "PASSED", "config": {"total": "1 MiB"},
                          "sections": [{"id": "latency", "title": "chunk latency"}],
                          "rows": [row(section="latency", metric="latency", value=7.3, design="fused", bytes=4096,
                                       depth=1)],
                          "skipped": [], "notes": ["a note"]})
for _workload in BASE["workloads"]:   # as ferry writes them, so mutations reach the checksum too
    _workload["rows_checksum"] = json_checksum(_workload["rows"])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12)


def spots(node):
    """Every (container, key) in the document, the document's own keys included."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield node, key
        yield from spots(value)


@st.composite
def mutated_documents(draw):
    doc = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 4))):
        container, key = draw(st.sampled_from(list(spots(doc))))
        if isinstance(container, dict) and draw(st.booleans()):
            del container[key]
        else:
            container[key] = draw(json_values)
    return doc


def survives(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            results = load(path)
        except ResultsError as e:
            assert str(path) in str(e)   # the message names the file
            return
        try:
            assert report.build([results]).startswith("<!DOCTYPE html>")
        except ResultsError as e:
            assert str(path) in str(e)
        assert set(results.edited_workloads()) <= {w.name for w in results.workloads}
        try:
            render(compare(results, results, 0.05))
        except NothingToCompare:
            pass


FUZZ_SETTINGS = settings(max_examples=40, deadline=None, database=None,
                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _with_bandwidth_bytes(value):
    doc = copy.deepcopy(BASE)
    doc["workloads"][0]["rows"][2]["params"]["bytes"] = value
    return doc


@FUZZ_SETTINGS
@given(mutated_documents())
@example(copy.deepcopy(BASE))
@example(_with_bandwidth_bytes(False))   # CI's fuzz run: no positive size to draw on a log axis
@example(_with_bandwidth_bytes(0))
@example(_with_bandwidth_bytes(1e308))        # CI's fuzz run: a log axis that overflows while padding its limits
@example(_with_bandwidth_bytes(float("inf")))  # ... and sizes that are not numbers, in `ferry compare`'s figure names
@example(_with_bandwidth_bytes(float("nan")))
def check_a_mutated_document(doc):
    survives(json.dumps(doc))


@FUZZ_SETTINGS
@given(st.text(max_size=200) | json_values.map(json.dumps))
@example("")
@example('{"schema": "ferry.results/1", "workloads": [{"name": "link", "rows": [{"value": NaN}]}]}')
def check_any_text(text):
    survives(text)


def run_for_a_while(check) -> None:
    seconds = float(os.environ.get("FERRY_FUZZ_SECONDS", "0"))
    deadline = time.monotonic() + seconds
    check()
    while time.monotonic() < deadline:
        check()


def test_mutated_results_documents_are_read_drawn_and_compared_or_refused():
    run_for_a_while(check_a_mutated_document)


def test_any_text_is_read_or_refused_as_not_a_results_file():
    run_for_a_while(check_any_text)
