"""`ferry report` and `ferry compare` (the C++ `ferry` forwards both here).

Exit codes follow ferry's: 0 success; 1 compare found a figure that regressed past
the threshold (GPU timings only), or NEW failed verification (compared with
--allow-failed); 2 bad input (a missing or malformed results file, a number in one
that cannot be, a bad option, an output that names an input, or for compare a file
that failed verification or is incomplete, without --allow-failed or
--allow-incomplete); 3 something outside ferry failed (a missing Python package or
browser, a file that could not be written); 130 or 143 interrupted by SIGINT or
SIGTERM."""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from . import interrupt, output, output_paths
from .output_paths import Output
from .results import ResultsError, load

OK, REGRESSED, BAD_INPUT, FAILURE = 0, 1, 2, 3


def report_main(argv=None) -> int:
    return interrupt.run("ferry report", _report, argv, "nothing was written")


def _report(argv, written: interrupt.Written) -> int:
    parser = argparse.ArgumentParser(
        prog="ferry report",
        description="One self-contained HTML page (plots inline, nothing fetched) from ferry results files: the "
                    "machines at the top, then a section per workload found. Several files overlay as series, "
                    "e.g. an H100 run beside an H200 run.")
    parser.add_argument("results", nargs="+", metavar="RESULTS.json",
                        help="results files written by ferry run ... --json, plain or gzipped (.json.gz)")
    parser.add_argument("-o", "--output", default="report.html", metavar="HTML",
                        help="the page to write, - for standard output (default: %(default)s); never a results file given "
                             "as input, nor --screenshot's file: refused (exit 2) before anything is read")
    parser.add_argument("--labels", metavar="A,B,...",
                        help="a name per results file, in order, for legends and tables (default: the file names)")
    parser.add_argument("--screenshot", metavar="PNG",
                        help="also render the page in headless Chromium to this PNG (- for standard output)")
    args = parser.parse_args(argv)

    out, shot = args.output, args.screenshot
    if out == output.STANDARD_OUTPUT and shot == output.STANDARD_OUTPUT:
        return _fail(BAD_INPUT, "-o and --screenshot both name standard output (-), which holds one file: give one "
                                "of them a path")
    outputs = [Output("-o", out, "the page")] + ([Output("--screenshot", shot, "the screenshot")]
                                                 if shot is not None else [])
    clash = output_paths.refusal(args.results, "a results file given as input", outputs)
    if clash:
        return _fail(BAD_INPUT, clash)
    labels = _labels(args.results, args.labels)
    if isinstance(labels, str):
        return _fail(BAD_INPUT, labels)
    try:
        results = [load(path, label) for path, label in zip(args.results, labels)]
    except ResultsError as e:
        return _fail(BAD_INPUT, str(e))
    try:
        from . import report
    except ImportError as e:
        return _fail(FAILURE, f"report needs matplotlib ({e}) in {sys.executable}: run scripts/setup-python.sh, "
                              "which makes .venv with it, or set FERRY_PYTHON to a Python that has it")
    for path in (out, shot) if shot else (out,):
        why = output.why_not_writable(path)
        if why:
            return _fail(BAD_INPUT, f"cannot write '{path}': {why}{output.links_to(path)}")
    # With a file on standard output, what ferry report says goes to standard error, so the pipe holds only the file.
    said = sys.stderr if output.STANDARD_OUTPUT in (out, shot) else sys.stdout
    try:
        page = report.build(results).encode("utf-8")
    except ResultsError as e:
        return _fail(BAD_INPUT, str(e))
    if output.written_in_place(out):
        written.now(f"the page written {_to(out)} may be cut short (it is written in place)")
    try:
        output.write(out, page)
    except OSError as e:
        return _fail(FAILURE, f"cannot write {_named(out)}: {e.strerror or e}{output.links_to(out)}")
    written.now(f"wrote the page {_to(out)}", *(["not the screenshot"] if shot else []))
    workloads = sorted({w.name for r in results for w in r.workloads})
    print(f"ferry report: wrote {_shown(out)} ({len(page) / 1e6:.1f} MB): {', '.join(workloads)} from "
          f"{len(results)} file{'s' if len(results) > 1 else ''}", file=said)
    if shot:
        from .browser import BrowserError, render
        try:
            # Chromium reads the page from a file of its own: -o may have named a pipe or standard output.
            with tempfile.TemporaryDirectory(prefix="ferry-report-") as folder:
                copy = Path(folder) / "report.html"
                copy.write_bytes(page)
                shown = render(copy, shot)
        except (BrowserError, OSError) as e:
            return _fail(FAILURE, f"screenshot: {e}")
        written.now(f"wrote the page {_to(out)}", f"the screenshot {_to(shot)}")
        print(f"ferry report: screenshot {_shown(shot)}" + (" (the page is taller; the screenshot shows its top)"
                                                             if shown.clipped else ""), file=said)
        for message in shown.console:
            print(f"ferry report: the page logged{message}", file=sys.stderr)
    return OK


