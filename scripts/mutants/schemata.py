#!/usr/bin/env python3
"""Source mutants as schemata: every entry of catalogue.toml compiled into one build.

The mutation build (CMake FERRY_MUTATION=ON: the ASan+UBSan tree, never
installed) compiles a copy of each file the catalogue names, generated into the
build tree, in which each entry's original text reads

    (::ferry::mutant("ID") ? (REPLACEMENT) : (ORIGINAL))

so that FERRY_MUTANT=ID (src/core/mutant.hpp) turns that one edit on at run
time. The whole catalogue then costs one build, and each mutant a test run;
compiling a mutant's file again and relinking took 41 s a mutant on a 2-core
machine (docs/reliability.md). The source tree is never written.

Commands:
  files CATALOGUE ROOT                the files under ROOT that have entries, one a line (for CMake); one
                                      that does not exist is left to `check`, which names its entries
  generate CATALOGUE ROOT FILE OUT    write the mutated copy of ROOT/FILE to OUT, and OUT.mutants:
                                      the ids compiled in, and a line per entry left out, with why
  check CATALOGUE ROOT                every entry well formed, its original text in its file once,
                                      no two entries' texts overlapping; exit 1 naming each that is not
  list CATALOGUE                      id, tests, file and reason of each entry, separated by
                                      the unit separator (0x1f): a tab, being white space to bash's
                                      read, would run an empty field into the next
"""
import re
import sys
import tomllib
from pathlib import Path

FORMS = ("expression", "constant")
FIELDS = {"id", "file", "reason", "original", "replacement", "within", "tests", "form"}
REQUIRED = ("id", "file", "reason", "original", "replacement", "tests")
ID = re.compile(r"^[a-z_]+\.[a-z0-9_.-]+$")
# `[inline] [static] constexpr TYPE NAME{INIT};` or `... NAME = INIT;`
CONSTANT = re.compile(
    r"^(?P<specifiers>(?:(?:inline|static)\s+)*)constexpr\s+(?P<type>[\w:<>, ]+?)\s+(?P<name>\w+)\s*"
    r"(?:\{(?P<braced>.*)\}|=\s*(?P<assigned>.*?))\s*;$",
    re.S,
)


class CatalogueError(Exception):
    pass


def load(catalogue):
    with open(catalogue, "rb") as f:
        entries = tomllib.load(f).get("mutant", [])
    if not entries:
        raise CatalogueError(f"{catalogue}: no [[mutant]] entries")
    seen = set()
    for n, e in enumerate(entries, 1):
        where = f"{catalogue}: entry {n} ({e.get('id', 'no id')})"
        missing = [k for k in REQUIRED if not str(e.get(k, "")).strip()]
        if missing:
            raise CatalogueError(f"{where}: no {', '.join(missing)}")
        unknown = set(e) - FIELDS
        if unknown:
            raise CatalogueError(f"{where}: unknown field {', '.join(sorted(unknown))}")
        if not ID.match(e["id"]):
            raise CatalogueError(f"{where}: an id is WORKLOAD.what, lower case: '{e['id']}'")
        if e["id"] in seen:
            raise CatalogueError(f"{where}: id '{e['id']}' is used twice")
        seen.add(e["id"])
        e.setdefault("form", "expression")
        e.setdefault("within", e["original"])
        if e["within"].count(e["original"]) != 1:
            raise CatalogueError(f"{where}: its within text does not hold its original text exactly once")
        if e["form"] not in FORMS:
            raise CatalogueError(f"{where}: form '{e['form']}' is none of {', '.join(FORMS)}")
        if e["original"] == e["replacement"]:
            raise CatalogueError(f"{where}: the replacement is the original")
        if e["form"] == "constant":
            schema(e)  # raises when the texts are not one constant's declaration
    return entries


