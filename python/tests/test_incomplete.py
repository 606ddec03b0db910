"""An incomplete results file: a run that ended early (a signal, an error, a poll timeout) leaves the rows it
had in `<json path>.partial`, an ordinary results document with one more field, `incomplete` (reason,
rows_done, steps_done, steps_planned). The report draws it under a banner that says so; compare and the NCCL
parity refuse it (exit 2, naming the file and the reason), compare unless --allow-incomplete, as they refuse
a file that FAILED."""
from __future__ import annotations

import pytest
from conftest import document, row, run_ferry_py
from test_nccl_parity import NCCL_TESTS_OUTPUT, beff_document

from ferry import nccl_parity
from ferry.results import ResultsError, load

SIGINT_REASON = "interrupted by SIGINT"


def incomplete(doc: dict, reason=SIGINT_REASON, rows_done=None, steps_done=12, steps_planned=40) -> dict:
    rows = sum(len(w["rows"]) for w in doc["workloads"])
    return {**doc, "incomplete": {"reason": reason, "rows_done": rows if rows_done is None else rows_done,
                                  "steps_done": steps_done, "steps_planned": steps_planned}}


def link_rows(n=3, **changes) -> list:
    return [row(bytes=1024 << i, **changes) for i in range(n)]


def test_the_incomplete_field_is_read_and_a_complete_file_has_none(make_results):
    partial = load(make_results("run.json.partial", incomplete(document(rows=link_rows()))))
    assert partial.incomplete.reason == SIGINT_REASON
    assert (partial.incomplete.rows_done, partial.incomplete.steps_done, partial.incomplete.steps_planned) == (3, 12, 40)
    assert partial.label == "run.json"
    assert load(make_results("run.json", document(rows=link_rows()))).incomplete is None


@pytest.mark.parametrize("field, value, message", [
    ("reason", 5, "incomplete.reason is 5, not a string"),
    ("rows_done", -1, "incomplete.rows_done is -1, not a count"),
    ("steps_done", 1.5, "incomplete.steps_done is 1.5, not a count"),
    ("steps_planned", "40", "incomplete.steps_planned is \"40\", not a count"),
    ("steps_done", None, "incomplete.steps_done is null, not a count"),
])
def test_a_malformed_incomplete_field_is_refused_naming_it(make_results, field, value, message):
    doc = incomplete(document(rows=link_rows()))
    doc["incomplete"][field] = value
    path = make_results("bad.json.partial", doc)
    with pytest.raises(ResultsError) as error:
        load(path)
    assert f"'{path}'" in str(error.value) and message in str(error.value), str(error.value)


def test_the_report_draws_an_incomplete_file_under_a_banner_at_the_top(make_results, tmp_path):
    whole = make_results("whole.json", document(rows=link_rows()))
    partial = make_results("cut.json.partial", incomplete(document(rows=link_rows(2)), steps_done=12, steps_planned=40))
    out = tmp_path / "page.html"
    done = run_ferry_py("report", whole, partial, "-o", out)
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    banner = page.split('<p class="banner incomplete">')[1].split("</p>")[0]
    assert page.index('class="banner incomplete"') < page.index('id="machines"')
    assert "cut.json is incomplete" in banner and SIGINT_REASON in banner, banner
    assert "2 rows" in banner and "12 of 40 steps" in banner, banner
    assert page.count('class="banner incomplete"') == 1   # whole.json has none


def test_a_banner_with_no_planned_steps_says_the_plan_is_unknown(make_results, tmp_path):
    partial = make_results("cut.json", incomplete(document(rows=link_rows(1)), reason="poll timed out after 2 s",
                                                  steps_done=3, steps_planned=0))
    out = tmp_path / "page.html"
    assert run_ferry_py("report", partial, "-o", out).returncode == 0
    banner = out.read_text().split('<p class="banner incomplete">')[1].split("</p>")[0]
    assert "poll timed out after 2 s" in banner and "1 row," in banner and "3 steps of a plan whose size" in banner


@pytest.mark.parametrize("side", ["BASE", "NEW"])
def test_compare_refuses_an_incomplete_file_naming_it_its_reason_and_the_option(make_results, side):
    whole = make_results("whole.json", document(rows=link_rows()))
    partial = make_results("cut.json.partial", incomplete(document(rows=link_rows(2))))
    base, new = (partial, whole) if side == "BASE" else (whole, partial)
    done = run_ferry_py("compare", base, new)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert f"'{partial}' ({side}) is incomplete: {SIGINT_REASON}" in done.stderr, done.stderr
    assert "--allow-incomplete" in done.stderr and f"'{whole}'" not in done.stderr


def test_allow_incomplete_compares_and_says_which_file_is_incomplete(make_results):
    whole = make_results("whole.json", document(rows=link_rows()))
    partial = make_results("cut.json.partial", incomplete(document(rows=link_rows(2))))
    done = run_ferry_py("compare", whole, partial, "--allow-incomplete")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"'{partial}' (NEW) is incomplete: {SIGINT_REASON}: 2 rows, 12 of 40 steps" in done.stdout, done.stdout
    assert "2 figures compared" in done.stdout and "1 figures only in BASE" in done.stdout


def test_allow_failed_does_not_let_an_incomplete_file_through_nor_the_other_way(make_results):
    whole = make_results("whole.json", document(rows=link_rows()))
    both = make_results("both.json.partial", incomplete(document(rows=link_rows(2, check="FAILED"),
                                                                 verification="FAILED")))
    for options in ([], ["--allow-failed"], ["--allow-incomplete"]):
        done = run_ferry_py("compare", whole, both, *options)
        assert done.returncode == 2, (options, done.stdout + done.stderr)
    allowed = run_ferry_py("compare", whole, both, "--allow-failed", "--allow-incomplete")
    assert allowed.returncode == 1, allowed.stdout + allowed.stderr   # NEW's rows FAILED
    assert "is incomplete" in allowed.stdout


def test_compare_help_names_allow_incomplete():
    done = run_ferry_py("compare", "--help")
    assert done.returncode == 0 and "--allow-incomplete" in done.stdout


def test_the_nccl_parity_refuses_an_incomplete_beff_file(tmp_path, capsys):
    results = tmp_path / "beff.json.partial"
    import json
    results.write_text(json.dumps(incomplete(beff_document(), reason="SIGTERM")))
    output = tmp_path / "nccl.txt"
    output.write_text(NCCL_TESTS_OUTPUT)
    assert nccl_parity.main(["--pair", "a rank per GPU", str(results), "nccl", str(output)]) == nccl_parity.BAD_INPUT
    said = capsys.readouterr()
    assert f"'{results}'" in said.err and "is incomplete: SIGTERM" in said.err and not said.out