def compare_main(argv=None) -> int:
    return interrupt.run("ferry compare", _compare, argv, "nothing was compared")


def _compare(argv, written: interrupt.Written) -> int:
    parser = argparse.ArgumentParser(
        prog="ferry compare",
        description="The ratio NEW/BASE for every figure both results files hold. Exits 1 when any figure got worse "
                    "by more than the threshold (a rate fell, a latency rose), so CI can gate on it. The emulator's "
                    "timings are CPU timings, which vary with the machine's load: where BASE or NEW holds them, the "
                    "ratios are printed, not judged, and only a figure FAILED in NEW exits 1. A file with a row "
                    "that FAILED its check, or whose verification is FAILED, is refused (exit 2, naming the file and "
                    "the rows) unless --allow-failed; an incomplete file (a run that ended early) unless "
                    "--allow-incomplete.")
    parser.add_argument("base", metavar="BASE.json")
    parser.add_argument("new", metavar="NEW.json")
    parser.add_argument("--threshold", default="5%", metavar="PERCENT",
                        help="how much worse a figure may get before it counts as a regression (default: %(default)s)")
    parser.add_argument("--only", metavar="W[/S],...", default="",
                        help="compare only these workloads or workload/section pairs, e.g. link/ceiling,dispatch/ladder: "
                             "gate CI on the figures steady enough for the threshold")
    parser.add_argument("--show", choices=("all", "changed"), default="all",
                        help="print every figure, or only those past the threshold either way (default: %(default)s)")
    parser.add_argument("--allow-failed", action="store_true",
                        help="compare even when BASE or NEW has rows that FAILED their check: every printed line then "
                             "begins [FAILED input: BASE] (or NEW, or BASE and NEW); a figure FAILED in NEW still "
                             "exits 1, one FAILED only in BASE reads 'BASE FAILED' and is no regression")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="compare even when BASE or NEW is incomplete (a run that ended early, its rows left in "
                             "JSON.partial; refused without it, exit 2): the figures both hold are compared, and the "
                             "output says which file is incomplete and why")
    args = parser.parse_args(argv)

    from .compare import (NothingToCompare, compare, failed_inputs, incomplete_inputs, incomplete_refusal,
                          parse_threshold, refusal, render)
    try:
        threshold = parse_threshold(args.threshold)
        only = tuple(name.strip() for name in args.only.split(",") if name.strip())
        base, new = load(args.base, None), load(args.new, None)
        failed = failed_inputs(base, new)
        if failed and not args.allow_failed:
            return _fail(BAD_INPUT, refusal(failed))
        incomplete = incomplete_inputs(base, new)
        if incomplete and not args.allow_incomplete:
            return _fail(BAD_INPUT, incomplete_refusal(incomplete))
        comparison = compare(base, new, threshold, only)
    except (ValueError, ResultsError, NothingToCompare) as e:
        return _fail(BAD_INPUT, str(e))
    for results in (base, new):
        for name in results.edited_workloads():
            print(f"ferry compare: warning: '{results.path}': the {name} rows do not match the checksum ferry wrote "
                  "with them; the file was edited after the run", file=sys.stderr)
    written.now("the comparison printed may be cut short")
    sys.stdout.write(render(comparison, args.show))
    sys.stdout.flush()
    written.now("the comparison was printed whole")
    return REGRESSED if comparison.failed else OK


def _labels(paths: list, given):
    if given is not None:
        labels = [s.strip() for s in given.split(",")]
        if len(labels) != len(paths) or not all(labels):
            return f"--labels has {len(labels)} names for {len(paths)} results files; give one non-empty name per file"
        return labels
    stems = [Path(p).stem for p in paths]
    # Same file names from different folders: name them by folder too.
    return [f"{Path(p).parent.name}/{s}" if stems.count(s) > 1 else s for p, s in zip(paths, stems)]


def _shown(path: str) -> str:
    return "standard output" if path == output.STANDARD_OUTPUT else path


def _named(path: str) -> str:
    return "to standard output (-)" if path == output.STANDARD_OUTPUT else f"'{path}'"


def _to(path: str) -> str:
    return "to standard output (-)" if path == output.STANDARD_OUTPUT else f"to '{path}'"


def _fail(code: int, message: str) -> int:
    print(f"ferry: {message}", file=sys.stderr)
    return code


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commands = {"report": report_main, "compare": compare_main}
    if not argv or argv[0] not in commands:
        print("usage: python -m ferry {report,compare} ... (python -m ferry report --help)", file=sys.stderr)
        return BAD_INPUT
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