def schema(e):
    """What the mutation build compiles in place of the entry's original text."""
    switch = f'::ferry::mutant("{e["id"]}")'
    if e["form"] == "expression":
        return f"({switch} ? ({e['replacement']}) : ({e['original']}))"
    # A constant: a run-time choice cannot be constexpr, so the copy declares it const. A constant that a
    # constant expression needs then fails to compile, naming the mutant, instead of being mutated silently.
    o, r = CONSTANT.match(e["original"].strip()), CONSTANT.match(e["replacement"].strip())
    if not o or not r or (o["type"], o["name"]) != (r["type"], r["name"]):
        raise CatalogueError(f"{e['id']}: form 'constant' takes one `constexpr TYPE NAME{{...}};` (or `= ...;`) "
                             "declaration as original and replacement, the same TYPE and NAME")

    def value(m):
        return f"{m['type']}{{{m['braced']}}}" if m["braced"] is not None else f"{m['type']}({m['assigned']})"

    return f"{o['specifiers']}const {o['type']} {o['name']} = {switch} ? {value(r)} : {value(o)};"


def sites(entries, root, file):
    """The entries of `file` that apply, each with its offset, and why each other one does not."""
    text = (Path(root) / file).read_text()
    placed, problems = [], []
    for e in (e for e in entries if e["file"] == file):
        count = text.count(e["within"])
        if count != 1:
            what = "original" if e["within"] == e["original"] else "within"
            problems.append((e["id"], f"its {what} text occurs {count} times in {file}, not once"))
            continue
        at = text.index(e["within"]) + e["within"].index(e["original"])
        clash = next((p for p, s in placed if at < s + len(p["original"]) and s < at + len(e["original"])), None)
        if clash:
            problems.append((e["id"], f"its original text overlaps that of '{clash['id']}' in {file}"))
            continue
        placed.append((e, at))
    return text, placed, problems


def generate(entries, root, file, out):
    text, placed, problems = sites(entries, root, file)
    for e, at in sorted(placed, key=lambda p: p[1], reverse=True):
        text = text[:at] + schema(e) + text[at + len(e["original"]):]
    header = (f"// The mutation build's copy of {file} (scripts/mutants/schemata.py): "
              f"{len(placed)} mutant(s) from scripts/mutants/catalogue.toml. Edit the source, not this.\n"
              '#include "core/mutant.hpp"\n')
    if text.startswith("#pragma once\n"):
        text = "#pragma once\n" + header + text[len("#pragma once\n"):]
    else:
        text = header + text
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # Only a copy that changed is written, so that a build does not recompile what did not.
    if not out.exists() or out.read_text() != text:
        out.write_text(text)
    manifest = "".join(f"compiled {e['id']}\n" for e, _ in placed)
    manifest += "".join(f"left out {id}: {why}\n" for id, why in problems)
    Path(f"{out}.mutants").write_text(manifest)
    for id, why in problems:
        print(f"mutants: warning: '{id}' is not compiled in: {why}", file=sys.stderr)


def check(entries, root):
    problems = []
    for file in sorted({e["file"] for e in entries}):
        if not (Path(root) / file).is_file():
            problems += [(e["id"], f"{file} does not exist") for e in entries if e["file"] == file]
            continue
        problems += sites(entries, root, file)[2]
    for e in entries:
        try:
            re.compile(e["tests"])
        except re.error as error:
            problems.append((e["id"], f"its tests regex '{e['tests']}' is malformed: {error}"))
    for id, why in problems:
        print(f"source-mutation: entry '{id}': {why}", file=sys.stderr)
    return 1 if problems else 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ("files", "generate", "check", "list"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        entries = load(argv[2])
    except (CatalogueError, tomllib.TOMLDecodeError, OSError) as error:
        print(f"mutants: {error}", file=sys.stderr)
        return 1
    command = argv[1]
    if command == "files":
        print("\n".join(sorted({e["file"] for e in entries if (Path(argv[3]) / e["file"]).is_file()})))
    elif command == "generate":
        generate(entries, argv[3], argv[4], argv[5])
    elif command == "check":
        return check(entries, argv[3])
    else:
        for e in entries:
            fields = (e["id"], e["tests"], e["file"], " ".join(e["reason"].split()))
            print("\x1f".join(fields))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
