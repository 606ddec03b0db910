"""One module per workload, each turning that workload's rows from every file into
a section of the report. A module declares

    WORKLOAD = "link"                 # the workload name ferry writes in its results
    TITLE = "link: ..."               # its section's heading
    FIGURES = {"ceiling": ("device", "path", "memory", "direction")}
    def render(entries) -> str        # the section's HTML

FIGURES names, per section, the params that say which figure a row is (what
`ferry compare` matches BASE and NEW by); a section not listed is named by all
its params. A module may add MODEL_FIGURES, {workload name: FIGURES}, for the
rows one of its workload's commands writes under another name (`ferry model
beff` writes beff-model). WORKLOAD, FIGURES and MODEL_FIGURES are written as
literals: compare reads them without importing the module, so it needs no matplotlib.

Adding a workload's report is adding its file here: report.py and compare.py
find the modules below, all but common (what they share) and generic (the
section of a workload without a module)."""
from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil

NOT_A_WORKLOAD = ("common", "generic")
DECLARED = ("WORKLOAD", "TITLE", "FIGURES")
LITERALS = ("WORKLOAD", "FIGURES", "MODEL_FIGURES")


class SectionError(Exception):
    """A module under ferry/sections that does not declare what a workload's section must."""


def module_names() -> list:
    """ferry.sections.<name> for every workload's module, by file name."""
    return sorted(f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__)
                  if not m.ispkg and m.name not in NOT_A_WORKLOAD)


def modules() -> dict:
    """WORKLOAD -> its imported module (which imports matplotlib through plots)."""
    found, owners = {}, {}
    for name in module_names():
        module = importlib.import_module(name)
        missing = [n for n in DECLARED if not hasattr(module, n)]
        if not callable(getattr(module, "render", None)):
            missing.append("render")
        if missing:
            raise SectionError(f"{module.__file__} declares no {', '.join(missing)}: see ferry/sections/__init__.py")
        _claim(owners, module.WORKLOAD, name)
        found[module.WORKLOAD] = module
    return found


def figures() -> dict:
    """(workload, section) -> the params that name its figures, read from each module's
    literals without importing it, so `ferry compare` needs no matplotlib."""
    found, owners = {}, {}
    for name in module_names():
        declared = _literals(name)
        workloads = {declared["WORKLOAD"]: declared["FIGURES"], **declared.get("MODEL_FIGURES", {})}
        for workload, sections in workloads.items():
            _claim(owners, workload, name)
            for section, params in sections.items():
                found[(workload, section)] = tuple(params)
    return found


def _claim(owners: dict, workload: str, name: str) -> None:
    """One module per workload name: a second would silently replace the first."""
    if workload in owners:
        raise SectionError(f"{owners[workload]} and {name} both declare the workload '{workload}'")
    owners[workload] = name


def _literals(name: str) -> dict:
    """The module's top-level WORKLOAD, FIGURES and MODEL_FIGURES, each a Python literal."""
    spec = importlib.util.find_spec(name)
    tree = ast.parse(spec.loader.get_source(name), spec.origin)
    declared = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in LITERALS:
            try:
                declared[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                raise SectionError(f"{spec.origin}: {node.targets[0].id} must be a literal (compare reads it without "
                                   "importing the module)") from None
    missing = [n for n in ("WORKLOAD", "FIGURES") if n not in declared]
    if missing:
        raise SectionError(f"{spec.origin} declares no {', '.join(missing)}: see ferry/sections/__init__.py")
    return declared
