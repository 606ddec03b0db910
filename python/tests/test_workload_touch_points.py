"""Adding a workload is a checklist, and this test walks it. A workload touches thirteen places (PLACES below;
docs/architecture.md's "The places a workload touches" lists them for people): three the code needs (its
declaration in C++, its folder under src/bench/, its report section) and ten that hold it by convention (its tests
and their line in CMake, its emulator run in ctest and in pytest, the report's page checks, the README, its page
docs/NAME.md, its line or row in docs/architecture.md, docs/results.md and docs/report.md, and the GPU evidence
script). For each workload that `ferry list --names`, src/bench/ or python/ferry/sections/ names, each place is
asked whether it holds the workload in the way that place must; one message names every workload missing from a
place, with the place and what it should hold.

A command that is not a workload may have a section too, for the workload of its own name that its results file
holds (doctor's findings): it is held to what a command is instead, below."""
from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable

import page_checks
import pytest
from conftest import PYTHON_DIR, REPO, RUNS, ferry_binary

from ferry import sections

NOT_A_WORKLOAD = {"common"}   # src/bench/common: what the workloads share

# Sections of commands, not workloads. `ferry doctor` runs link's pass and judges what it measured: its results file
# holds link's rows (link's section) and a `doctor` workload of findings, but doctor is no workload: `ferry list`
# does not name it, `ferry run` cannot run it, and it has no folder under src/bench/ (src/cli/doctor_command.cpp,
# src/doctor/). Only a name listed here is let off the workload's places, and only while it is a command of ferry
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


def section_workloads() -> set:
    return set(sections.modules()) - COMMANDS_WITH_A_SECTION


def read(path: str) -> str:
    file = REPO / path
    return file.read_text() if file.is_file() else ""


def block(text: str, opening: str, closing: str) -> str:
    """The text from the line that begins with `opening` to the next line that begins with `closing` (each
    after any indentation)."""
    found = re.search(rf"^[ \t]*{re.escape(opening)}.*?^[ \t]*{re.escape(closing)}", text, re.S | re.M)
    return found.group(0) if found else ""


def first_cells(text: str, header: str) -> set:
    """The first cell of each row of the markdown table whose header line begins with `header`."""
    table = re.search(rf"^{re.escape(header)}.*\n\|[- |]+\|\n((?:\|.*\n?)*)", text, re.M)
    return {row.split("|")[1].strip() for row in table.group(1).splitlines()} if table else set()


# Each place: where it is, what it must hold for a workload NAME, and the test of it.


def declares(name: str) -> bool:
    return re.search(rf"^Workload {name}_workload\(\)", read(f"src/cli/workloads/{name}.cpp"), re.M) is not None


def has_bench_folder(name: str) -> bool:
    return name in bench_folders()


def has_section(name: str) -> bool:
    return name in section_workloads()


def has_tests(name: str) -> bool:
    return re.search(r"^TEST(_F|_P)?\(", read(f"tests/bench/{name}_test.cpp"), re.M) is not None


def builds_its_tests(name: str) -> bool:
    cmake = read("tests/CMakeLists.txt")
    # ferry_tests is built from the two lists: the threaded tests (all the TSan build compiles) and the others.
    listed = block(cmake, "set(threaded_test_sources", ")") + block(cmake, "set(other_test_sources", ")")
    return re.search(rf"^\s+bench/{name}_test\.cpp$", listed, re.M) is not None


def runs_on_the_emulator_in_ctest(name: str) -> bool:
    runs = re.findall(r'^add_test\(NAME \w+OnTheEmulator COMMAND \$\{expect_exit\} 0 "(\w+): PASSED" '
                      r"\$<TARGET_FILE:ferry> run (\w+)\b", read("tests/CMakeLists.txt"), re.M)
    return (name, name) in runs


def runs_on_the_emulator_in_pytest(name: str) -> bool:
    return RUNS.get(name, [])[:2] == ["run", name]


def page_checks_look_for_it(name: str) -> bool:
    expected = page_checks.EXPECTED
    return expected.get(f"workload-{name}") == "section" and \
        any(key.startswith(f"plot-{name}-") and tag == "figure" for key, tag in expected.items())


