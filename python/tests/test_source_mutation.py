"""CI's source-mutation step (scripts/source-mutation.sh) and its generator (scripts/mutants/schemata.py):
a mutant that no test notices fails the step, naming it; one that a test notices passes it; the
catalogue's entries are refused when they cannot be placed. The step runs here against a folder that
stands for the mutation build: its CMakeCache, the manifests the generator writes, and a CTestTestfile
whose one test passes or fails as the case needs, so no C++ is built."""
import subprocess
import sys
import tomllib

import pytest

from conftest import REPO

SCHEMATA = REPO / "scripts" / "mutants" / "schemata.py"
STEP = REPO / "scripts" / "source-mutation.sh"


def first_entry() -> dict:
    """The real catalogue's first entry: its original text is in its file once, as the step requires."""
    with open(REPO / "scripts" / "mutants" / "catalogue.toml", "rb") as f:
        return tomllib.load(f)["mutant"][0]


def toml_entry(e: dict) -> str:
    lines = ["[[mutant]]"] + [f"{key} = '''{value}'''" for key, value in e.items()]
    return "\n".join(lines) + "\n"


def fake_build(tmp_path, entry: dict, test_passes: bool, compiled: bool = True):
    build = tmp_path / "build"
    build.mkdir()
    (build / "CMakeCache.txt").write_text("FERRY_MUTATION:BOOL=ON\n")
    manifest = build / "mutants" / f"{entry['file']}.mutants"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(f"compiled {entry['id']}\n" if compiled else "")
    (build / "CTestTestfile.cmake").write_text(
        f"add_test(Fake.Catches {'true' if test_passes else 'false'})\n")
    return build


def run_step(tmp_path, entry: dict, build, *args):
    catalogue = tmp_path / "catalogue.toml"
    catalogue.write_text(toml_entry(entry))
    env = {"PATH": "/usr/bin:/bin", "FERRY_MUTANT_CATALOGUE": str(catalogue)}
    return subprocess.run(["bash", str(STEP), str(build), *args], env=env, capture_output=True, text=True,
                           timeout=120)


def entry_for_fake_tests() -> dict:
    e = first_entry()
    return {"id": e["id"], "file": e["file"], "original": e["original"], "replacement": e["replacement"],
            "reason": "a test of the step", "tests": "^Fake\\."} | ({"within": e["within"]} if "within" in e else {})


def test_a_mutant_that_no_test_notices_fails_the_step_naming_it(tmp_path):
    entry = entry_for_fake_tests()
    done = run_step(tmp_path, entry, fake_build(tmp_path, entry, test_passes=True))
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"NOT CAUGHT  {entry['id']}" in done.stderr
    assert f"no test noticed: {entry['id']}" in done.stderr


def test_a_mutant_that_a_test_notices_passes_the_step_and_names_the_test(tmp_path):
    entry = entry_for_fake_tests()
    done = run_step(tmp_path, entry, fake_build(tmp_path, entry, test_passes=False))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"caught      {entry['id']}" in done.stdout and "by Fake.Catches" in done.stdout
    assert "1 of 1 mutants caught" in done.stdout


def test_all_mutants_at_once_must_fail_a_test(tmp_path):
    entry = entry_for_fake_tests()
    (tmp_path / "red").mkdir()
    (tmp_path / "green").mkdir()
    red = run_step(tmp_path, entry, fake_build(tmp_path / "red", entry, test_passes=False), "--all")
    assert red.returncode == 0 and "the suite fails, as it must: Fake.Catches" in red.stdout, red.stderr
    green = run_step(tmp_path, entry, fake_build(tmp_path / "green", entry, test_passes=True), "--all")
    assert green.returncode == 1 and "with every mutant on, every test passed" in green.stderr


def test_a_mutant_the_build_does_not_hold_fails_the_step(tmp_path):
    entry = entry_for_fake_tests()
    done = run_step(tmp_path, entry, fake_build(tmp_path, entry, test_passes=False, compiled=False))
    assert done.returncode == 1 and f"entry '{entry['id']}' is not in" in done.stderr


