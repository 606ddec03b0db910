"""Parity with NCCL's own harness: beff's ring beside nccl-tests' sendrecv_perf, size by size.

Both measure the same ring: each rank r sends L bytes to r+1 while it receives
L from r-1. For each pairing (a layout, one of ferry's NCCL variants in a beff
results file, and the sendrecv_perf output run beside it) and each size from
8 B to 2 MiB, the ratio of

- ferry's time per exchange: the `ring` row of the transport and size, the
  median of its samples (one per repetition, each the slowest device's time
  for looplength exchanges, by CUDA events; the middle sample, or the mean of
  the two middle ones) divided by looplength; and
- nccl-tests' time per iteration: the out-of-place `time` column (us: the host
  clock around its -n iterations, through the streams' synchronize, divided by
  n, and by the graph launches under -G; over ranks as its -a says: their
  mean by default, the slowest with -a 3), the median over its rows of that
  size (one per -N cycle).

A ratio up to 1.05 is within parity; ferry slower than that is over.

Exit codes: 0 the table was printed, whatever its verdicts; 1 an nccl-tests
output whose own check found wrong data (a non-zero #wrong), as ferry exits 1
when data arrives wrong; 2 input the table cannot stand on: a missing or
malformed file, a ferry results file that FAILED verification (refused as
`ferry compare` refuses it), no ring rows of the transport, an nccl-tests
output with no rows or rows it did not check (-c 0), the two sides' rings of
different sizes, or a bad option."""
from __future__ import annotations

import argparse
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .compare import failed_input
from .results import Results, ResultsError, Row, load
from .text import format_bytes, table

OK, WRONG_DATA, BAD_INPUT = 0, 1, 2
PARITY = 1.05
SMALLEST, LARGEST = 8, 2 << 20   # nccl-tests' sweep -b 8 -e 2M -f 2 (ferry's definition goes down to 1 B)


class ParityError(Exception):
    """Input the table cannot be made from; the message names the file, code is the exit code."""

    def __init__(self, message: str, code: int = BAD_INPUT):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Pairing:
    layout: str        # "one process", "rank per GPU", ...
    results: Path      # ferry's beff results file
    transport: str     # nccl, nccl-graph or nccl-graph-reg
    nccl_tests: Path   # sendrecv_perf's output, run in the same layout


@dataclass(frozen=True)
class SizeParity:
    bytes: int
    ferry_s: Optional[float]        # per exchange; None where ferry has no row of this size
    nccl_tests_s: Optional[float]   # per iteration; None where nccl-tests has none

    @property
    def ratio(self) -> Optional[float]:
        if self.ferry_s is None or self.nccl_tests_s is None:
            return None
        return self.ferry_s / self.nccl_tests_s

    @property
    def verdict(self) -> str:
        if self.ferry_s is None:
            return "missing in ferry"
        if self.nccl_tests_s is None:
            return "missing in nccl-tests"
        return f"within {PARITY}" if self.ratio <= PARITY else f"over {PARITY}"


@dataclass(frozen=True)
class PairingParity:
    pairing: Pairing
    sizes: list   # SizeParity, smallest first

    def worst(self) -> Optional[SizeParity]:
        compared = [s for s in self.sizes if s.ratio is not None]
        return max(compared, key=lambda s: s.ratio) if compared else None


def exchange_seconds(row: Row, where: str) -> float:
    """ferry's time per exchange of one ring row: the median repetition's time / looplength. `where` names the
    row in a message."""
    looplength = row.params.get("looplength")
    if not isinstance(looplength, (int, float)) or isinstance(looplength, bool) or looplength <= 0:
        raise ParityError(f"{where} has no looplength")
    if row.samples_s:
        median = statistics.median(row.samples_s)
    elif "median" in row.stats_s:
        median = row.stats_s["median"]
    else:
        raise ParityError(f"{where} has neither samples_s nor stats_s.median")
    return median / looplength


@dataclass(frozen=True)
class FerryRing:
    participants: Optional[int]
    seconds: dict   # bytes -> seconds per exchange


