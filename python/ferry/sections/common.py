"""What every workload's section shares: series, sources, a table of figures across files."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from .. import html
from ..results import Results, Row, Workload
from ..text import format_value


@dataclass(frozen=True)
class Entry:
    """One workload's run from one results file."""
    results: Results
    workload: Workload


@dataclass(frozen=True)
class Series:
    """What one line (or one bar of each group) in a plot stands for: one file, or one device of one file."""
    label: str
    entry: Entry
    rows: list

    def section(self, section: str) -> list:
        return [r for r in self.rows if r.section == section]


def series_per_file(entries: list) -> list:
    return [Series(e.results.label, e, e.workload.rows) for e in entries]


def series_per_device(entries: list) -> list:
    """Link measures every device it was given; each device of each file is a series."""
    out = []
    for e in entries:
        devices = sorted({r.params["device"] for r in e.workload.rows if "device" in r.params})
        if len(devices) <= 1:
            out.append(Series(e.results.label, e, e.workload.rows))
            continue
        for d in devices:
            # Peer rows name from/to rather than a device: they go with the first.
            rows = [r for r in e.workload.rows if r.params.get("device", devices[0]) == d]
            out.append(Series(f"{e.results.label} GPU {d}", e, rows))
    return out


def in_legend(label: str, series: Series, many: bool) -> str:
    return f"{label} · {series.label}" if many else label


def sources(entries: list) -> str:
    names = []
    for e in entries:
        timings = e.results.machine.get("timings", "")
        emulated = " (emulator: CPU timings, not GPU timings)" if timings.startswith("emulated") else ""
        names.append(f"{e.results.label}: {e.results.gpus()}, {e.workload.verification}{emulated}")
    return html.paragraph("From " + "; ".join(names) + ".", cls="sources")


def run_notes(entries: list) -> str:
    """The runs' own notes and skips, kept beside the plots they explain."""
    parts = []
    for e in entries:
        lines = e.workload.notes + [f"skipped: {s}" for s in e.workload.skipped]
        failed = sum(1 for r in e.workload.rows if r.check == "FAILED")
        if failed:
            lines.insert(0, f"{failed} rows FAILED verification")
        if lines:
            parts.append(f"<h4>{html.escape(e.results.label)}</h4>" + html.items(lines))
    if not parts:
        return ""
    return '<details class="notes"><summary>Notes from the runs</summary>' + "".join(parts) + "</details>"


def value_cell(row: Optional[Row]):
    if row is None:
        return "-"
    text = format_value(row.value, row.unit)
    if row.model is not None and row.efficiency is not None:
        text += f" ({row.efficiency * 100:.0f}% of model {format_value(row.model, row.unit)})"
    if row.check == "FAILED":
        return ("failed", text + " FAILED")
    return text


def figures_table(series: list, rows_of: Callable[[Series], list], key_header: list,
                  key_of: Callable[[Row], tuple], table_id: str) -> str:
    """One line per figure (named by key_of), one value column per series."""
    order, by_series = [], []
    for s in series:
        mine = {}
        for r in rows_of(s):
            key = key_of(r)
            mine.setdefault(key, r)
            if key not in order:
                order.append(key)
        by_series.append(mine)
    if not order:
        return ""
    rows = [list(key) + [value_cell(mine.get(key)) for mine in by_series] for key in order]
    return html.table(key_header + [s.label for s in series], rows, table_id=table_id)
