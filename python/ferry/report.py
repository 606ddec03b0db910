"""ferry report: one self-contained HTML page (inline SVG, inline CSS, no script,
nothing fetched) with the machines at the top and a section per workload found."""
from __future__ import annotations

from . import html, plots, sections
from .results import Results, ResultsError
from .sections import generic
from .sections.common import Entry
from .text import format_bytes

# workload -> its section's render, one per module under ferry/sections; generic draws any other workload.
RENDERERS = {name: module.render for name, module in sections.modules().items()}

STYLE = """
body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1480px; padding: 0 16px; color: #1b1b1b; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #ccc; padding-bottom: 4px; margin-top: 2em; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.failed { background: #fbe3e3; color: #8a1010; font-weight: bold; }
figure.plot { margin: 1em 0; }
figure.plot svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.85em; color: #444; max-width: 1100px; }
p.sources, p.aside, p.caption { font-size: 0.9em; color: #333; }
.banner { padding: 8px 12px; border-radius: 4px; }
.banner.failed { background: #fbe3e3; color: #8a1010; }
.banner.incomplete { background: #fff0c2; color: #5c4300; font-weight: bold; }
details.notes { font-size: 0.85em; }
"""


def build(results: list) -> str:
    names = []
    for r in results:
        names += [w.name for w in r.workloads if w.name not in names]
    sections = []
    for name in names:
        entries = [Entry(r, w) for r in results for w in r.workloads if w.name == name]
        sections.append(_render(name, entries))
    title = "ferry report: " + ", ".join(r.label for r in results)
    nav = "<nav>" + "".join(f'<a href="#workload-{html.escape(n)}">{html.escape(n)}</a>' for n in names) + "</nav>"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>{nav}{_incomplete(results)}{_verification(results)}{_machines(results)}"
            + "".join(sections) + "</body></html>\n")


def _render(name: str, entries: list) -> str:
    """One workload's section. Its renderer reads the params ferry writes for
    each of its sections; a file whose rows have other params (edited, or not
    written by ferry) is refused naming the file and what was missing."""
    try:
        return RENDERERS.get(name, generic.render)(entries)
    except KeyError as e:
        problem = f"a {name} row has no param {e}"
    except (TypeError, AttributeError, ValueError, IndexError, ZeroDivisionError) as e:
        problem = f"a {name} row's params are not what ferry writes ({type(e).__name__}: {e})"
    finally:
        plots.discard_open()   # however it ended, no figure of this section outlives it
    files = ", ".join(sorted({f"'{e.results.path}'" for e in entries}))
    raise ResultsError(f"{files}: cannot be drawn: {problem}")


def _incomplete(results: list) -> str:
    """A banner per file whose run ended early: its figures are only those the run finished."""
    return "".join(html.paragraph(f"{r.label} is incomplete: {r.incomplete.describe()}. Its run ended early, so "
                                  f"it holds only the figures finished before then ({r.path}).",
                                  cls="banner incomplete")
                   for r in results if r.incomplete is not None)


def _verification(results: list) -> str:
    failed = [r.label for r in results if r.verification != "PASSED"]
    if not failed:
        # Not "every byte": beff's shared slots and the sampled checks are set out per workload in docs/.
        return html.paragraph("Every figure below passed verification. What each workload's check covers is in "
                              "its page of docs/ (docs/beff.md: which messages are checked).")
    return html.paragraph("Verification FAILED in " + ", ".join(failed) + ": some data arrived wrong; those rows are "
                          "marked.", cls="banner failed")


def _machines(results: list) -> str:
    facts = [
        ("file", lambda r: str(r.path)),
        ("workloads", lambda r: ", ".join(w.name + (" (for the model)" if w.for_model else "") for w in r.workloads)),
        ("verification", lambda r: r.verification),
        ("created (UTC)", lambda r: r.created_utc),
        ("GPUs", _gpus),
        ("PCIe", _pcie),
        ("peers", _peers),
        ("driver", lambda r: r.machine.get("driver_version", "")),
        ("runtime", lambda r: r.machine.get("runtime_version", "")),
        ("backend", lambda r: r.machine.get("backend", "")),
        ("timings", lambda r: r.machine.get("timings", "")),
        ("host", _host),
        ("command", lambda r: " ".join(r.command_line)),
    ]
    rows = [[name] + [fact(r) for r in results] for name, fact in facts]
    return "<h2 id=\"machines\">Machines</h2>" + html.table([""] + [r.label for r in results], rows, table_id="machine")


def _gpus(r: Results) -> str:
    gpus = r.machine.get("gpus", [])
    if not gpus:
        return "none"
    names = {}
    for g in gpus:
        key = f"{g.get('name', '?')}, {format_bytes(g.get('memory_bytes', 0))}, {g.get('multiprocessors', '?')} SMs, " \
              f"cc {g.get('compute_capability', '?')}, {g.get('memory_bandwidth_GBps', 0):.0f} GB/s memory"
        names[key] = names.get(key, 0) + 1
    return "; ".join(f"{n} x {k}" for k, n in names.items())


def _pcie(r: Results) -> str:
    out = []
    for g in r.machine.get("gpus", []):
        p = g.get("pcie") or {}
        if p.get("generation"):
            out.append(f"GPU {g.get('index')}: Gen{p['generation']} x{p.get('width')} "
                       f"(max Gen{p.get('max_generation')} x{p.get('max_width')}, from {p.get('source') or '?'})")
    return "; ".join(out) or "unknown"


def _peers(r: Results) -> str:
    out = []
    for p in r.machine.get("peers", []):
        link = f"{p['nvlinks']} x NVLink{p.get('nvlink_version', '')}" if p.get("nvlinks") else "no NVLink"
        out.append(f"{p.get('from')} -> {p.get('to')}: {'direct' if p.get('direct_access') else 'no direct access'}, {link}")
    return "; ".join(out) or "none"


def _host(r: Results) -> str:
    h = r.machine.get("host", {})
    return f"{h.get('cpu', '?')}, {h.get('logical_cores', '?')} logical cores, {format_bytes(h.get('memory_bytes', 0))}, " \
           f"{h.get('os', '')}"