def readme_shows_it(name: str) -> bool:
    text = read("README.md")
    using = re.search(r"^## Using ferry\n+```sh\n(.*?)^```", text, re.S | re.M)
    runs_it = using is not None and re.search(rf"^ferry run {name}\b", using.group(1), re.M) is not None
    return runs_it or f"](docs/{name}.md)" in text


def has_a_page(name: str) -> bool:
    return read(f"docs/{name}.md").startswith(f"# `ferry run {name}`")


def architecture_names_its_folder(name: str) -> bool:
    layers = re.findall(r"^bench/ .*$", read("docs/architecture.md"), re.M)
    return any(re.search(rf"\b{name}/", line) for line in layers)


def results_schema_has_its_row(name: str) -> bool:
    return name in first_cells(read("docs/results.md"), "| workload | sections")


def report_page_has_its_row(name: str) -> bool:
    return name in first_cells(read("docs/report.md"), "| workload | plots")


def gpu_evidence_has_its_case(name: str) -> bool:
    cases = block(read("scripts/gpu-evidence.sh"), 'case "$workload" in', "esac")
    return re.search(rf"^  {name}\)$", cases, re.M) is not None


@dataclass(frozen=True)
class Place:
    where: str
    holds: str                      # what it must hold for a workload NAME (Name: capitalised)
    test: Callable[[str], bool]


PLACES = [
    Place("src/cli/workloads/", "NAME.cpp defining `Workload NAME_workload()`", declares),
    Place("src/bench/", "the folder NAME/", has_bench_folder),
    Place("python/ferry/sections/", "a module declaring WORKLOAD = \"NAME\"", has_section),
    Place("tests/bench/", "NAME_test.cpp with its TESTs", has_tests),
    Place("tests/CMakeLists.txt's ferry_tests", "the line bench/NAME_test.cpp in threaded_test_sources or other_test_sources", builds_its_tests),
    Place("tests/CMakeLists.txt's emulator runs", 'an add_test NameOnTheEmulator expecting "NAME: PASSED" of '
          "`ferry run NAME`", runs_on_the_emulator_in_ctest),
    Place("python/tests/conftest.py's RUNS", '"NAME": ["run", "NAME", ...]', runs_on_the_emulator_in_pytest),
    Place("python/tests/page_checks.py's EXPECTED", '"workload-NAME": "section" and a "plot-NAME-...": "figure"',
          page_checks_look_for_it),
    Place("README.md", "`ferry run NAME` in the Using ferry block, or a link to docs/NAME.md", readme_shows_it),
    Place("docs/", "NAME.md, titled \"# `ferry run NAME`\"", has_a_page),
    Place("docs/architecture.md", "NAME/ on the bench/ layer's line", architecture_names_its_folder),
    Place("docs/results.md", "a row | NAME | in the sections per workload", results_schema_has_its_row),
    Place("docs/report.md", "a row | NAME | in the table of plots and tables", report_page_has_its_row),
    Place("scripts/gpu-evidence.sh", "a case NAME) in its case \"$workload\"", gpu_evidence_has_its_case),
]


def workloads() -> set:
    """Every workload a place of the code names: a workload in one of them and not the others is missing there."""
    return declared_in_cpp() | bench_folders() | section_workloads()


def where_missing(names: set, places: list) -> list:
    """One line per workload absent from a place, naming the place and what it should hold."""
    def held(place: Place, name: str) -> str:
        return place.holds.replace("NAME", name).replace("Name", name.title())

    return [f"{name} is missing from {place.where}: {held(place, name)}"
            for name in sorted(names) for place in places if not place.test(name)]


def test_every_workload_is_in_each_of_the_places_a_workload_touches():
    names = declared_in_cpp()
    assert names, "`ferry list --names` named no workload"   # an empty list would check nothing
    missing = where_missing(workloads(), PLACES)
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
    places = [Place("C++", "NAME_workload()", {"link", "echo"}.__contains__),
              Place("sections", "NAME.py", {"link"}.__contains__)]
    assert where_missing({"link", "echo"}, places) == ["echo is missing from sections: echo.py"]


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
