"""A workload is in three places: its declaration in C++ (what `ferry list --names`
prints), its folder under src/bench/, and its report section under
python/ferry/sections/. A workload in one place and not another fails here, naming
the workload and the place it is missing from.

A command that is not a workload may have a section too, for the workload of its
own name that its results file holds (doctor's findings): it is held to what a
command is instead, below."""
from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import PYTHON_DIR, REPO, ferry_binary

from ferry import sections

NOT_A_WORKLOAD = {"common"}   # src/bench/common: what the workloads share

# Sections of commands, not workloads. `ferry doctor` runs link's pass and judges what it measured: its results file
# holds link's rows (link's section) and a `doctor` workload of findings, but doctor is no workload: `ferry list`
# does not name it, `ferry run` cannot run it, and it has no folder under src/bench/ (src/cli/doctor_command.cpp,
# src/run/). Only a name listed here is let off the workload's places, and only while it is a command of ferry
# and not a workload; every other section must still be a workload's.
COMMANDS_WITH_A_SECTION = {"doctor"}


def declared_in_cpp() -> set:
    names = subprocess.run([str(ferry_binary()), "list", "--names"], capture_output=True, text=True, timeout=60,
                           check=True)
    return set(names.stdout.split())


def subcommands() -> set:
    """The commands `ferry --help` lists under Subcommands."""
    shown = subprocess.run([str(ferry_binary()), "--help"], capture_output=True, text=True, timeout=60, check=True)
    listed = shown.stdout.split("Subcommands:", 1)[1]
    return {line.split()[0] for line in listed.splitlines() if line.startswith("  ") and line.strip()}


def bench_folders() -> set:
    return {p.name for p in (REPO / "src" / "bench").iterdir() if p.is_dir() and p.name not in NOT_A_WORKLOAD}


def where_missing(places: dict) -> list:
    """places: where -> the workloads found there. One line per workload absent from a place."""
    every = set().union(*places.values())
    return [f"{name} is missing from {where} (it is in {', '.join(w for w in places if name in places[w])})"
            for name in sorted(every) for where, found in places.items() if name not in found]


def test_every_workload_is_declared_in_cpp_has_a_bench_folder_and_a_report_section():
    places = {
        "the C++ declarations (ferry list --names)": declared_in_cpp(),
        "src/bench/": bench_folders(),
        "python/ferry/sections/": set(sections.modules()) - COMMANDS_WITH_A_SECTION,
    }
    assert all(places.values()), places   # an empty place would make every workload "missing" for a wrong reason
    missing = where_missing(places)
    assert not missing, "\n".join(missing)


def test_a_section_of_no_workload_is_a_ferry_command_with_a_docs_page():
    workloads, commands, folders = declared_in_cpp(), subcommands(), bench_folders()
    assert "run" in commands and "list" in commands, commands   # the help was read, not an empty set
    for name in sorted(COMMANDS_WITH_A_SECTION):
        assert name in sections.modules(), f"{name} has no section: take it off COMMANDS_WITH_A_SECTION"
        assert name in commands, f"{name} is not a command `ferry --help` lists"
        # Once it is a workload, the test above holds it to a workload's places.
        assert name not in workloads and name not in folders, \
            f"{name} is a workload now: take it off COMMANDS_WITH_A_SECTION"
        assert (REPO / "docs" / f"{name}.md").is_file(), f"{name} has no page docs/{name}.md"


def test_a_workload_missing_from_one_place_is_named_with_that_place():
    places = {"C++": {"link", "echo"}, "src/bench/": {"link", "echo"}, "sections": {"link"}}
    assert where_missing(places) == ["echo is missing from sections (it is in C++, src/bench/)"]


def test_compare_reads_each_sections_figures_as_the_module_declares_them():
    imported = {}
    for workload, module in sections.modules().items():
        for owner, figures in {workload: module.FIGURES, **getattr(module, "MODEL_FIGURES", {})}.items():
            imported.update({(owner, section): tuple(params) for section, params in figures.items()})
    assert sections.figures() == imported


def test_compare_needs_no_matplotlib():
    # compare reads the sections' declarations without importing their plots: it runs where matplotlib is missing.
    done = subprocess.run([sys.executable, "-c", "import sys, ferry.compare; print('matplotlib' in sys.modules)"],
                          capture_output=True, text=True, cwd=PYTHON_DIR, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_a_section_module_that_declares_too_little_is_refused_naming_its_file(tmp_path, monkeypatch):
    (tmp_path / "echo.py").write_text('WORKLOAD = "echo"\n\ndef render(entries):\n    return ""\n')
    monkeypatch.setattr(sections, "__path__", [*sections.__path__, str(tmp_path)])
    try:
        with pytest.raises(sections.SectionError, match=r"echo\.py declares no FIGURES"):
            sections.figures()
        with pytest.raises(sections.SectionError, match=r"echo\.py declares no TITLE, FIGURES"):
            sections.modules()
    finally:
        sys.modules.pop("ferry.sections.echo", None)
        monkeypatch.delattr(sections, "echo", raising=False)
