"""topo: bandwidth against size per topology (min..max over rounds as a band,
the thesis' error bars; the theoretical peak dotted; the highlighted size
labelled), the peak table, and the pairwise matrix as heat maps."""
from __future__ import annotations

from .. import html, plots
from ..text import format_bytes
from .common import figures_table, run_notes, series_per_file, sources

WORKLOAD = "topo"
TITLE = "topo: ping-ping bandwidth per topology against the links' peak"
FIGURES = {}   # none listed: every param of a topo row names its figure

TOPOLOGIES = ["pair one-way", "pair both", "ring", "fully-connected", "host-staged"]


def render(entries: list) -> str:
    series = series_per_file(entries)
    parts = [sources(entries), _bandwidth(series), _peaks(series)]
    for i, s in enumerate(series):
        parts.append(_matrix(s, "plot-topo-matrix" + (f"-{i + 1}" if i else "")))
    parts.append(run_notes(entries))
    return html.section(WORKLOAD, TITLE, parts)


def _rows(s, topology: str) -> list:
    return [r for r in s.section("bandwidth") if r.params.get("topology") == topology and "bytes" in r.params]


def _min_max(r) -> tuple:
    """The row's slowest and fastest round, in its own unit (the thesis' error bars)."""
    median, fastest, slowest = (r.stats_s.get(k) for k in ("median", "min", "max"))
    if not median or not fastest or not slowest:
        return r.value, r.value
    return r.value * median / slowest, r.value * median / fastest


def _highlighted(s) -> int:
    return int(s.entry.workload.config.get("highlighted_bytes", 512 << 10))


def _bandwidth(series: list) -> str:
    present = [t for t in TOPOLOGIES if any(_rows(s, t) for s in series)]
    if not present:
        return ""
    transports = []
    for s in series:
        for r in s.section("bandwidth"):
            if r.params.get("transport") not in transports:
                transports.append(r.params.get("transport"))
    fig, axes = plots.panels(len(present), width_each=4.2, height=3.8)
    for ax, topology in zip(axes, present):
        for i, s in enumerate(series):
            for t, name in enumerate(transports):
                rows = sorted((r for r in _rows(s, topology) if r.params.get("transport") == name),
                              key=lambda r: r.params["bytes"])
                if not rows:
                    continue
                x = [r.params["bytes"] for r in rows]
                ax.plot(x, [r.value for r in rows], marker=plots.marker(i), markersize=3, color=plots.colour(t))
                bands = [_min_max(r) for r in rows]
                ax.fill_between(x, [lo for lo, _ in bands], [hi for _, hi in bands], color=plots.colour(t),
                                alpha=0.15, linewidth=0)
                if rows[0].model:
                    ax.axhline(rows[0].model, linestyle=":", color=plots.colour(t), linewidth=1)
                near = min(rows, key=lambda r: abs(r.params["bytes"] - _highlighted(s)))
                ax.annotate(f"{near.value:.3g}", (near.params["bytes"], near.value), textcoords="offset points",
                            xytext=(-4, 6), fontsize=7, color=plots.colour(t))
        plots.bytes_axis(ax)
        ax.set_yscale("log")
        ax.set_title(topology, fontsize=9)
        ax.set_xlabel("message size")
    axes[0].set_ylabel("GB/s per device and direction")
    plots.key_legend(axes[0], [(name, t) for t, name in enumerate(transports)], [s.label for s in series],
                     [("theoretical peak", ":")], loc="upper left")
    highlighted = format_bytes(_highlighted(series[0]))
    return html.figure("plot-topo-bandwidth", plots.svg(fig, "plot-topo-bandwidth"),
                       "Ping-ping bandwidth against the message size, one panel per topology: every device starts "
                       "sending at once, one exchange a round, each round checked byte for byte. The line is the median "
                       "over rounds, the band the slowest and fastest round (the thesis' error bars), the dotted line "
                       f"the theoretical peak. The figures written on the lines are those at {highlighted}.")


def _shown(value) -> str:
    """A figure as the printed tables show it: four significant digits."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _peaks(series: list) -> str:
    def key_of(r):
        return (r.params.get("topology", ""), r.params.get("transport", ""), r.params.get("devices", ""),
                r.params.get("compared with", "-"), r.params.get("ratio", "-"), r.params.get("vs best NCCL", "-"),
                _shown(r.params.get("GB/s there", "-")), r.params.get("% of theoretical there", "-"))

    return figures_table(series, lambda s: s.section("peak"),
                         ["topology", "transport", "devices", "compared with", "ratio", "vs best NCCL",
                          "GB/s at the highlighted size", "% of theoretical there"], key_of, "table-topo-peaks")


def _grid(rows: list) -> tuple:
    devices = sorted({r.params["from"] for r in rows} | {r.params["to"] for r in rows})
    index = {d: i for i, d in enumerate(devices)}
    grid = [[float("nan")] * len(devices) for _ in devices]
    for r in rows:
        grid[index[r.params["from"]]][index[r.params["to"]]] = r.value
    return devices, grid


def _ink_on(rgba) -> str:
    """Black on a light cell, white on a dark one."""
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _matrix(s, plot_id: str) -> str:
    bandwidth = [r for r in s.section("matrix") if "from" in r.params and "to" in r.params]
    latency = [r for r in s.section("matrix-latency") if "from" in r.params and "to" in r.params]
    transports = []
    for r in bandwidth:
        if r.params.get("transport") not in transports:
            transports.append(r.params.get("transport"))
    if not transports:
        return ""
    # One colour scale from zero for every transport's bandwidth (up to the highest theoretical peak), and one for
    # every latency: a cell's colour then reads the same in each panel, and two near-equal cells look alike.
    top = {"GB/s": max([r.value for r in bandwidth] + [r.model or 0 for r in bandwidth]),
           "one-way us": max([r.value for r in latency], default=1)}
    fig, axes = plots.panels(2 * len(transports), width_each=3.4, height=3.2)
    for t, name in enumerate(transports):
        for ax, rows, what, cmap in ((axes[2 * t], bandwidth, "GB/s", "viridis"),
                                     (axes[2 * t + 1], latency, "one-way us", "magma_r")):
            mine = [r for r in rows if r.params.get("transport") == name]
            if not mine:
                ax.set_visible(False)
                continue
            devices, grid = _grid(mine)
            image = ax.imshow(grid, cmap=cmap, vmin=0, vmax=top[what])
            for i in range(len(devices)):
                for j in range(len(devices)):
                    if grid[i][j] == grid[i][j]:  # not NaN: the diagonal stays empty
                        ax.text(j, i, f"{grid[i][j]:.3g}", ha="center", va="center", fontsize=7,
                                color=_ink_on(image.cmap(image.norm(grid[i][j]))))
            ax.set_xticks(range(len(devices)), [str(d) for d in devices])
            ax.set_yticks(range(len(devices)), [str(d) for d in devices])
            ax.set_xlabel("to device")
            ax.set_ylabel("from device")
            ax.grid(False)
            ax.set_title(f"{name}: {what}", fontsize=9)
            fig.colorbar(image, ax=ax, shrink=0.8)
    size = format_bytes(bandwidth[0].params.get("bytes", 0))
    return html.figure(plot_id, plots.svg(fig, plot_id),
                       f"{s.label}: the pairwise matrix per transport, every ordered pair of devices: one-way "
                       f"bandwidth of {size} messages (median over rounds) and one-way latency of a small ping-pong.")
