"""`pip install ./python` into an environment of its own, then report and compare from there, away from
the source tree (the C++ install and the .deb are tested by tests/install/install_test.sh)."""
import os
import subprocess
import sys

from conftest import PYTHON_DIR


def test_pip_installs_the_package_and_python_m_ferry_runs_from_there(tmp_path, emulator_results):
    site = tmp_path / "site"
    # No network and no build isolation: the package builds with the setuptools the environment has.
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                    "--no-build-isolation", "--no-index", "--target", str(site), str(PYTHON_DIR)],
                   check=True, capture_output=True, timeout=300)
    env = dict(os.environ, PYTHONPATH=str(site))
    away = tmp_path / "elsewhere"   # not the source tree: only the installed copy can be imported
    away.mkdir()

    def python_m(*args):
        return subprocess.run([sys.executable, "-m", "ferry", *map(str, args)], capture_output=True, text=True,
                              env=env, cwd=away, timeout=600)

    where = subprocess.run([sys.executable, "-c", "import ferry; print(ferry.__file__)"], capture_output=True,
                           text=True, env=env, cwd=away, check=True).stdout
    assert where.startswith(str(site)), where
    link = emulator_results["link"]
    report = python_m("report", link, "-o", away / "report.html")
    assert report.returncode == 0, report.stderr
    assert (away / "report.html").read_text().startswith("<!DOCTYPE html>")
    compare = python_m("compare", link, link)
    assert compare.returncode == 0, compare.stderr
    assert (site / "bin" / "ferry-report").exists() or any(site.glob("**/ferry-report")), "the console scripts"
