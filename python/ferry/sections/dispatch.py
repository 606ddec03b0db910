"""dispatch: the ladder of dispatch optimizations as bars with each step's delta,
and time against key count per rung when the run swept the keys."""
from __future__ import annotations

import math

from .. import html, plots
from ..text import format_count, format_value
from .common import in_legend, run_notes, series_per_file, sources

WORKLOAD = "dispatch"
TITLE = "dispatch: 120 dependent kernels down a ladder of dispatch optimizations"
FIGURES = {
    "ladder": ("keys", "rung", "host"),
    "summary": ("keys",),
}

DEFAULT_KEYS = 32768  # ferry run dispatch's default: the ladder shown first when a run swept keys


def render(entries: list) -> str:
    series = series_per_file(entries)
    keys = _key_counts(series)
    parts = [sources(entries)]
    if keys:
        shown = min(keys, key=lambda k: (abs(math.log2(k / DEFAULT_KEYS)), -k))
        parts += [_ladder(series, shown), _sweep(series, keys)]
    parts += [_summary(series), run_notes(entries)]
    return html.section(WORKLOAD, TITLE, parts)


def _key_counts(series: list) -> list:
    return sorted({r.params["keys"] for s in series for r in s.section("ladder") if "keys" in r.params})


def _rungs(series: list, keys=None) -> list:
    order = []
    for s in series:
        for r in s.section("ladder"):
            if (keys is None or r.params.get("keys") == keys) and r.params.get("rung") not in order:
                order.append(r.params.get("rung"))
    return order


def _ladder(series: list, keys: int) -> str:
    series = [s for s in series if any(r.params.get("keys") == keys for r in s.section("ladder"))]
    rungs = _rungs(series, keys)
    fig, (ax,) = plots.panels(1, width_each=max(7.0, 1.0 * len(rungs) * max(1, len(series)) ** 0.5), height=4.2)
    width = 0.8 / len(series)
    top = 0.0
    for i, s in enumerate(series):
        by_rung = {r.params.get("rung"): r for r in s.section("ladder") if r.params.get("keys") == keys}
        xs = [j + (i - (len(series) - 1) / 2) * width for j, rung in enumerate(rungs) if rung in by_rung]
        rows = [by_rung[rung] for rung in rungs if rung in by_rung]
        if not rows:
            continue
        errs = plots.error_bars(rows)
        tops = [r.value + above for r, above in zip(rows, errs[1])]
        ax.bar(xs, [r.value for r in rows], width=width * 0.9, color=plots.colour(i), label=s.label, yerr=errs,
               capsize=2, error_kw={"elinewidth": 0.8})
        models = [(x, r.model) for x, r in zip(xs, rows) if r.model is not None]
        ax.scatter([x for x, _ in models], [m for _, m in models], marker="_", s=300 * width, color="black", zorder=3,
                   label="model" if i == 0 else None)
        for k, (x, r, hi) in enumerate(zip(xs, rows, tops)):
            delta = "" if k == 0 else f"{r.value - rows[k - 1].value:+.0f} us\n"
            ax.annotate(f"{delta}{rows[0].value / r.value:.2f}x", (x, hi), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=6.5)
        top = max([top] + tops)
        copies = [c for c in s.section("copies") if c.params.get("keys") == keys]
        for k, c in enumerate(copies):
            label = "copies alone: " + ", ".join(f"{c.params.get('host')} {c.value:.0f} us" for c in copies)
            ax.axhline(c.value, linestyle=":", linewidth=1, color=plots.colour(i),
                       label=in_legend(label, s, len(series) > 1) if k == 0 else None)
    ax.set_ylim(0, top * 1.18)
    ax.set_xticks(range(len(rungs)), rungs)
    ax.set_ylabel("H2D + sort + D2H, us (median; whiskers: min..p99)")
    ax.set_title(f"{format_count(keys)} keys")
    ax.legend(loc="upper right")
    return html.figure("plot-dispatch-ladder", plots.svg(fig, "plot-dispatch-ladder"),
                       "Each rung adds one change to the rung on its left. Above each bar: its change from the rung on "
                       "its left, and its speedup over the first rung, in the same file. Black ticks: the model. "
                       "Dotted: the key copies alone, which no rung can beat.")


def _sweep(series: list, keys: list) -> str:
    if len(keys) < 2:
        return ""
    # A file that ran one key count is a point, not a curve: its ladder is above.
    series = [s for s in series if len({r.params.get("keys") for r in s.section("ladder")}) > 1]
    if not series:
        return ""
    rungs = _rungs(series)
    fig, (ax,) = plots.panels(1, width_each=7.5, height=4.2)
    for i, s in enumerate(series):
        for j, rung in enumerate(rungs):
            rows = sorted((r for r in s.section("ladder") if r.params.get("rung") == rung), key=lambda r: r.params["keys"])
            if rows:
                ax.plot([r.params["keys"] for r in rows], [r.value for r in rows], marker=plots.marker(i), markersize=3.5,
                        color=plots.colour(j))
    plots.count_axis(ax)
    ax.set_yscale("log")
    ax.set_xlabel("keys")
    ax.set_ylabel("H2D + sort + D2H, us (median)")
    plots.key_legend(ax, [(rung, j) for j, rung in enumerate(rungs)], [s.label for s in series], loc="upper left",
                     ncol=2)
    return html.figure("plot-dispatch-sweep", plots.svg(fig, "plot-dispatch-sweep"),
                       "Every rung against the number of keys. A rung missing at some key counts could not run there "
                       "(the on-chip sort needs the keys to fit one block's shared memory).")


def _summary(series: list) -> str:
    rows = []
    for s in series:
        for r in s.section("summary"):
            p = r.params
            rows.append([s.label, format_count(p.get("keys", 0)), p.get("passes", ""),
                         f"{p.get('first rung', '')} {p.get('first us', '')} us", p.get("best rung", ""),
                         format_value(r.value, r.unit), p.get("speedup", ""), p.get("dispatch share of first (model)", ""),
                         r.check])
    if not rows:
        return ""
    return html.table(["file", "keys", "passes", "first rung", "best rung", "best", "speedup",
                       "dispatch share of first (model)", "check"], rows, table_id="table-dispatch-summary")
