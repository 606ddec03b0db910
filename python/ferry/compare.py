"""ferry compare: the ratio NEW / BASE for every figure both files hold, and
which of them got worse by more than a threshold."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import sections
from .results import Incomplete, Results, Row
from .text import format_params, format_value, table

# The params that name a figure, per (workload, section), as each module under
# ferry/sections declares them. A row's other params are results of its run (a
# speedup, the best chunk, a delta) and change from run to run of the same
# figure. Sections not listed are named by all their params.
FIGURE_PARAMS = sections.figures()


def figure_name(workload: str, row: Row) -> tuple:
    keys = FIGURE_PARAMS.get((workload, row.section))
    params = row.params if keys is None else {k: row.params[k] for k in keys if k in row.params}
    return workload, row.section, format_params(params)


@dataclass(frozen=True)
class Figure:
    workload: str
    section: str
    name: str
    unit: str
    base: Row
    new: Row

    @property
    def ratio(self) -> float:
        # A figure that is 0 in both runs (beff's fitted model term, for one) is unchanged, not infinitely worse.
        if not self.base.value:
            return 1.0 if not self.new.value else float("inf")
        return self.new.value / self.base.value

    def verdict(self, threshold: float) -> str:
        """'FAILED' when NEW's data arrived wrong, 'BASE FAILED' when only BASE's did
        (a ratio to a wrong reference says nothing), else 'regressed', 'improved' or
        'same': worse or better by more than the threshold, in the figure's own sense
        (a rate should rise, a latency fall)."""
        if self.new.check == "FAILED":
            return "FAILED"
        if self.base.check == "FAILED":
            return "BASE FAILED"
        fell, rose = self.ratio < 1 - threshold, self.ratio > 1 + threshold
        worse, better = (fell, rose) if self.new.metric == "rate" else (rose, fell)
        return "regressed" if worse else "improved" if better else "same"


# Rows named in a refusal before the rest are counted.
NAMED_FAILED_ROWS = 5


@dataclass(frozen=True)
class FailedInput:
    """What in one input failed verification: its rows whose check FAILED, each named
    by workload, section and the params that find it, and whether its run's
    verification (or a workload's) says FAILED."""
    role: str          # "BASE" or "NEW"
    path: Path
    rows: list
    run_failed: bool

    def describe(self) -> str:
        """"'new.json' (NEW): 2 rows FAILED their check: link bandwidth (device=0); ..." """
        n = len(self.rows)
        if not n:
            return f"'{self.path}' ({self.role}): its verification says FAILED"
        named = "; ".join(self.rows[:NAMED_FAILED_ROWS])
        more = f"; and {n - NAMED_FAILED_ROWS} more" if n > NAMED_FAILED_ROWS else ""
        return (f"'{self.path}' ({self.role}): {n} row{'s' if n > 1 else ''} FAILED "
                f"{'their' if n > 1 else 'its'} check: {named}{more}")


def failed_input(results: Results, role: str) -> Optional[FailedInput]:
    """Nothing when every row of `results` passed or had nothing to check and its run passed."""
    rows = []
    for workload in results.workloads:
        for row in workload.rows:
            if row.check == "FAILED":
                _, section, name = figure_name(workload.name, row)
                rows.append(f"{workload.name} {section} ({name})")
    run_failed = results.verification == "FAILED" or any(w.verification == "FAILED" for w in results.workloads)
    return FailedInput(role, results.path, rows, run_failed) if rows or run_failed else None


def failed_inputs(base: Results, new: Results) -> list:
    """The inputs, BASE then NEW, whose data arrived wrong somewhere."""
    return [f for f in (failed_input(base, "BASE"), failed_input(new, "NEW")) if f is not None]


def refusal(failed: list) -> str:
    """Why `ferry compare` will not compare these inputs without --allow-failed."""
    return ("a comparison with data that arrived wrong measures nothing: "
            + ". ".join(f.describe() for f in failed)
            + ". Rerun them, or give --allow-failed to compare anyway (every line then says which input FAILED)")


@dataclass(frozen=True)
class IncompleteInput:
    """An input whose run ended early: it holds only the figures finished before then."""
    role: str          # "BASE" or "NEW"
    path: Path
    incomplete: Incomplete

    def describe(self) -> str:
        """"'new.json.partial' (NEW) is incomplete: interrupted by SIGINT: 11 rows, 12 of 40 steps" """
        return f"'{self.path}' ({self.role}) is incomplete: {self.incomplete.describe()}"


def incomplete_inputs(base: Results, new: Results) -> list:
    """The inputs, BASE then NEW, whose runs ended early."""
    return [IncompleteInput(role, r.path, r.incomplete) for role, r in (("BASE", base), ("NEW", new))
            if r.incomplete is not None]


def incomplete_refusal(incomplete: list) -> str:
    """Why `ferry compare` will not compare these inputs without --allow-incomplete."""
    return ("a run that ended early holds only some of its figures: " + ". ".join(i.describe() for i in incomplete)
            + ". Compare runs that went to their end, or give --allow-incomplete to compare the figures both hold "
              "(the output then says which file is incomplete)")


@dataclass(frozen=True)
class Comparison:
    base: Results
    new: Results
    threshold: float
    figures: list
    only_in_base: list
    only_in_new: list
    failed_inputs: tuple = ()   # FailedInput of BASE and NEW, where their data arrived wrong
    incomplete_inputs: tuple = ()   # IncompleteInput of BASE and NEW, where their runs ended early

    @property
    def emulated(self) -> list:
        """'BASE', 'NEW': the inputs whose timings are the emulator's CPU timings."""
        return [role for role, r in (("BASE", self.base), ("NEW", self.new)) if emulated_timings(r)]

    def verdict(self, figure: Figure) -> str:
        """The figure's verdict, or 'not judged' where an input's timings are CPU timings: they move with the
        machine's load, past any threshold. Data that arrived wrong is judged all the same."""
        verdict = figure.verdict(self.threshold)
        return NOT_JUDGED if self.emulated and verdict in ("regressed", "improved", "same") else verdict

    def regressions(self) -> list:
        return [f for f in self.figures if self.verdict(f) in ("regressed", "FAILED")]

    @property
    def failed(self) -> bool:
        return bool(self.regressions()) or self.new.verification == "FAILED"


NOT_JUDGED = "not judged"


def emulated_timings(results: Results) -> bool:
    """Timings of ferry's CPU emulator (machine.backend "emu", machine.timings "emulated: CPU timings, not GPU
    timings"), not of a GPU."""
    return (results.machine.get("backend") == "emu"
            or str(results.machine.get("timings", "")).startswith("emulated"))


class NothingToCompare(Exception):
    pass


def compare(base: Results, new: Results, threshold: float, only: tuple = ()) -> Comparison:
    """only: 'workload' or 'workload/section' names; figures elsewhere are left out."""
    base_rows = _figures(base, only)
    new_rows = _figures(new, only)
    figures = [Figure(w, s, n, row.unit, row, new_rows[(w, s, n)])
               for (w, s, n), row in base_rows.items() if (w, s, n) in new_rows
               and new_rows[(w, s, n)].unit == row.unit]
    if not figures:
        within = f" within {', '.join(only)}" if only else ""
        raise NothingToCompare(
            f"'{base.path}' and '{new.path}' hold no figure in common{within} "
            f"(workloads {_names(base)} vs {_names(new)}); compare runs of the same workload and settings")
    return Comparison(
        base=base, new=new, threshold=threshold, figures=figures,
        only_in_base=[k for k in base_rows if k not in new_rows],
        only_in_new=[k for k in new_rows if k not in base_rows],
        failed_inputs=tuple(failed_inputs(base, new)),
        incomplete_inputs=tuple(incomplete_inputs(base, new)),
    )


def _names(results: Results) -> str:
    return ", ".join(w.name for w in results.workloads)


def _figures(results: Results, only: tuple) -> dict:
    """Each row under its figure name. A row named twice in one file (which
    ferry does not write) keeps its place with a #2 suffix rather than hiding one."""
    named = {}
    for workload in results.workloads:
        # The link run inside a stream or dispatch file is there for that model,
        # with settings of its own; it is compared only against the same.
        prefix = "link (for the model)" if workload.for_model else workload.name
        for row in workload.rows:
            if only and workload.name not in only and f"{workload.name}/{row.section}" not in only:
                continue
            _, section, name = figure_name(workload.name, row)
            key, n = (prefix, section, name), 2
            while key in named:
                key, n = (prefix, section, f"{name} #{n}"), n + 1
            named[key] = row
    return named


def _made(results) -> str:
    """When, and by which commit's code, a file was made: what a figure that moved is traced back to."""
    commit = f"commit {results.source_commit}" if results.source_commit else "commit not recorded"
    return f"{commit}, {results.created_utc or 'no date'}"


def render(comparison: Comparison, show: str = "all") -> str:
    """The table of ratios and a one-line summary. show='changed' leaves out
    figures whose verdict is 'same'. When an input failed verification, every
    line begins with a marker naming it, so no line reads as a clean comparison."""
    t = comparison.threshold
    lines = [
        f"BASE {comparison.base.path}: {_machine(comparison.base)}; {_made(comparison.base)}",
        f"NEW  {comparison.new.path}: {_machine(comparison.new)}; {_made(comparison.new)}",
    ]
    if _machine(comparison.base) != _machine(comparison.new):
        lines.append("note: the two files come from different machines or backends; their ratios compare machines, not code")
    lines.extend(f"note: {i.describe()}; the figures its run did not reach are not compared"
                 for i in comparison.incomplete_inputs)
    if comparison.emulated:
        lines.append(f"note: {' and '.join(comparison.emulated)} {'hold' if len(comparison.emulated) > 1 else 'holds'} "
                     "the emulator's timings: CPU timings, not GPU timings, which vary with the machine's load. "
                     "The ratios are printed, not judged: no figure counts as regressed or improved (one that "
                     "FAILED its check still does)")
    lines.append("")
    rows = []
    for f in comparison.figures:
        if show == "changed" and f.verdict(t) == "same":   # past the threshold either way, judged or not
            continue
        rows.append([f.workload, f.section, f.name, format_value(f.base.value, f.unit),
                     format_value(f.new.value, f.unit), f"{f.ratio:.3f}", _better_word(f), comparison.verdict(f)])
    if rows:
        lines.append(table(["workload", "section", "figure", "base", "new", "new/base", "better if", "verdict"], rows))
    regressed = comparison.regressions()
    counts = {v: sum(1 for f in comparison.figures if f.verdict(t) == v)
              for v in ("regressed", "FAILED", "BASE FAILED", "improved", "same")}
    lines.append("")
    in_base = f"{counts['BASE FAILED']} failed verification in BASE, " if counts["BASE FAILED"] else ""
    judged = (f"{counts['regressed']} regressed, {counts['FAILED']} failed verification in NEW, {in_base}"
              f"{counts['improved']} improved" if not comparison.emulated else
              f"{NOT_JUDGED} (CPU timings), {counts['FAILED']} failed verification in NEW, {in_base}"
              f"{counts['regressed'] + counts['improved']} moved past the threshold")
    lines.append(f"{len(comparison.figures)} figures compared at a {t * 100:g}% threshold: {judged}, "
                 f"{counts['same']} within the threshold")
    if comparison.only_in_base or comparison.only_in_new:
        lines.append(f"{len(comparison.only_in_base)} figures only in BASE, {len(comparison.only_in_new)} only in NEW (not compared)")
    lines.extend(failed.describe() for failed in comparison.failed_inputs)
    if comparison.new.verification == "FAILED":
        lines.append("NEW's verification FAILED: some of its data arrived wrong")
    if regressed:
        worst = min(regressed, key=lambda f: f.ratio if f.new.metric == "rate" else 1 / f.ratio if f.ratio else 0)
        lines.append(f"REGRESSED: worst is {worst.workload} {worst.section} {worst.name}: "
                     f"{format_value(worst.base.value, worst.unit)} -> {format_value(worst.new.value, worst.unit)}")
    return _marked(lines, comparison.failed_inputs) + "\n"


def _marked(lines: list, failed: tuple) -> str:
    """The lines, each non-empty one (a table's too) after a marker naming the inputs that FAILED."""
    text = "\n".join(lines)
    if not failed:
        return text
    marker = f"[FAILED input: {' and '.join(f.role for f in failed)}] "
    return "\n".join(marker + line if line else line for line in text.split("\n"))


def _better_word(f: Figure) -> str:
    return "higher" if f.new.metric == "rate" else "lower"


def _machine(results: Results) -> str:
    return f"{results.machine.get('backend', '?')}, {results.gpus()}"


def parse_threshold(text: str) -> float:
    """'5%' or '5' -> 0.05. Raises ValueError naming the text."""
    raw = text.strip()
    number = raw[:-1] if raw.endswith("%") else raw
    try:
        percent = float(number)
    except ValueError:
        raise ValueError(f"threshold '{text}' is not a percentage (e.g. 5%)") from None
    if not 0 <= percent < 100 or percent != percent:
        raise ValueError(f"threshold '{text}' must be at least 0% and below 100%")
    return percent / 100

