"""Numbers and parameters as ferry's own tables print them: sizes in KiB/MiB/GiB,
rates in GB/s, latencies in us or ms."""
from __future__ import annotations

import math


def _not_finite(n) -> bool:
    """An infinite or NaN size or count: never written by ferry, shown as it is."""
    return isinstance(n, float) and not math.isfinite(n)


def format_bytes(n) -> str:
    if _not_finite(n):
        return str(n)
    n = int(n)
    # Exact, as ferry's tables print sizes: in the unit where eighths of it say the size (1.5 KiB), else in
    # bytes (4099 B, not a rounded "4.00 KiB").
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:g} {unit}" if n % (size // 8) == 0 else f"{n} B"
    return f"{n} B"


def format_count(n) -> str:
    """Key counts and splits: 32768 -> 32 Ki, as ferry's --keys takes them."""
    if _not_finite(n):
        return str(n)
    n = int(n)
    for unit, size in (("Mi", 1 << 20), ("Ki", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return str(n)


def format_param(key: str, value) -> str:
    if key.endswith("bytes") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_bytes(value)
    return str(value)


def format_params(params: dict) -> str:
    return ", ".join(f"{k}={format_param(k, v)}" for k, v in params.items())


def format_value(value: float, unit: str) -> str:
    if unit == "us" and value >= 10000:
        return f"{value / 1000:.2f} ms"
    if abs(value) >= 100:
        return f"{value:.1f} {unit}"
    return f"{value:.3g} {unit}" if abs(value) < 1 else f"{value:.2f} {unit}"


def table(header: list, rows: list) -> str:
    """A plain aligned text table, numbers right-aligned."""
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]

    def line(r):
        return "  ".join(c.rjust(w) if _numeric(c) else c.ljust(w) for c, w in zip(r, widths)).rstrip()

    return "\n".join([line(cells[0]), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]])


def _numeric(cell: str) -> bool:
    head = cell.split(" ")[0].lstrip("+-")
    return bool(head) and head.replace(".", "", 1).isdigit()
