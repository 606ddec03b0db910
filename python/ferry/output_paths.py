"""Outputs that would lose data: an empty path (an unset shell variable), an output that names a file the
command reads, or one that names the file another of its outputs names. Two paths name one file when they
resolve to the same place through their symbolic links, or (both existing) share an inode: a hard link."""
from __future__ import annotations

import os
from dataclasses import dataclass

from .output import STANDARD_OUTPUT


@dataclass(frozen=True)
class Output:
    option: str   # "-o", "--screenshot"
    path: str
    holds: str    # "the page", "the screenshot"


def refusal(inputs: list, inputs_are: str, outputs: list) -> str:
    """Why these outputs cannot be written ("" when they can). inputs: the paths the command reads, each
    of them `inputs_are` ("a results file given as input"); outputs: Output, in the order the options are
    described. Looks at paths only: reads and writes nothing."""
    for out in outputs:
        if out.path == "":
            return (f"{out.option} is empty (an unset variable?): give {out.holds} a path, or "
                    f"{STANDARD_OUTPUT} for standard output")
    files = [out for out in outputs if out.path != STANDARD_OUTPUT]
    for out in files:
        for path in inputs:
            if same_file(out.path, path):
                spelled = "" if out.path == str(path) else f" ('{path}')"
                return f"{out.option} '{out.path}' is also {inputs_are}{spelled}: give {out.holds} another path"
    for i, first in enumerate(files):
        for second in files[i + 1:]:
            if same_file(first.path, second.path):
                return (f"{first.option} '{first.path}' and {second.option} '{second.path}' name the same file: "
                        f"give {first.holds} and {second.holds} a path each")
    return ""


def same_file(a, b) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:   # one of them does not exist (yet)
        return False