def ferry_ring(results: Results, transport: str) -> FerryRing:
    if results.incomplete is not None:
        raise ParityError(f"a parity with a run that ended early leaves out what it did not reach: '{results.path}' "
                          f"is incomplete: {results.incomplete.describe()}; run it to its end")
    failed = failed_input(results, "ferry")
    if failed:
        raise ParityError(f"a parity with data that arrived wrong measures nothing: {failed.describe()}")
    beff = results.workload("beff")
    if beff is None:
        raise ParityError(f"'{results.path}' holds no beff run (workloads: "
                          f"{', '.join(w.name for w in results.workloads)})")
    rows = [r for r in beff.rows_in("ring") if r.params.get("transport") == transport]
    if not rows:
        why = [s for s in beff.skipped if s.startswith(f"{transport}:")]
        raise ParityError(f"'{results.path}' has no ring rows of {transport}"
                          + (f" ({why[0]})" if why else ""))
    seconds = {}
    for row in rows:
        size = row.params.get("MSize bytes")
        if not isinstance(size, int) or isinstance(size, bool):
            raise ParityError(f"'{results.path}': a ring row of {transport} has no MSize bytes")
        seconds[size] = exchange_seconds(row, f"'{results.path}': the {transport} ring row of {format_bytes(size)}")
    participants = beff.config.get("participants")
    return FerryRing(participants if isinstance(participants, int) else None, seconds)


@dataclass(frozen=True)
class NcclTestsRing:
    ranks: Optional[int]   # the "#  Rank" lines of its header; None where the output has none
    seconds: dict          # bytes -> seconds per iteration


RANK_LINE = re.compile(r"^#\s+Rank\s+\d+\s")


