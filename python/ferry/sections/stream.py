"""stream: latency against throughput per design across chunk sizes, log axes,
each design's model bound beside it; the summary as a table."""
from __future__ import annotations

from .. import html, plots
from ..text import format_bytes, format_value
from .common import run_notes, series_per_file, sources

WORKLOAD = "stream"
TITLE = "stream: host <-> device streaming designs, latency against throughput"
FIGURES = {"summary": ("design",)}

DESIGNS = ["offload", "chunked", "zerocopy", "pipeline", "persistent", "graph", "fused", "pool"]


def render(entries: list) -> str:
    series = series_per_file(entries)
    parts = [sources(entries), _latency_vs_throughput(series), _summary(series), run_notes(entries)]
    return html.section(WORKLOAD, TITLE, parts)


def _points(s) -> dict:
    """(design, depth) -> [(chunk bytes, latency row, throughput row)] by chunk size."""
    throughput = {_key(r): r for r in s.section("throughput")}
    lines = {}
    for r in s.section("latency"):
        t = throughput.get(_key(r))
        if t is not None:
            design, chunk, depth = _key(r)
            lines.setdefault((design, depth), []).append((chunk, r, t))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in lines.items()}


def _key(r) -> tuple:
    return r.params.get("design"), r.params.get("chunk bytes"), r.params.get("depth")


def _latency_vs_throughput(series: list) -> str:
    per_series = [_points(s) for s in series]
    depths = sorted({depth for points in per_series for (_, depth) in points})
    if not depths:
        return ""
    fig, axes = plots.panels(len(depths), width_each=5.2, height=4.0)
    for ax, depth in zip(axes, depths):
        designs = set()
        bounds = []
        for i, (s, points) in enumerate(zip(series, per_series)):
            for (design, d), line in sorted(points.items(), key=lambda kv: _order(kv[0][0])):
                if d != depth and design != "offload":
                    continue
                colour = plots.colour(_order(design))
                ax.plot([t.value for _, _, t in line], [r.value for _, r, _ in line], marker=plots.marker(i),
                        markersize=4, color=colour)
                designs.add(design)
                bound = [(t.model, r.model) for _, r, t in line if t.model and r.model]
                if bound:
                    ax.plot([b[0] for b in bound], [b[1] for b in bound], linestyle=":", linewidth=1, color=colour)
                    if i == 0:
                        bounds += bound
                if i == 0:
                    for chunk, r, t in (line[0], line[-1]) if len(line) > 1 else (line[0],):
                        ax.annotate(format_bytes(chunk), (t.value, r.value), fontsize=6.5, xytext=(3, -8),
                                    textcoords="offset points", color=colour)
        edge = frontier(bounds)
        if edge:
            ax.plot([b[0] for b in edge], [b[1] for b in edge], linestyle="--", linewidth=2, color="0.55", zorder=0)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{depth} chunk{'s' if depth != 1 else ''} in flight")
        ax.set_xlabel("throughput, GB/s (whole stream)")
        ax.set_ylabel("chunk latency, us (median)")
        plots.key_legend(ax, [(d, _order(d)) for d in sorted(designs, key=_order)], [s.label for s in series],
                         [("model bound", ":"), ("model frontier", "--")], loc="upper left")
    return html.figure("plot-stream-latency-throughput", plots.svg(fig, "plot-stream-latency-throughput"),
                       "Each line is one design over the chunk sizes (the smallest and largest chunk labelled; offload "
                       "is one chunk of the whole stream and appears in every panel). Lower right is better. Dotted, "
                       "same colour: the model's bound, the least latency and the most throughput it allows. Dashed grey: the "
                       "model's frontier, the least latency any design's bound allows at each throughput.")


def frontier(points: list) -> list:
    """The (throughput, latency) points no other point beats on both: by rising latency, each faster than all before."""
    edge = []
    for throughput, latency in sorted(points, key=lambda p: (p[1], -p[0])):
        if not edge or throughput > edge[-1][0]:
            edge.append((throughput, latency))
    return edge


def _order(design: str) -> int:
    return DESIGNS.index(design) if design in DESIGNS else len(DESIGNS)


def _summary(series: list) -> str:
    rows = []
    for s in series:
        for r in s.section("summary"):
            p = r.params
            rows.append([s.label, p.get("design", ""), format_bytes(p.get("chunk bytes", 0)), p.get("depth", ""),
                         format_value(r.value, r.unit), f"{float(p.get('throughput GB/s', 0)):.1f} GB/s",
                         f"{float(p.get('% of best throughput', 0)):.0f}%", p.get("latency vs offload", ""),
                         r.check])
    if not rows:
        return ""
    title = series[0].entry.workload.sections.get("summary", "")
    return html.paragraph(title, cls="caption") + html.table(
        ["file", "design", "chunk", "depth", "median latency", "throughput", "of best", "vs offload", "check"], rows,
        table_id="table-stream-summary")
