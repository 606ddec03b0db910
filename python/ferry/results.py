"""ferry's results JSON (schema ferry.results/1, docs/results.md), read and checked once.

Everything downstream (the report, compare) works on these records and never
on raw JSON, so a malformed file fails here with one message naming it.
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .checksum import json_checksum
from .figure_limits import first_non_finite, row_problem
from .text import format_params

SCHEMA = "ferry.results/1"


class ResultsError(Exception):
    """A file that cannot be read as ferry results; the message names the file."""


@dataclass(frozen=True)
class Row:
    section: str
    params: dict
    metric: str              # "rate" (higher is better) or "latency" (lower is better)
    unit: str
    value: float
    model: Optional[float]
    model_basis: str
    efficiency: Optional[float]
    check: str               # PASSED, FAILED or n/a
    stats_s: dict            # min, median, mean, p99, max of the timed samples, in seconds
    note: str
    headline: str = "median"  # which sample value is: the median, or the best (beff's b(L), by definition)
    samples_s: tuple = ()    # every timed sample, in seconds, in the order taken; () where the file holds none

    def spread(self) -> Optional[tuple[float, float]]:
        """The figure's spread in its own unit, (low, high): p99 and min turned into the
        same quantity as value, so an error bar reads beside the median."""
        fastest, slow = self.stats_s.get("min"), self.stats_s.get("p99")
        if not fastest or not slow:
            return None
        # The sample that value stands for: the median, or the best one.
        anchor = fastest if self.headline == "best" else self.stats_s.get("median")
        if not anchor:
            return None
        # Scale by that sample's own ratio to value, so whatever the row counts
        # (per kernel, both directions, microseconds) carries over unchanged.
        if self.metric == "rate":
            return self.value * anchor / slow, self.value * anchor / fastest
        return self.value * fastest / anchor, self.value * slow / anchor


@dataclass(frozen=True)
class Finding:
    """A judgment rather than a measurement (`ferry doctor`'s checks): one check of one subject."""
    check: str
    subject: str             # "host", "GPU 0", "GPU 0 -> 1"
    verdict: str             # OK, WARN, FAIL, or - (not judged)
    measured: str
    expected: str
    basis: str               # what expected comes from
    cause: str               # "" where there is nothing to explain
    action: str
    value: Optional[float] = None   # where the check is a figure: B/s (seconds for pass time)
    model: Optional[float] = None   # what value was held against


VERDICTS = ("OK", "WARN", "FAIL", "-")


@dataclass(frozen=True)
class Workload:
    name: str
    verification: str
    config: dict
    sections: dict           # section id -> title, in the run's order
    rows: list
    skipped: list
    notes: list
    for_model: bool          # a link run only to give another workload's model its ceilings
    rows_match_checksum: Optional[bool] = None  # None: the file carries no checksum (written before ferry had one)
    findings: list = field(default_factory=list)  # Finding, in the order they were made; [] where there are none

    def rows_in(self, section: str) -> list:
        return [r for r in self.rows if r.section == section]


@dataclass(frozen=True)
class Incomplete:
    """A run that ended early (a signal, an error, a poll timeout): the rows it had, left in `<json path>.partial`."""
    reason: str          # "interrupted by SIGINT", "SIGTERM", or the error's message
    rows_done: int       # rows in the file, over all workloads
    steps_done: int      # progress steps begun when it ended
    steps_planned: int   # progress steps the run planned; 0 when unknown

    def describe(self) -> str:
        """'interrupted by SIGINT: 11 rows, 12 of 40 steps'"""
        rows = f"{self.rows_done} row{'' if self.rows_done == 1 else 's'}"
        steps = (f"{self.steps_done} of {self.steps_planned} steps" if self.steps_planned else
                 f"{self.steps_done} steps of a plan whose size the run did not know")
        return f"{self.reason}: {rows}, {steps}"


@dataclass(frozen=True)
class Results:
    path: Path
    label: str
    created_utc: str
    command_line: list
    verification: str
    machine: dict
    workloads: list = field(default_factory=list)
    incomplete: Optional[Incomplete] = None   # None for a run that went to its end
    source_commit: str = ""   # the commit of the code that made it; "" in files from before ferry recorded it

    def workload(self, name: str) -> Optional[Workload]:
        return next((w for w in self.workloads if w.name == name), None)

    def edited_workloads(self) -> list:
        """The workloads whose rows no longer match the checksum ferry wrote beside them."""
        return [w.name for w in self.workloads if w.rows_match_checksum is False]

    def gpus(self) -> str:
        """'NVIDIA H100 80GB HBM3', '2 x NVIDIA H200', or 'no GPU'."""
        names = [g.get("name", "?") for g in self.machine.get("gpus", [])]
        counted = {name: names.count(name) for name in names}
        return ", ".join(name if n == 1 else f"{n} x {name}" for name, n in counted.items()) or "no GPU"


def load(path, label: Optional[str] = None) -> Results:
    """Reads and checks one results file, plain or gzipped (large ones are kept
    gzipped, docs/results.md). Raises ResultsError naming the file and the problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ResultsError(f"cannot read '{path}': {e.strerror or e}") from None
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise ResultsError(f"'{path}' is not a ferry results file: a gzip file that does not unpack ({e})") from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ResultsError(f"'{path}' is not a ferry results file: not UTF-8 text ({e.reason})") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"'{path}' is not a ferry results file: not JSON ({e.msg} at line {e.lineno})") from None
    try:
        return _results(doc, path, label or _stem(path))
    except _Impossible as e:
        raise ResultsError(f"'{path}' holds a number that cannot be: {e}") from None
    except _Malformed as e:
        raise ResultsError(f"'{path}' is not a ferry results file: {e}") from None


_GZIP_MAGIC = b"\x1f\x8b"


def _stem(path: Path) -> str:
    """The file's name without .json or .json.gz: the default label."""
    return Path(path.name.removesuffix(".gz")).stem or path.stem


class _Malformed(Exception):
    pass


class _Impossible(_Malformed):
    """Every field has its type, and a number in it cannot be (figure_limits.py)."""


_NUMBER = (int, float)


def _get(obj: dict, key: str, kinds, where: str, optional: bool = False) -> Any:
    if key not in obj:
        if optional:
            return None
        raise _Malformed(f"{where}{key} is missing")
    value = obj[key]
    if value is None and optional:
        return None
    allowed = kinds if isinstance(kinds, tuple) else (kinds,)
    # JSON's true is a Python int too; a number field must not take it.
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        raise _Malformed(f"{where}{key} is {json.dumps(value)[:40]}, not {_kind_name(kinds)}")
    return value


def _kind_name(kinds) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join(sorted({names.get(k, k.__name__) for k in kinds}))


def _results(doc: Any, path: Path, label: str) -> Results:
    if not isinstance(doc, dict):
        raise _Malformed("the document is not a JSON object")
    schema = doc.get("schema")
    if schema is None:
        raise _Malformed(f"it has no 'schema' field (expected \"{SCHEMA}\")")
    if schema != SCHEMA:
        raise _Malformed(f"its schema is \"{schema}\"; this reader knows \"{SCHEMA}\"")
    workloads = _get(doc, "workloads", list, "")
    if not workloads:
        raise _Malformed("workloads is empty")
    parsed = [_workload(w, f"workloads[{i}].", for_model=(len(workloads) > 1 and i < len(workloads) - 1))
              for i, w in enumerate(workloads)]
    # The rows are checked above, each named by its figure; this finds the rest (params, config, machine).
    non_finite = first_non_finite(doc)
    if non_finite:
        raise _Impossible(f"{non_finite} (ferry writes no NaN or infinity)")
    return Results(
        path=path,
        label=label,
        created_utc=_get(doc, "created_utc", str, "", optional=True) or "",
        command_line=_command_line(doc),
        verification=_get(doc, "verification", str, ""),
        machine=_machine(_get(doc, "machine", dict, "")),
        workloads=parsed,
        incomplete=_incomplete(doc),
        source_commit=_get(doc, "source_commit", str, "", optional=True) or "",
    )


def _incomplete(doc: dict) -> Optional[Incomplete]:
    found = _get(doc, "incomplete", dict, "", optional=True)
    if found is None:
        return None
    reason = _get(found, "reason", str, "incomplete.")
    return Incomplete(reason, *(_count(found, key, "incomplete.") for key in ("rows_done", "steps_done", "steps_planned")))


def _count(obj: dict, key: str, where: str) -> int:
    if key not in obj:
        raise _Malformed(f"{where}{key} is missing")
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _Malformed(f"{where}{key} is {json.dumps(value)[:40]}, not a count")
    return value


def _command_line(doc: dict) -> list:
    # Every word a string: the report joins them (found by fuzzing: `"command_line": [null]` crashed it).
    words = _get(doc, "command_line", list, "", optional=True) or []
    for i, word in enumerate(words):
        if not isinstance(word, str):
            raise _Malformed(f"command_line[{i}] is {json.dumps(word)[:40]}, not a string")
    return words


# The machine facts the report and compare print, and what each must be when
# present. A fact that is missing or null is left out, and its reader shows
# "?" or nothing (found by fuzzing: `"gpus": null` and `"gpus": [null]`
# crashed compare).
_MACHINE_FACTS = {"backend": str, "timings": str, "driver_version": str, "runtime_version": str}
_HOST_FACTS = {"hostname": str, "cpu": str, "os": str, "logical_cores": _NUMBER, "memory_bytes": _NUMBER}
_GPU_FACTS = {"index": _NUMBER, "name": str, "pci_bus_id": str, "memory_bytes": _NUMBER, "multiprocessors": _NUMBER,
              "compute_capability": str, "memory_bandwidth_GBps": _NUMBER, "nvlinks": _NUMBER}
_PCIE_FACTS = {"generation": _NUMBER, "width": _NUMBER, "max_generation": _NUMBER, "max_width": _NUMBER, "source": str}
_PEER_FACTS = {"from": _NUMBER, "to": _NUMBER, "direct_access": bool, "nvlinks": _NUMBER, "nvlink_version": _NUMBER}


def _facts(obj: dict, kinds: dict, where: str) -> dict:
    """obj's known facts, each checked; unknown keys pass through, null ones are dropped."""
    out = {k: v for k, v in obj.items() if k not in kinds}
    for key, kind in kinds.items():
        value = _get(obj, key, kind, where, optional=True)
        if value is not None:
            out[key] = value
    return out


def _objects(obj: dict, key: str, where: str) -> list:
    items = _get(obj, key, list, where, optional=True) or []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise _Malformed(f"{where}{key}[{i}] is {json.dumps(item)[:40]}, not an object")
    return items


def _machine(m: dict) -> dict:
    machine = _facts(m, _MACHINE_FACTS, "machine.")
    host = _get(m, "host", dict, "machine.", optional=True)
    machine["host"] = _facts(host, _HOST_FACTS, "machine.host.") if host is not None else {}
    gpus = []
    for i, g in enumerate(_objects(m, "gpus", "machine.")):
        where = f"machine.gpus[{i}]."
        gpu = _facts(g, _GPU_FACTS, where)
        pcie = _get(g, "pcie", dict, where, optional=True)
        gpu["pcie"] = _facts(pcie, _PCIE_FACTS, f"{where}pcie.") if pcie is not None else {}
        gpus.append(gpu)
    machine["gpus"] = gpus
    machine["peers"] = [_facts(p, _PEER_FACTS, f"machine.peers[{i}].") for i, p in enumerate(_objects(m, "peers", "machine."))]
    return machine


def _workload(w: Any, where: str, for_model: bool) -> Workload:
    if not isinstance(w, dict):
        raise _Malformed(f"{where[:-1]} is not an object")
    name = _get(w, "name", str, where)
    sections = {}
    for i, s in enumerate(_get(w, "sections", list, where, optional=True) or []):
        if not isinstance(s, dict):
            raise _Malformed(f"{where}sections[{i}] is not an object")
        sections[_get(s, "id", str, f"{where}sections[{i}].")] = s.get("title", "")
    raw_rows = _get(w, "rows", list, where)
    rows = [_row(r, f"{where}rows[{i}].", name) for i, r in enumerate(raw_rows)]
    checksum = _get(w, "rows_checksum", str, where, optional=True)
    for r in rows:
        sections.setdefault(r.section, r.section)
    return Workload(
        name=name,
        verification=_get(w, "verification", str, where),
        config=_get(w, "config", dict, where, optional=True) or {},
        sections=sections,
        rows=rows,
        skipped=[str(s) for s in _get(w, "skipped", list, where, optional=True) or []],
        notes=[str(s) for s in _get(w, "notes", list, where, optional=True) or []],
        for_model=for_model and name == "link",
        rows_match_checksum=None if checksum is None else checksum == json_checksum(raw_rows),
        findings=[_finding(f, f"{where}findings[{i}].")
                  for i, f in enumerate(_get(w, "findings", list, where, optional=True) or [])],
    )


_FINDING_TEXTS = ("check", "subject", "verdict", "measured", "expected", "basis", "cause", "action")


def _finding(f: Any, where: str) -> Finding:
    """Every text field ferry writes is required (empty where there is nothing to say), so a
    record cut short is refused rather than shown as a check with no verdict or no cause."""
    if not isinstance(f, dict):
        raise _Malformed(f"{where[:-1]} is not an object")
    texts = {key: _get(f, key, str, where) for key in _FINDING_TEXTS}
    if texts["verdict"] not in VERDICTS:
        raise _Malformed(f"{where}verdict is {json.dumps(texts['verdict'])[:40]}, not "
                         + ", ".join(f'"{v}"' for v in VERDICTS[:-1]) + f' or "{VERDICTS[-1]}"')
    return Finding(**texts, value=_optional_float(_get(f, "value", _NUMBER, where, optional=True)),
                   model=_optional_float(_get(f, "model", _NUMBER, where, optional=True)))


def _row(r: Any, where: str, workload: str) -> Row:
    if not isinstance(r, dict):
        raise _Malformed(f"{where[:-1]} is not an object")
    metric = _get(r, "metric", str, where)
    if metric not in ("rate", "latency"):
        raise _Malformed(f"{where}metric is \"{metric}\", not \"rate\" or \"latency\"")
    stats = _get(r, "stats_s", dict, where, optional=True) or {}
    for key, value in stats.items():
        if not isinstance(value, _NUMBER) or isinstance(value, bool):
            raise _Malformed(f"{where}stats_s.{key} is {json.dumps(value)[:40]}, not a number")
    samples = _get(r, "samples_s", list, where, optional=True) or []
    for i, value in enumerate(samples):
        if not isinstance(value, _NUMBER) or isinstance(value, bool):
            raise _Malformed(f"{where}samples_s[{i}] is {json.dumps(value)[:40]}, not a number")
    section, params = _get(r, "section", str, where), _get(r, "params", dict, where)
    for key in ("value", "model", "efficiency", "bytes_per_sample"):
        _get(r, key, _NUMBER, where, optional=key != "value")
    problem = row_problem(r, derived=_get(r, "derived", bool, where, optional=True) or False)
    if problem:
        raise _Impossible(f"{workload} {section} ({format_params(params)}), {where[:-1]}: {problem}")
    return Row(
        section=section,
        params=params,
        metric=metric,
        unit=_get(r, "unit", str, where),
        value=float(_get(r, "value", _NUMBER, where)),
        model=_optional_float(_get(r, "model", _NUMBER, where, optional=True)),
        model_basis=_get(r, "model_basis", str, where, optional=True) or "",
        efficiency=_optional_float(_get(r, "efficiency", _NUMBER, where, optional=True)),
        check=_get(r, "check", str, where),
        stats_s=stats,
        note=_get(r, "note", str, where, optional=True) or "",
        headline=_headline(r, where),
        samples_s=tuple(float(v) for v in samples),
    )


def _headline(r: dict, where: str) -> str:
    headline = _get(r, "headline", str, where, optional=True) or "median"
    if headline not in ("median", "best"):
        raise _Malformed(f"{where}headline is \"{headline}\", not \"median\" or \"best\"")
    return headline


def _optional_float(value) -> Optional[float]:
    return None if value is None else float(value)
