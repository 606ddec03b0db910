"""link: bandwidth against size per memory kind and direction, the latencies as bars,
the ceilings as a table."""
from __future__ import annotations

from .. import html, plots
from ..text import format_bytes
from .common import figures_table, run_notes, series_per_device, sources

WORKLOAD = "link"
TITLE = "link: the machine's ceilings"
FIGURES = {"ceiling": ("device", "path", "memory", "direction")}

DIRECTIONS = [("h2d", "host -> device"), ("d2h", "device -> host"), ("bidir", "both directions at once")]
MEMORY_KINDS = ["pinned", "pageable", "mapped", "zero-copy kernel"]


def render(entries: list) -> str:
    own = [e for e in entries if not e.workload.for_model]
    shown = own or entries
    parts = [sources(shown)]
    if len(shown) < len(entries):
        parts.append(html.paragraph(
            f"{len(entries) - len(shown)} further link runs, made inside other workloads' files for their "
            "models with fewer sizes, are left out here; their figures are in those files.", cls="aside"))
    series = series_per_device(shown)
    parts += [_bandwidth(series), _latency(series), _ceilings(series), run_notes(shown)]
    return html.section(WORKLOAD, TITLE, parts)


def _curves(s, direction: str) -> dict:
    """memory kind -> rows by size, for one direction of one series."""
    curves = {}
    for r in s.section("bandwidth"):
        if r.params.get("direction") == direction:
            curves.setdefault(r.params.get("memory", "?"), []).append(r)
    if direction != "bidir":
        for r in s.section("zero_copy"):
            if r.params.get("direction") == direction:
                curves.setdefault("zero-copy kernel", []).append(r)
    return {k: sorted(v, key=lambda r: r.params["bytes"]) for k, v in curves.items()}


def _bandwidth(series: list) -> str:
    if not any(s.section("bandwidth") or s.section("zero_copy") for s in series):
        return ""
    fig, axes = plots.panels(len(DIRECTIONS))
    kinds = set()
    for ax, (direction, title) in zip(axes, DIRECTIONS):
        drawn = False
        for i, s in enumerate(series):
            curves = _curves(s, direction)
            for kind, rows in curves.items():
                colour = plots.colour(_kind_order(kind))
                x = [r.params["bytes"] for r in rows]
                ax.plot(x, [r.value for r in rows], marker=plots.marker(i), markersize=3.5, color=colour)
                plots.spread_band(ax, x, rows, colour)
                kinds.add(kind)
                drawn = True
            model = [r for r in curves.get("pinned", []) if r.model is not None]
            if model:
                ax.plot([r.params["bytes"] for r in model], [r.model for r in model], linestyle=":", color="0.3",
                        marker=plots.marker(i), markersize=2.5)
        ax.set_title(title)
        plots.bytes_axis(ax)
        ax.set_xlabel("copy size")
        ax.set_ylabel("GB/s (median; band: p99..min time)")
        ax.set_ylim(bottom=0)
        if not drawn:
            ax.text(0.5, 0.5, "not measured", ha="center", transform=ax.transAxes)
    plots.key_legend(axes[0], [(k, _kind_order(k)) for k in sorted(kinds, key=_kind_order)],
                     [s.label for s in series], [("model (pinned)", ":")], loc="upper left")
    return html.figure("plot-link-bandwidth", plots.svg(fig, "plot-link-bandwidth"),
                       "Bandwidth against copy size per host memory kind (copy engine) and for a kernel reading or "
                       "writing mapped memory (zero-copy). Dotted: the model for pinned copies.")


def _kind_order(kind: str) -> int:
    """A memory kind's place in the legend, which is also its colour."""
    return MEMORY_KINDS.index(kind) if kind in MEMORY_KINDS else len(MEMORY_KINDS)


def _latency_figures(s) -> list:
    """(label, row) for every latency of one series, shortest copy per clock and direction."""
    out = []
    smallest = {}
    for r in s.section("copy_latency"):
        key = (r.params.get("direction"), r.params.get("clock"))
        if key not in smallest or r.params["bytes"] < smallest[key].params["bytes"]:
            smallest[key] = r
    for (direction, clock), r in smallest.items():
        out.append((f"{direction.upper()} copy {format_bytes(r.params['bytes'])} ({clock})", r))
    out += [(r.params.get("what", "dispatch"), r) for r in s.section("dispatch")]
    # Older files have one flag row and no "what".
    out += [(f"flag: {r.params['what']}" if "what" in r.params else "persistent-kernel flag round trip", r)
            for r in s.section("flag")]
    # Older files time peer latency by the host clock alone and have no clock param.
    out += [(f"peer {r.params.get('from')} -> {r.params.get('to')} ({r.params.get('access', '')}"
             f"{', ' + r.params['clock'] if 'clock' in r.params else ''})", r)
            for r in s.section("peer_latency")]
    return out


def _latency(series: list) -> str:
    per_series = [dict(_latency_figures(s)) for s in series]
    labels = []
    for figures in per_series:
        labels += [k for k in figures if k not in labels]
    if not labels:
        return ""
    fig, (ax,) = plots.panels(1, width_each=9.5, height=0.3 * len(labels) * max(1, len(series)) ** 0.5 + 1.0)
    height = 0.8 / len(series)
    for i, figures in enumerate(per_series):
        placed = [(j + (i - (len(series) - 1) / 2) * height, figures[label])
                  for j, label in enumerate(labels) if label in figures]
        ys, rows = [y for y, _ in placed], [r for _, r in placed]
        values, errs = [r.value for r in rows], plots.error_bars(rows)
        ax.barh(ys, values, height=height * 0.9, color=plots.colour(i), xerr=errs, capsize=2,
                error_kw={"elinewidth": 0.8}, label=series[i].label)
        for y, v, above in zip(ys, values, errs[1]):
            ax.annotate(f"{v:.2f}", (v + above, y), xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("us (median; whiskers: min..p99)")
    if len(series) > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    return html.figure("plot-link-latency", plots.svg(fig, "plot-link-latency"),
                       "Latencies: the smallest copy per direction and clock, launch and graph costs per kernel, "
                       "the wake-up of a stream sync, and a round trip through mapped memory to a running kernel.")


def _ceilings(series: list) -> str:
    def rows_of(s):
        return (s.section("ceiling") + s.section("device_copy") + s.section("peer_bandwidth")
                + s.section("peer_bidirectional") + s.section("peer_sm"))

    def key_of(r):
        p = r.params
        if r.section == "device_copy":
            return ("device copy", "device", "d2d")
        if r.section == "peer_bandwidth":
            return (f"peer {p.get('access', '')}, {format_bytes(p.get('bytes', 0))}", "device",
                    f"{p.get('from')} -> {p.get('to')}")
        if r.section == "peer_bidirectional":
            return (f"peer both ways, {format_bytes(p.get('bytes', 0))}", "device", f"{p.get('from')} <-> {p.get('to')}")
        if r.section == "peer_sm":
            return (f"peer SM {p.get('kernels', '')}", "device", f"{p.get('from')} <-> {p.get('to')}")
        return (p.get("path", ""), p.get("memory", ""), p.get("direction", ""))

    return figures_table(series, rows_of, ["path", "memory", "direction"], key_of, "table-link-ceilings")
