"""Any workload without a section of its own (yet): its figures as a table, so a
report never drops data it does not know how to plot."""
from __future__ import annotations

from .. import html
from ..text import format_params
from .common import figures_table, run_notes, series_per_file, sources


def render(entries: list) -> str:
    name = entries[0].workload.name
    series = series_per_file(entries)
    parts = [sources(entries),
             html.paragraph(f"This report has no plots for {name} yet; every figure is in the table.", cls="aside"),
             figures_table(series, lambda s: s.rows, ["section", "figure"],
                           lambda r: (r.section, format_params(r.params)), f"table-{name}-figures"),
             run_notes(entries)]
    return html.section(name, name, parts)
