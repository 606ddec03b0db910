"""Shared fixtures: results made by the real `ferry` binary on its CPU emulator, and
small hand-built results documents for the cases a run cannot be asked to produce."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO / "python"

# What each emulator run is asked for: small, but every plot of the report has data.
RUNS = {
    "link": ["run", "link", "--quick", "--devices", "0,1"],
    "stream": ["run", "stream", "--quick", "--depth", "1,4"],
    "overlap": ["run", "overlap", "--quick"],
    "dispatch": ["run", "dispatch", "--quick", "--keys", "1K,4K,32K", "--rungs", "baseline,+graph,+persistent,+onchip"],
    "beff": ["run", "beff", "--quick", "--devices", "0,1", "--transport", "p2p-ce,p2p-sm"],
    "topo": ["run", "topo", "--quick", "--devices", "0,1,2", "--transport", "p2p-ce,p2p-sm", "--sizes", "1K:256K:x4"],
}


def ferry_binary() -> Path:
    given = os.environ.get("FERRY_BIN")
    candidates = [Path(given)] if given else [REPO / d / "src" / "ferry" for d in ("build", "build-emu", "build-cpu")]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    pytest.fail("no ferry binary: build it (bash scripts/test.sh) or set FERRY_BIN; looked at "
                + ", ".join(map(str, candidates)))


@pytest.fixture(scope="session")
def emulator_results(tmp_path_factory) -> dict:
    """workload -> results JSON written by `ferry run WORKLOAD --backend emu`."""
    folder = tmp_path_factory.mktemp("emulator")
    binary = ferry_binary()
    out = {}
    for name, args in RUNS.items():
        path = folder / f"{name}-emu.json"
        done = subprocess.run([str(binary)] + args + ["--backend", "emu", "--json", str(path)], capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"ferry {' '.join(args)} failed ({done.returncode}): {done.stderr}"
        out[name] = path
    return out


def run_ferry_py(*args, cwd=None) -> subprocess.CompletedProcess:
    """`python -m ferry ...` as a user runs it, from the source tree."""
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "ferry", *map(str, args)], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=600)


def row(section="bandwidth", metric="rate", value=10.0, unit=None, check="PASSED", model=None, **params) -> dict:
    return {
        "section": section, "params": params or {"bytes": 4096}, "metric": metric,
        "unit": unit or ("GB/s" if metric == "rate" else "us"), "value": value, "model": model, "model_basis": "",
        "efficiency": None if model is None else (value / model if metric == "rate" else model / value),
        "check": check, "bytes_per_sample": 4096, "samples": 3, "samples_s": [1e-6, 1e-6, 1e-6],
        "stats_s": {"min": 0.9e-6, "median": 1e-6, "mean": 1e-6, "p99": 1.2e-6, "max": 1.2e-6},
    }


def derived(value: float, section="model", metric="latency", check="n/a", **params) -> dict:
    """A figure computed from other rows, as ferry writes it (beff's b_eff and model terms): no samples or
    stats of its own, and its value may be 0 (a fitted t_lat)."""
    r = row(section=section, metric=metric, value=value, check=check, **params)
    r.update(derived=True, samples=0, samples_s=[], bytes_per_sample=0, model=None, efficiency=None)
    del r["stats_s"]
    return r


def document(workload="link", rows=(), verification="PASSED", workloads=None) -> dict:
    return {
        "schema": "ferry.results/1", "ferry_version": "0.1.0", "created_utc": "2026-11-22T00:00:00Z",
        "command_line": ["ferry", "run", workload], "verification": verification,
        "machine": {"host": {"hostname": "h", "cpu": "cpu", "logical_cores": 2, "memory_bytes": 1 << 30, "os": "Linux"},
                    "backend": "emu", "timings": "emulated: CPU timings, not GPU timings", "gpus": [], "peers": []},
        "workloads": workloads if workloads is not None else [
            {"name": workload, "verification": verification, "config": {}, "sections": [], "rows": list(rows),
             "skipped": [], "notes": []}],
    }


def on_gpu(doc: dict) -> dict:
    """doc as a run on a GPU writes it: GPU timings, which compare judges (the emulator's CPU timings it
    only prints). For documents that stand for GPU runs in tests of regression verdicts."""
    doc["machine"].update(backend="cuda", timings="gpu")
    return doc


def write_json(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


@pytest.fixture
def make_results(tmp_path):
    """make_results(name, doc) -> path of a results file holding doc (a dict, or raw text)."""
    def make(name: str, doc) -> Path:
        return write_json(tmp_path / name, copy.deepcopy(doc) if isinstance(doc, dict) else doc)
    return make
