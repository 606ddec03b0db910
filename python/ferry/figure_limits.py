"""What the numbers of a results file can be. ferry's C++ writes a NaN or an infinity as null, so a NaN
or Infinity token (which Python's json reads) or a number too large for a float (1e999 reads as an
infinity) is never ferry's. Within a row, every time is a duration a clock measured, so above 0 s; a
measured figure (rate or latency) comes from those times, so above 0; a derived figure (computed from
other rows: beff's fitted t_lat, clamped at 0) may be 0. A model is a prediction of a rate or a time,
above 0 where there is one (ferry writes null, not 0, where there is none)."""
from __future__ import annotations

import json
import math
from typing import Optional


def first_non_finite(node, where: str = "") -> Optional[str]:
    """'machine.gpus[0].memory_bandwidth_GBps is NaN' for the first NaN or infinity in a parsed document;
    None when there is none."""
    if isinstance(node, float) and not math.isfinite(node):
        return f"{where} is {shown(node)}"
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        inner = f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else str(key)
        found = first_non_finite(value, inner)
        if found:
            return found
    return None


TIME = "a time is above 0 s"


def row_problem(row: dict, derived: bool) -> Optional[str]:
    """'stats_s.median is -1e-06: a time is above 0 s' for the first number of a row (as read, each a number
    or null where the schema allows it) that cannot be; None when all can."""
    value = row["value"]
    if derived:
        if not 0 <= value < math.inf:
            return f"value is {shown(value)}: a figure derived from other rows is 0 or above, and finite"
    elif not 0 < value < math.inf:
        return f"value is {shown(value)}: a measured {row['metric']} is above 0 and finite"
    model = row.get("model")
    if model is not None and not 0 < model < math.inf:
        return f"model is {shown(model)}: a model's prediction is above 0 and finite (null where there is none)"
    efficiency = row.get("efficiency")
    if efficiency is not None and not 0 <= efficiency < math.inf:
        return f"efficiency is {shown(efficiency)}: a share of the model is 0 or above, and finite"
    for key, seconds in (row.get("stats_s") or {}).items():
        if not 0 < seconds < math.inf:
            return f"stats_s.{key} is {shown(seconds)}: {TIME}"
    for i, seconds in enumerate(row.get("samples_s") or []):
        if not 0 < seconds < math.inf:
            return f"samples_s[{i}] is {shown(seconds)}: {TIME}"
    moved = row.get("bytes_per_sample")
    if moved is not None and not 0 <= moved < math.inf:
        return f"bytes_per_sample is {shown(moved)}: a count of bytes is 0 or above, and finite"
    return None


def shown(number) -> str:
    """The number as the file spells it: NaN, Infinity, -1e-06."""
    return json.dumps(number)