def test_tests_that_match_nothing_fail_the_step(tmp_path):
    entry = entry_for_fake_tests() | {"tests": "^NoSuchSuite\\."}
    done = run_step(tmp_path, entry, fake_build(tmp_path, entry, test_passes=False))
    assert done.returncode == 1 and "no test matches '^NoSuchSuite\\.'" in done.stderr


def schemata(*args):
    return subprocess.run([sys.executable, str(SCHEMATA), *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def write_source(tmp_path, text: str):
    source = tmp_path / "src" / "x.cpp"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(text)


@pytest.mark.parametrize("entries, why", [
    ([{"id": "x.a", "file": "src/x.cpp", "original": "a < b", "replacement": "a <= b", "reason": "r"}], "no tests"),
    ([{"id": "X", "file": "src/x.cpp", "original": "a < b", "replacement": "a <= b", "reason": "r", "tests": "t"}],
     "an id is WORKLOAD.what"),
    ([{"id": "x.a", "file": "src/x.cpp", "original": "a < b", "replacement": "a < b", "reason": "r", "tests": "t"}],
     "the replacement is the original"),
    ([{"id": "x.a", "file": "src/x.cpp", "original": "a < b", "replacement": "b", "reason": "r", "tests": "t"}] * 2,
     "is used twice"),
    ([{"id": "x.a", "file": "src/x.cpp", "original": "3", "within": "k = 4", "replacement": "0", "reason": "r",
       "tests": "t"}], "does not hold its original text exactly once"),
    ([{"id": "x.a", "file": "src/x.cpp", "original": "constexpr int k{3};", "replacement": "constexpr long k{3};",
       "form": "constant", "reason": "r", "tests": "t"}], "form 'constant' takes one"),
])
def test_a_malformed_entry_is_refused_naming_what_is_wrong(tmp_path, entries, why):
    catalogue = tmp_path / "catalogue.toml"
    catalogue.write_text("".join(toml_entry(e) for e in entries))
    done = schemata("check", catalogue, tmp_path)
    assert done.returncode == 1 and why in done.stderr, done.stderr


@pytest.mark.parametrize("original, found", [("a < b", 0), ("x", 2)])
def test_an_original_text_not_found_exactly_once_is_refused(tmp_path, original, found):
    write_source(tmp_path, "bool f(int x, int y) { return x > y; }\n")
    catalogue = tmp_path / "catalogue.toml"
    catalogue.write_text(toml_entry({"id": "x.a", "file": "src/x.cpp", "original": original, "replacement": "1",
                                     "reason": "r", "tests": "t"}))
    done = schemata("check", catalogue, tmp_path)
    assert done.returncode == 1 and f"occurs {found} times in src/x.cpp, not once" in done.stderr


def test_the_copy_holds_each_mutant_beside_its_original_and_the_source_is_untouched(tmp_path):
    source_text = "int f(int a, int b) { return a < b ? a : b; }\nconstexpr int most{3};\n"
    write_source(tmp_path, source_text)
    catalogue = tmp_path / "catalogue.toml"
    catalogue.write_text(
        toml_entry({"id": "x.edge", "file": "src/x.cpp", "original": "a < b", "replacement": "a <= b",
                    "reason": "r", "tests": "t"}) +
        toml_entry({"id": "x.most", "file": "src/x.cpp", "original": "constexpr int most{3};",
                    "replacement": "constexpr int most{2};", "form": "constant", "reason": "r", "tests": "t"}))
    out = tmp_path / "copy" / "x.cpp"
    assert schemata("generate", catalogue, tmp_path, "src/x.cpp", out).returncode == 0
    copy = out.read_text()
    assert '(::ferry::mutant("x.edge") ? (a <= b) : (a < b))' in copy
    assert 'const int most = ::ferry::mutant("x.most") ? int{2} : int{3};' in copy
    assert '#include "core/mutant.hpp"' in copy
    assert (tmp_path / "src" / "x.cpp").read_text() == source_text
    assert (tmp_path / "copy" / "x.cpp.mutants").read_text() == "compiled x.edge\ncompiled x.most\n"
