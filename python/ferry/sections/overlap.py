"""overlap: wall time against the number of sub-buffers, the model's bound beside
it, serial and the host as lines to beat."""
from __future__ import annotations

from .. import html, plots
from .common import figures_table, in_legend, run_notes, series_per_file, sources

WORKLOAD = "overlap"
TITLE = "overlap: a vector add in k sub-buffers, copies and kernels overlapped"
FIGURES = {
    "variants": ("variant", "splits", "streams"),
    "summary": ("operation",),
}


def render(entries: list) -> str:
    series = series_per_file(entries)
    parts = [sources(entries), _time_vs_splits(series), _variants(series), run_notes(entries)]
    return html.section(WORKLOAD, TITLE, parts)


def _variant(s, name: str) -> list:
    return [r for r in s.section("variants") if r.params.get("variant") == name]


def _time_vs_splits(series: list) -> str:
    if not any(_variant(s, "pipelined") for s in series):
        return ""
    fig, (ax,) = plots.panels(1, width_each=7.5, height=4.0)
    many = len(series) > 1
    for i, s in enumerate(series):
        colour = plots.colour(i)
        pipelined = sorted(_variant(s, "pipelined"), key=lambda r: r.params["splits"])
        x = [r.params["splits"] for r in pipelined]
        ax.plot(x, [r.value / 1000 for r in pipelined], marker=plots.marker(i), color=colour,
                label=in_legend("pipelined", s, many))
        plots.spread_band(ax, x, pipelined, colour, scale=1e-3)
        bound = [r for r in pipelined if r.model is not None]
        if bound:
            ax.plot([r.params["splits"] for r in bound], [r.model / 1000 for r in bound], linestyle=":", color=colour,
                    label=in_legend("model bound", s, many))
        for name, style in (("serial", "--"), ("cpu", "-.")):
            for r in _variant(s, name):
                ax.axhline(r.value / 1000, linestyle=style, color=colour, linewidth=1)
                ax.annotate(f"{name} {r.value / 1000:.1f} ms", (1, r.value / 1000), xycoords=("axes fraction", "data"),
                            ha="right", va="bottom", fontsize=7, color=colour)
    plots.count_axis(ax)
    ax.set_xlabel("k, sub-buffers")
    ax.set_ylabel("wall time per run, ms (median; band: min..p99)")
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower left")
    return html.figure("plot-overlap-splits", plots.svg(fig, "plot-overlap-splits"),
                       "Time for c = a + b with copies in, the add and the copy out, against the number of "
                       "sub-buffers. Dashed: serial (one buffer, one stream); dash-dot: the host's own cores. Dotted: "
                       "the model's bound for the pipeline: its busiest stage over the whole vector plus one sub-buffer "
                       "through the other two.")


def _variants(series: list) -> str:
    def rows_of(s):
        return s.section("kernel") + s.section("variants")

    def key_of(r):
        p = r.params
        if r.section == "kernel":
            return (f"kernel {p.get('kernel', '')} on device data", "-", "-")
        return (p.get("variant", ""), p.get("splits", "-"), p.get("streams", "-"))

    return figures_table(series, rows_of, ["variant", "k", "streams"], key_of, "table-overlap-variants")
