"""beff: b(L) of the ring against the message size per transport (log-log, the
model dotted), the transports side by side, NCCL at its best across the files
of one machine and layout, and their one-way latency."""
from __future__ import annotations

from datetime import datetime

from .. import html, plots
from .common import figures_table, run_notes, series_per_file, sources

WORKLOAD = "beff"
TITLE = "beff: effective bandwidth between devices, per transport"
FIGURES = {
    "ring": ("transport", "MSize bytes"),
    "exchange": ("transport", "participant", "bytes"),
    "latency": ("transport", "bytes"),
    "model": ("transport", "up to bytes"),
    "model_fitted": ("transport", "up to bytes"),
    "beff": ("transport", "devices"),
}
# What `ferry model beff` writes, under a workload name of its own.
MODEL_FIGURES = {"beff-model": {"prediction": ("transport", "devices")}}


def render(entries: list) -> str:
    series = series_per_file(entries)
    parts = [sources(entries), _b_of_l(series), _side_by_side(series), _nccl_at_its_best(series), _latency(series),
             run_notes(entries)]
    return html.section(WORKLOAD, TITLE, parts)


def _ring(s) -> list:
    """The ring rows a plot can place: each names its transport and message size."""
    return [r for r in s.section("ring") if "transport" in r.params and "MSize bytes" in r.params]


def _transports(series: list) -> list:
    names = []
    for s in series:
        for r in _ring(s):
            if r.params["transport"] not in names:
                names.append(r.params["transport"])
    return names


def _b_of_l(series: list) -> str:
    transports = _transports(series)
    if not transports:
        return ""
    fig, (ax,) = plots.panels(1, width_each=8.0, height=4.4)
    for i, s in enumerate(series):
        for t, name in enumerate(transports):
            rows = sorted((r for r in _ring(s) if r.params["transport"] == name),
                          key=lambda r: r.params["MSize bytes"])
            if not rows:
                continue
            x = [r.params["MSize bytes"] for r in rows]
            ax.plot(x, [r.value for r in rows], marker=plots.marker(i), markersize=3.5, color=plots.colour(t))
            plots.spread_band(ax, x, rows, plots.colour(t))
            modelled = [r for r in rows if r.model is not None]
            if modelled:
                ax.plot([r.params["MSize bytes"] for r in modelled], [r.model for r in modelled], linestyle=":",
                        color=plots.colour(t))
    plots.bytes_axis(ax)
    ax.set_yscale("log")
    ax.set_xlabel("message size L")
    ax.set_ylabel("b(L) of the ring, GB/s (best repetition; band: its spread)")
    plots.key_legend(ax, [(name, t) for t, name in enumerate(transports)], [s.label for s in series],
                     [("model L / (t_lat + L / B)", ":")], loc="upper left")
    return html.figure("plot-beff-bandwidth", plots.svg(fig, "plot-beff-bandwidth"),
                       "Effective bandwidth of the ring against the message size, per transport: every device sends L "
                       "bytes to its right while it receives L from its left, looplength times; b(L) = n x L x "
                       "looplength / time, the best of the repetitions as HPCC defines it. Dotted: each transport's "
                       "model, with its terms from link (p2p-ce, p2p-sm) or fitted to the transport's own smallest and "
                       "largest sizes per protocol (the others).")


def _side_by_side(series: list) -> str:
    def key_of(r):
        return (r.params.get("transport", ""), r.params.get("devices", "-"), r.params.get("one-way us", "-"),
                r.params.get("vs best NCCL", "-"))

    return figures_table(series, lambda s: s.section("beff"), ["transport", "devices", "one-way us", "vs best NCCL"],
                         key_of, "table-beff-transports")


def _latency(series: list) -> str:
    def key_of(r):
        return (r.params.get("transport", ""), r.params.get("protocol", ""), r.params.get("clock", ""))

    return figures_table(series, lambda s: s.section("latency"), ["transport", "protocol", "clock"], key_of,
                         "table-beff-latency")


NCCL_VARIANTS = ("nccl", "nccl-graph", "nccl-graph-reg")
# Files whose runs began this close together on one host with the same GPUs were made together: the runs of
# one machine, in one layout each, that a comparison with NCCL at its best may span.
TOGETHER_SECONDS = 3600


def _layout(s) -> str:
    """A rank per GPU when the exchange rows name ranks other than 0 (mpirun); else one process."""
    ranks = {r.params.get("rank", 0) for r in s.section("exchange")}
    return "a rank per GPU" if any(rank != 0 for rank in ranks) else "one process"


def _created(s):
    try:
        return datetime.fromisoformat(s.entry.results.created_utc.replace("Z", "+00:00"))
    except ValueError:
        return None


def _made_together(a, b) -> bool:
    ra, rb = a.entry.results, b.entry.results
    if ra.machine.get("host", {}).get("hostname") != rb.machine.get("host", {}).get("hostname"):
        return False
    if ra.gpus() != rb.gpus():
        return False
    ta, tb = _created(a), _created(b)
    return ta is not None and tb is not None and abs((ta - tb).total_seconds()) <= TOGETHER_SECONDS


def _nccl_at_its_best(series: list) -> str:
    """Every transport beside the best NCCL variant in either layout: the files of runs made together on one machine, a ring
    of the same size. A file's own "vs best NCCL" can see only its own layout."""
    figures = []  # (series, row, devices, layout)
    for s in series:
        for r in s.section("beff"):
            if "transport" in r.params and isinstance(r.params.get("devices"), int):
                figures.append((s, r, r.params["devices"], _layout(s)))
    lines = []
    for s, r, devices, layout in figures:
        peers = [f for f in figures if f[2] == devices and (f[0] is s or _made_together(f[0], s))]
        nccl = [f for f in peers if f[1].params["transport"] in NCCL_VARIANTS]
        if not nccl:
            continue
        best = max(nccl, key=lambda f: f[1].value)
        lines.append([r.params["transport"], layout, devices, f"{r.value / devices:.4g} GB/s",
                      f"{r.value / best[1].value:.2f}x",
                      f"{best[1].params['transport']}, {best[3]} ({best[0].label})"])
    if not lines or len({(line[1]) for line in lines}) < 2:
        return ""  # one layout: the files' own "vs best NCCL" says it all
    table = html.table(["transport", "layout", "devices", "b_eff per device", "vs NCCL at its best",
                        "NCCL at its best"], lines, table_id="table-beff-nccl-at-its-best")
    return html.paragraph("Against NCCL at its best: the NCCL variant with the highest b_eff in either layout, among "
                          "the files of runs made together on one machine (same host and GPUs, begun within an hour) with a ring "
                          "of the same size.") + table
