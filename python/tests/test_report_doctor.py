"""ferry report on `ferry doctor`'s results: a verdict table with every check, WARN and
FAIL marked, each one's cause and action below, and the count line doctor prints;
findings that are not what ferry writes are refused naming the file and the field."""
from __future__ import annotations

import copy
import gzip
import json
import os
import re
import subprocess
from html import unescape
from html.parser import HTMLParser

import pytest
from conftest import REPO, document, ferry_binary, run_ferry_py
from hypothesis import HealthCheck, given, settings, strategies as st
from page_checks import Page, css_fetches

from ferry import report
from ferry.results import ResultsError, load

H200 = REPO / "docs" / "results" / "doctor-h200x2.json.gz"
COUNT_LINE = re.compile(r"^(\d+) OK, (\d+) WARN, (\d+) FAIL, (\d+) not judged$", re.M)
# What doctor reads from the environment; the healthy run must not inherit any of it from the shell running the tests.
DOCTOR_ENVIRONMENT = ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_P2P_LEVEL", "NCCL_PROTO", "NCCL_ALGO",
                      "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_VISIBLE_DEVICES", "FERRY_FAULT_DOCTOR")
RUNS = {
    # name: (extra environment, exit code doctor must give)
    "healthy": ({}, 0),
    # A link trained at Gen4 x8 (FAIL on every GPU) and a variable that changes NCCL's path (WARN on the host).
    "faulty": ({"FERRY_FAULT_DOCTOR": "pcie=4x8", "NCCL_P2P_DISABLE": "1"}, 1),
}


@pytest.fixture(scope="module")
def doctor_runs(tmp_path_factory) -> dict:
    """name -> (results path, the count line ferry doctor printed)."""
    folder = tmp_path_factory.mktemp("doctor")
    base = {k: v for k, v in os.environ.items() if k not in DOCTOR_ENVIRONMENT}
    out = {}
    for name, (environment, code) in RUNS.items():
        path = folder / f"doctor-{name}.json"
        done = subprocess.run([str(ferry_binary()), "doctor", "--backend", "emu", "--devices", "0,1", "--json",
                               str(path)], capture_output=True, text=True, env={**base, **environment}, timeout=600)
        assert done.returncode == code, f"ferry doctor ({name}) exited {done.returncode}: {done.stderr[-2000:]}"
        said = COUNT_LINE.search(done.stdout)
        assert said, done.stdout
        out[name] = (path, said.group(0))
    return out


@pytest.fixture(scope="module")
def pages(doctor_runs, tmp_path_factory) -> dict:
    """name -> the page `ferry report` wrote for that run alone (and for the H200 file)."""
    folder = tmp_path_factory.mktemp("doctor-report")
    inputs = {**{name: path for name, (path, _) in doctor_runs.items()}, "h200": H200}
    out = {}
    for name, path in inputs.items():
        page = folder / f"{name}.html"
        done = run_ferry_py("report", path, "-o", page)
        assert done.returncode == 0, done.stderr
        out[name] = page.read_text()
    return out


def findings_of(path) -> list:
    raw = path.read_bytes()
    doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    return next(w for w in doc["workloads"] if w["name"] == "doctor")["findings"]


class Table(HTMLParser):
    """One table's body rows: each the row's class, and per cell its class, its text and the tags inside it."""

    def __init__(self, text: str, table_id: str):
        super().__init__()
        self.rows, self._id, self._inside, self._cell = [], table_id, False, None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == self._id:
            self._inside = True
        elif self._inside and tag == "tr":
            self.rows.append({"class": attrs.get("class"), "cells": []})
        elif self._inside and tag == "td":
            self._cell = {"class": attrs.get("class"), "text": "", "tags": set()}
            self.rows[-1]["cells"].append(self._cell)
        elif self._cell is not None:
            self._cell["tags"].add(tag)

    def handle_endtag(self, tag):
        if tag == "td":
            self._cell = None
        elif tag == "table":
            self._inside = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data

    def texts(self) -> list:
        return [[c["text"] for c in r["cells"]] for r in self.rows if r["cells"]]


def doctor_section(page: str) -> str:
    return page.split('id="workload-doctor"', 1)[1].split("</section>", 1)[0]


def causes(page: str) -> str:
    """What the section says below its table."""
    return doctor_section(page).split("</table>", 1)[1]