def nccl_tests_ring(path: Path) -> NcclTestsRing:
    """Reads sendrecv_perf's printed table. A row: size, count, type, redop, root, then out of place time, algbw,
    busbw, #wrong, then the same in place (nccl-tests' util.cu, writeBenchmarkLine*)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError as e:
        raise ParityError(f"cannot read '{path}': {e.strerror or e}") from None
    times, wrong, unchecked, ranks = {}, {}, [], 0
    for line in text.splitlines():
        if RANK_LINE.match(line):
            ranks += 1
        words = line.split()
        if line.startswith("#") or len(words) < 9 or not (words[0].isdigit() and words[1].isdigit()):
            continue
        size = int(words[0])
        if words[8] == "N/A":
            unchecked.append(size)
            continue
        try:
            us, wrong_count = float(words[5]), float(words[8])
        except ValueError:
            raise ParityError(f"'{path}': a row of {format_bytes(size)} has no number in its out-of-place time "
                              f"or #wrong: {line.strip()}") from None
        times.setdefault(size, []).append(us * 1e-6)
        if wrong_count:
            wrong[size] = wrong.get(size, 0) + wrong_count
    if wrong:
        sizes = ", ".join(f"{format_bytes(s)} ({n:g})" for s, n in sorted(wrong.items()))
        raise ParityError(f"'{path}': nccl-tests found wrong data (#wrong) at {sizes}: its times measure nothing",
                          WRONG_DATA)
    if unchecked:
        raise ParityError(f"'{path}': nccl-tests did not check the data of {format_bytes(unchecked[0])} "
                          "(#wrong N/A): run it with -c 1")
    if not times:
        raise ParityError(f"'{path}' has no rows of nccl-tests' table (size, count, type, redop, root, time, ...)")
    return NcclTestsRing(ranks or None, {size: statistics.median(t) for size, t in times.items()})


def pairing_parity(pairing: Pairing, results: Results) -> PairingParity:
    ferry = ferry_ring(results, pairing.transport)
    nccl_tests = nccl_tests_ring(pairing.nccl_tests)
    if ferry.participants and nccl_tests.ranks and ferry.participants != nccl_tests.ranks:
        raise ParityError(f"'{pairing.nccl_tests}' ran a ring of {nccl_tests.ranks} ranks, '{pairing.results}' one "
                          f"of {ferry.participants}: the same ring on both sides, or no parity")
    sizes = sorted(s for s in set(ferry.seconds) | set(nccl_tests.seconds) if SMALLEST <= s <= LARGEST)
    return PairingParity(pairing, [SizeParity(s, ferry.seconds.get(s), nccl_tests.seconds.get(s)) for s in sizes])


HEADER = f"""\
Parity with nccl-tests: beff's ring beside sendrecv_perf, the same ring (rank r sends L to r+1 while it receives L
from r-1), sizes {format_bytes(SMALLEST)} .. {format_bytes(LARGEST)} (ferry's below and above are not compared)
ferry us: time per exchange = the median repetition's time / looplength (the ring row's samples, one per
  repetition, each the slowest device's time for looplength exchanges, by CUDA events)
nccl-tests us: time per iteration = the out-of-place time column (the host clock around -n iterations, through the
  streams' synchronize, / n; over ranks as its -a says: scripts/gpu-evidence.sh passes -a 3, the slowest rank's),
  the median over its rows of the size (one per -N cycle)
ratio = ferry us / nccl-tests us: within {PARITY}, or over {PARITY} (ferry slower by more than {PARITY - 1:.0%})"""


def render(parities: list) -> str:
    blocks = [HEADER]
    for p in parities:
        rows = [[format_bytes(s.bytes), _us(s.ferry_s), _us(s.nccl_tests_s),
                 "-" if s.ratio is None else f"{s.ratio:.3f}", s.verdict] for s in p.sizes]
        worst = p.worst()
        blocks.append(f"{_name(p.pairing)}: {p.pairing.results} beside {p.pairing.nccl_tests}\n"
                      + table(["size", "ferry us", "nccl-tests us", "ratio", "verdict"], rows)
                      + f"\nworst: {_at(worst)}")
    worst = [(p, p.worst()) for p in parities if p.worst() is not None]
    if worst:
        p, s = max(worst, key=lambda item: item[1].ratio)
        blocks.append(f"worst ratio: {_at(s)}, {_name(p.pairing)}")
    else:
        blocks.append("worst ratio: none, no size was measured on both sides")
    return "\n\n".join(blocks) + "\n"


def _name(pairing: Pairing) -> str:
    return f"{pairing.layout}, {pairing.transport}"


def _at(s: Optional[SizeParity]) -> str:
    return "no size on both sides" if s is None else f"{s.ratio:.3f} at {format_bytes(s.bytes)} ({s.verdict})"


def _us(seconds: Optional[float]) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.2f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m ferry.nccl_parity",
        description="ferry's beff ring beside nccl-tests' sendrecv_perf, per size from 8 B to 2 MiB and per "
                    "pairing: ferry's time per exchange / nccl-tests' time per iteration, within 1.05 or over. Exit "
                    "1 when nccl-tests found wrong data, 2 for input the table cannot use (a FAILED, incomplete or "
                    "malformed results file, an nccl-tests output with no checked rows).")
    parser.add_argument("--pair", nargs=4, action="append", required=True,
                        metavar=("LAYOUT", "RESULTS.json", "TRANSPORT", "NCCL_TESTS.txt"),
                        help="a layout's name (e.g. 'a rank per GPU'), ferry's beff results, the NCCL variant in them "
                             "(nccl, nccl-graph, nccl-graph-reg) and sendrecv_perf's output run beside it; repeat "
                             "for each pairing")
    args = parser.parse_args(argv)
    pairings = [Pairing(layout, Path(results), transport, Path(out)) for layout, results, transport, out in args.pair]
    loaded = {}
    try:
        parities = []
        for pairing in pairings:
            if pairing.results not in loaded:
                loaded[pairing.results] = load(pairing.results)
            parities.append(pairing_parity(pairing, loaded[pairing.results]))
    except ResultsError as e:
        print(f"nccl_parity: {e}", file=sys.stderr)
        return BAD_INPUT
    except ParityError as e:
        print(f"nccl_parity: {e}", file=sys.stderr)
        return e.code
    sys.stdout.write(render(parities))
    return OK


if __name__ == "__main__":
    sys.exit(main())
