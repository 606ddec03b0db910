"""matplotlib set up once for the report: SVG with real text, one look for every plot."""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # no display: plots are only ever written to SVG
from matplotlib import pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

from .text import format_bytes, format_count  # noqa: E402

plt.rcParams.update({
    "svg.fonttype": "none",      # text stays text: smaller, searchable, crisp at any zoom
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.fontsize": 8,
    "legend.frameon": False,
})

# A category (memory kind, design, rung) gets a colour; a series (a results
# file, or one device of it) gets a marker, so overlaid machines stay apart.
# Beyond tab10's ten (the dispatch ladder has twelve rungs), dark colours none of them is near.
COLOURS = plt.get_cmap("tab10").colors + ((0.0, 0.0, 0.0), (0.5, 0.0, 0.0), (0.0, 0.0, 0.5))
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def colour(i: int):
    return COLOURS[i % len(COLOURS)]


def marker(i: int) -> str:
    return MARKERS[i % len(MARKERS)]


def panels(count: int, width_each: float = 4.6, height: float = 3.4):
    fig, axes = plt.subplots(1, count, figsize=(width_each * count, height), squeeze=False)
    return fig, list(axes[0])


# Every size and count ferry writes fits in 64 bits; a log axis reaching much
# further overflows while matplotlib pads its limits (about 1e308 and up).
LARGEST_X = float(2**64)


def _require_drawable_x(ax, what: str) -> None:
    """A log axis draws only positive values, and every size or count ferry
    writes is a positive number below 2^64; an axis whose drawn points have
    no positive value, or a value beyond that, comes from a file ferry did
    not write, and is refused (ValueError) instead of drawn empty or broken."""
    xs = [float(x) for line in ax.get_lines() for x in line.get_xdata()]
    if xs and not any(x > 0 for x in xs):
        raise ValueError(f"no {what} on the plot is a positive number")
    if any(not x <= LARGEST_X for x in xs if x == x):   # NaN is masked, not drawn
        raise ValueError(f"a {what} on the plot is beyond 2^64")


def bytes_axis(ax) -> None:
    """A log2 x axis of sizes labelled 4 KiB, 1 MiB, ..."""
    _require_drawable_x(ax, "size")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(LogLocator(base=2, numticks=7))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_bytes(v) if v >= 1 else ""))
    ax.xaxis.set_minor_formatter(NullFormatter())


def count_axis(ax) -> None:
    """A log2 x axis of counts labelled 1, 16, 1 Ki, ..."""
    _require_drawable_x(ax, "count")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(LogLocator(base=2, numticks=10))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_count(v) if v >= 1 else ""))
    ax.xaxis.set_minor_formatter(NullFormatter())


def discard_open() -> None:
    """Closes every figure a renderer opened and did not finish (it refused its rows, or failed)."""
    plt.close("all")


def svg(fig, plot_id: str) -> str:
    """The figure as an inline <svg> element. Each plot salts matplotlib's ids with
    its own name, so clip paths and markers of different plots never collide on the page."""
    with plt.rc_context({"svg.hashsalt": plot_id}):
        buffer = io.StringIO()
        fig.tight_layout()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def key_legend(ax, categories: list, series: list, extras: list = (), **where) -> None:
    """A legend that names each colour (a category) and each marker (a series) once,
    rather than every pairing of them, so overlaying files does not bury the plot.
    categories: [(label, colour index)]; series: [labels] (no marker key when only one);
    extras: [(label, line style)] for model or reference lines."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colour(c), linewidth=2) for _, c in categories]
    labels = [label for label, _ in categories]
    if len(series) > 1:
        handles += [Line2D([], [], color="0.35", marker=marker(i), linestyle="none") for i in range(len(series))]
        labels += list(series)
    handles += [Line2D([], [], color="0.3", linestyle=style) for _, style in extras]
    labels += [label for label, _ in extras]
    ax.legend(handles, labels, **where)


def spread_band(ax, x: list, rows: list, colour, scale: float = 1.0) -> None:
    """Shades each row's spread (Row.spread: p99..min) around its line, when every row has one."""
    spreads = [r.spread() for r in rows]
    if spreads and all(spreads):
        ax.fill_between(x, [lo * scale for lo, _ in spreads], [hi * scale for _, hi in spreads], color=colour,
                        alpha=0.15, linewidth=0)


def error_bars(rows: list) -> list:
    """[below, above]: whisker lengths from each row's value to the ends of its spread (zero without one)."""
    spreads = [r.spread() or (r.value, r.value) for r in rows]
    return [[max(0.0, r.value - lo) for r, (lo, _) in zip(rows, spreads)],
            [max(0.0, hi - r.value) for r, (_, hi) in zip(rows, spreads)]]