def test_the_verdict_table_has_every_finding_in_doctors_order(doctor_runs, pages):
    for name in RUNS:
        findings = findings_of(doctor_runs[name][0])
        expected = [[f["verdict"], f["check"], f["subject"], f["measured"], f["expected"], f["basis"]]
                    for f in findings]
        assert Table(pages[name], "table-doctor-findings").texts() == expected, name


def test_fail_and_warn_rows_are_marked_and_no_other_row_is(doctor_runs, pages):
    table = Table(pages["faulty"], "table-doctor-findings")
    verdicts = [r["cells"][0] for r in table.rows if r["cells"]]
    assert {v["text"] for v in verdicts} >= {"OK", "WARN", "FAIL", "-"}   # the run gave every verdict
    for v in verdicts:
        if v["text"] == "FAIL":
            assert v["class"] == "failed" and "strong" in v["tags"], v   # the report's red for a failed figure
        elif v["text"] == "WARN":
            assert v["class"] == "warn" and "mark" in v["tags"], v
        else:
            assert v["class"] not in ("failed", "warn") and not v["tags"], v


def test_each_warn_and_fail_has_its_cause_and_action_below_the_table(doctor_runs, pages):
    below = causes(pages["faulty"])
    judged = [f for f in findings_of(doctor_runs["faulty"][0]) if f["verdict"] in ("WARN", "FAIL")]
    assert [f["verdict"] for f in judged].count("FAIL") == 2 and [f["verdict"] for f in judged].count("WARN") >= 1
    items = re.findall(r"<li[^>]*>(.*?)</li>", below)
    assert len(items) == len(judged)
    for item, f in zip(items, judged):
        text = unescape(re.sub(r"<[^>]+>", "", item.replace("<br>", "\n")))
        assert text == f"{f['verdict']} {f['check']} ({f['subject']}): {f['cause']}\ndo: {f['action']}", text
    assert "Gen4 x8 (15.8 GB/s) instead of Gen5 x16 (63.0 GB/s)" in below
    assert "NCCL_P2P_DISABLE" in below


def test_the_count_line_is_the_one_doctor_printed(doctor_runs, pages):
    for name in RUNS:
        said = doctor_runs[name][1]
        section = doctor_section(pages[name])
        assert f">{said}</p>" in section, (name, said)
        ok, warn, fail, unjudged = map(int, COUNT_LINE.match(said).groups())
        findings = findings_of(doctor_runs[name][0])
        assert (ok, warn, fail, unjudged) == tuple(sum(1 for f in findings if f["verdict"] == v)
                                                   for v in ("OK", "WARN", "FAIL", "-"))
    assert '<p class="banner failed">' + doctor_runs["faulty"][1] in pages["faulty"]


def test_a_healthy_run_has_nothing_marked_and_nothing_to_explain(doctor_runs, pages):
    assert re.match(r"\d+ OK, 0 WARN, 0 FAIL, \d+ not judged", doctor_runs["healthy"][1])
    section = doctor_section(pages["healthy"])
    assert 'class="failed"' not in section and 'class="warn"' not in section and "<mark>" not in section
    assert "doctor-causes" not in section and "banner failed" not in section


def test_the_link_rows_of_a_doctor_file_keep_links_section(pages):
    page = Page(pages["faulty"])
    assert page.ids.get("workload-link") == "section" and page.ids.get("plot-link-bandwidth") == "figure"
    assert page.ids.get("workload-doctor") == "section" and page.ids.get("table-doctor-findings") == "table"
    assert "table-doctor-figures" not in page.ids   # doctor's own workload has no rows to show
    assert page.fetches == [] and css_fetches(pages["faulty"]) == [] and "<script" not in pages["faulty"]


def test_the_h200_file_renders_with_26_ok_and_2_not_judged(pages):
    section = doctor_section(pages["h200"])
    assert ">26 OK, 0 WARN, 0 FAIL, 2 not judged</p>" in section
    rows = Table(pages["h200"], "table-doctor-findings").texts()
    assert len(rows) == 28 and [r[0] for r in rows].count("OK") == 26
    assert ["OK", "peer copy", "GPU 0 -> 1", "379.5 GB/s", ">= 70% of 450.0 GB/s", "18 x NVLink4"] in rows
    assert "doctor-causes" not in section and 'id="workload-link"' in pages["h200"]


def _doctor_document(findings) -> dict:
    doc = document(workloads=[{"name": "doctor", "verification": "PASSED", "config": {}, "sections": [], "rows": [],
                               "skipped": [], "notes": [], "findings": findings}])
    doc["command_line"] = ["ferry", "doctor", "--json", "doctor.json"]
    return doc


