"""doctor: the verdict of every check `ferry doctor` made, as its table prints them,
and below it the cause and what to do for each WARN and FAIL.

doctor is a command, not a workload (`ferry list` does not name it): its results
file holds link's rows, drawn by link's section, and a `doctor` workload with no
rows and a `findings` list, drawn here. results.py has checked each finding's
fields and verdict, so this module only lays them out."""
from __future__ import annotations

from .. import html
from ..results import VERDICTS
from ..text import format_params
from .common import figures_table, run_notes, series_per_file, sources

WORKLOAD = "doctor"
TITLE = "doctor: is this machine moving data as fast as it should"
FIGURES = {}   # findings are judgments, not figures: `ferry compare` has nothing of doctor's to set side by side

COLUMNS = ["verdict", "check", "subject", "measured", "expected", "basis"]
# Each verdict's class on the page: FAIL's is the report's for a failed figure (red), WARN's is highlighted by <mark>.
MARKS = {"OK": "ok", "WARN": "warn", "FAIL": "failed", "-": "not-judged"}


def render(entries: list) -> str:
    parts = [sources(entries)]
    for i, e in enumerate(entries):
        if len(entries) > 1:
            parts.append(f"<h3>{html.escape(e.results.label)}</h3>")
        parts += _findings(e.workload.findings, "table-doctor-findings" + (f"-{i + 1}" if i else ""))
    rows = [s for s in series_per_file(entries) if s.rows]
    if rows:
        # Not what ferry doctor writes (its rows are link's), but a report drops no figure it was given.
        parts.append(figures_table(rows, lambda s: s.rows, ["section", "figure"],
                                   lambda r: (r.section, format_params(r.params)), "table-doctor-figures"))
    parts.append(run_notes(entries))
    return html.section(WORKLOAD, TITLE, parts)


def counts(findings: list) -> str:
    """The line ferry doctor ends its table with: '26 OK, 0 WARN, 0 FAIL, 2 not judged'."""
    n = {v: sum(1 for f in findings if f.verdict == v) for v in VERDICTS}
    return f"{n['OK']} OK, {n['WARN']} WARN, {n['FAIL']} FAIL, {n['-']} not judged"


def _findings(findings: list, table_id: str) -> list:
    if not findings:
        return [html.paragraph("This doctor run holds no findings: the file has no checks to show.", cls="aside")]
    failed = any(f.verdict == "FAIL" for f in findings)
    return [html.paragraph(counts(findings), cls="banner failed" if failed else "sources"),
            _table(findings, table_id), _explained(findings)]


def _table(findings: list, table_id: str) -> str:
    """Laid out as html.table lays out a table, but the verdict cell holds markup: FAIL in <strong> with the
    report's class for a failed figure, WARN in <mark>, which a browser highlights without the page's style."""
    def verdict(f):
        text = html.escape(f.verdict)
        if f.verdict == "WARN":
            text = f"<mark>{text}</mark>"
        if f.verdict == "FAIL":
            text = f"<strong>{text}</strong>"
        return f'<td class="{MARKS[f.verdict]}">{text}</td>'

    head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    body = "".join(
        f'<tr class="verdict-{MARKS[f.verdict]}">' + verdict(f)
        + "".join(f"<td>{html.escape(text)}</td>" for text in (f.check, f.subject, f.measured, f.expected, f.basis))
        + "</tr>" for f in findings)
    return f'<table id="{html.escape(table_id)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _explained(findings: list) -> str:
    """Each WARN and FAIL with its cause and what to do, in the order ferry doctor prints them."""
    items = []
    for f in findings:
        if f.verdict not in ("WARN", "FAIL"):
            continue
        line = f"<strong>{html.escape(f.verdict)} {html.escape(f.check)} ({html.escape(f.subject)})</strong>"
        if f.cause:
            line += f": {html.escape(f.cause)}"
        if f.action:
            line += f"<br>do: {html.escape(f.action)}"
        items.append(f'<li class="{MARKS[f.verdict]}">{line}</li>')
    if not items:
        return ""
    return (html.paragraph("Each WARN and FAIL: its cause, and what to do.", cls="caption")
            + '<ul class="doctor-causes">' + "".join(items) + "</ul>")
