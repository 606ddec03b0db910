"""docs/results/ is evidence, not a notebook: every file there is cited by the README or a page in docs/,
every citation there names a file that exists, and the folder stays small (at most MAX_FILES files, MAX_BYTES
on disk).

A citation is a markdown link whose target lies under docs/results/ (resolved from the citing file), or a
path written out as `docs/results/NAME` (or `results/NAME` on a page in docs/). A path after a commit and a
colon (`git show abe820c:docs/results/NAME`) names a file in that commit's tree, not in this one, and is
not a citation of this tree. A bare results file name (`stream-h100.txt` in a table) must exist too."""
import re
import subprocess
from pathlib import Path

from conftest import REPO

RESULTS = REPO / "docs" / "results"
MAX_FILES = 80
# 5 MiB since beff's evidence spans four GPUs (one process on two and on four, a rank per GPU: 0.4 MB of
# tables and JSON); the screenshots are cut to their sections and kept to a few colours.
MAX_BYTES = 5 * 1024 * 1024
BLOCK = 4096

MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
# A written-out path, not one that follows a commit's colon or is part of a longer path or URL.
WRITTEN_PATH = re.compile(r"(?<![\w/.:-])((?:docs/)?results/[\w./-]*[\w/])")
# A results file named on its own: a machine kind in the name and a results extension.
BARE_NAME = re.compile(r"(?<![\w/.:-])([\w-]+-h[12]00(?:x\d+)?[\w-]*\.(?:txt|json\.gz|json|png|svg|log))\b")


def doc_files() -> list:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def results_files() -> list:
    """Paths relative to docs/results of what the repository holds there: git's index, else the folder."""
    try:
        listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "docs/results"], capture_output=True,
                                check=True).stdout.decode()
        names = [Path(p).relative_to("docs/results").as_posix() for p in listed.split("\0") if p]
        if names:
            return sorted(names)
    except (OSError, subprocess.CalledProcessError):
        pass
    return sorted(p.relative_to(RESULTS).as_posix() for p in RESULTS.rglob("*") if p.is_file())


def citations() -> list:
    """(citing file, line number, target path under docs/results as written, resolved absolute path)."""
    found = []
    for doc in doc_files():
        for number, line in enumerate(doc.read_text().splitlines(), 1):
            targets = []
            for target in MARKDOWN_LINK.findall(line):
                if "://" in target or target.startswith("#"):
                    continue
                targets.append((target, (doc.parent / target.split("#")[0]).resolve()))
            for written in WRITTEN_PATH.findall(line):
                base = REPO if written.startswith("docs/") else doc.parent
                targets.append((written, (base / written).resolve()))
            for target, resolved in targets:
                if resolved == RESULTS or RESULTS in resolved.parents:
                    found.append((doc.relative_to(REPO).as_posix(), number, target, resolved))
    return found


def bare_names() -> list:
    """(citing file, line number, a results file's name written on its own)."""
    found = []
    for doc in doc_files():
        for number, line in enumerate(doc.read_text().splitlines(), 1):
            found += [(doc.relative_to(REPO).as_posix(), number, name) for name in BARE_NAME.findall(line)]
    return found


def test_every_citation_of_docs_results_names_a_file_that_exists():
    dangling = [f"{doc}:{number}: {target}" for doc, number, target, resolved in citations()
                if not (resolved.is_file() or (resolved.is_dir() and any(resolved.iterdir())))]
    assert not dangling, "citations of files that docs/results does not hold:\n" + "\n".join(dangling)


def test_every_results_file_named_on_its_own_exists():
    held = {Path(name).name for name in results_files()}
    missing = [f"{doc}:{number}: {name}" for doc, number, name in bare_names() if name not in held]
    assert not missing, "results files named in the docs that docs/results does not hold:\n" + "\n".join(missing)


def test_every_file_in_docs_results_is_cited_by_a_doc():
    cited = {resolved for _, _, _, resolved in citations()}
    uncited = [name for name in results_files()
               if not any(RESULTS / name == path or path in (RESULTS / name).parents for path in cited)]
    assert not uncited, ("files in docs/results that neither the README nor a page in docs/ cites "
                         "(cite them or `git rm` them):\n" + "\n".join(uncited))


def test_docs_results_stays_within_its_limits():
    names = results_files()
    sizes = {name: (RESULTS / name).stat().st_size for name in names if (RESULTS / name).is_file()}
    # As `du` counts them: each file in whole blocks of 4 KiB.
    on_disk = sum(-(-size // BLOCK) * BLOCK for size in sizes.values())
    largest = ", ".join(f"{name} ({size} B)" for name, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:5])
    assert len(names) <= MAX_FILES, f"docs/results holds {len(names)} files, more than {MAX_FILES}"
    assert on_disk <= MAX_BYTES, f"docs/results takes {on_disk} bytes, more than {MAX_BYTES}; the largest: {largest}"