def _finding(**changes) -> dict:
    f = {"check": "environment", "subject": "host", "verdict": "WARN", "measured": "NCCL_P2P_DISABLE=1",
         "expected": "unset", "basis": "a variable that changes how data moves", "cause": "NCCL moves data through host "
         "memory", "action": "unset NCCL_P2P_DISABLE"}
    f.update(changes)
    return {k: v for k, v in f.items() if v is not ...}


def test_every_string_from_the_machine_is_escaped(make_results, tmp_path):
    hostile = '<script>alert("x")</script>&'
    path = make_results("hostile.json", _doctor_document([_finding(measured=f"NCCL_ALGO={hostile}", cause=hostile,
                                                                   action=hostile, subject=hostile, check=hostile)]))
    page = report.build([load(path)])
    # In the table: check, subject, measured; below it: check, subject, cause, action.
    assert "<script" not in page and page.count("&lt;script&gt;") == 7
    assert Table(page, "table-doctor-findings").texts()[0][3] == f"NCCL_ALGO={hostile}"


def test_several_doctor_files_each_get_their_table_under_their_label(make_results):
    one = make_results("one.json", _doctor_document([_finding()]))
    two = make_results("two.json", _doctor_document([_finding(verdict="OK", cause="", action="")]))
    page = report.build([load(one, "first"), load(two, "second")])
    assert "<h3>first</h3>" in page and "<h3>second</h3>" in page
    assert Table(page, "table-doctor-findings").texts()[0][0] == "WARN"
    assert Table(page, "table-doctor-findings-2").texts()[0][0] == "OK"
    assert ">0 OK, 1 WARN, 0 FAIL, 0 not judged<" in page and ">1 OK, 0 WARN, 0 FAIL, 0 not judged<" in page


def test_a_doctor_workload_without_findings_says_so(make_results):
    doc = _doctor_document([])
    del doc["workloads"][0]["findings"]
    page = report.build([load(make_results("none.json", doc))])
    assert "This doctor run holds no findings" in doctor_section(page)


@pytest.mark.parametrize("findings, message", [
    ({"check": "pcie link"}, 'workloads[0].findings is {"check": "pcie link"}, not a list'),
    (["FAIL pcie link"], "workloads[0].findings[0] is not an object"),
    ([_finding(), _finding(cause=...)], "workloads[0].findings[1].cause is missing"),
    ([_finding(verdict="MAYBE")], 'workloads[0].findings[0].verdict is "MAYBE", not "OK", "WARN", "FAIL" or "-"'),
    ([_finding(verdict="ok")], 'findings[0].verdict is "ok"'),
    ([_finding(subject=0)], "workloads[0].findings[0].subject is 0, not a string"),
    ([_finding(value="55 GB/s")], 'workloads[0].findings[0].value is "55 GB/s", not a number'),
])
def test_a_malformed_finding_is_one_error_naming_the_file_and_the_field(make_results, findings, message):
    path = make_results("bad-doctor.json", _doctor_document(findings))
    with pytest.raises(ResultsError) as error:
        load(path)
    assert str(path) in str(error.value) and message in str(error.value)


def test_ferry_report_refuses_a_malformed_finding_with_exit_two_and_no_page(make_results, tmp_path):
    path = make_results("bad-doctor.json", _doctor_document([_finding(verdict="MAYBE")]))
    out = tmp_path / "bad.html"
    done = run_ferry_py("report", path, "-o", out)
    assert done.returncode == 2 and 'verdict is "MAYBE"' in done.stderr and str(path) in done.stderr
    assert not out.exists()


findings_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                               lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                         max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_findings_with_any_part_replaced_or_removed_are_drawn_or_refused(tmp_path_factory, data):
    doc = _doctor_document([_finding(), _finding(verdict="FAIL", value=1.5e10, model=6.3e10)])
    record = data.draw(st.sampled_from(doc["workloads"][0]["findings"]))
    key = data.draw(st.sampled_from(sorted(record)))
    if data.draw(st.booleans()):
        del record[key]
    else:
        record[key] = data.draw(findings_values)
    path = tmp_path_factory.mktemp("fuzz") / "doctor.json"
    path.write_text(json.dumps(copy.deepcopy(doc)))
    try:
        results = load(path)
    except ResultsError as e:
        assert str(path) in str(e)
        return
    assert report.build([results]).startswith("<!DOCTYPE html>")
