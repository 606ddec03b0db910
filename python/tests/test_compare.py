"""ferry compare: ratios per figure, and a non-zero exit only when a figure got worse past the threshold."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import RUNS, derived, document, ferry_binary, on_gpu, row, run_ferry_py, write_json

from ferry.compare import compare, parse_threshold
from ferry.results import load


def pair(make_results, base_rows, new_rows, new_verification="PASSED"):
    """Two runs on a GPU, whose timings compare judges."""
    base = load(make_results("base.json", on_gpu(document(rows=base_rows))))
    new = load(make_results("new.json", on_gpu(document(rows=new_rows, verification=new_verification))))
    return base, new


@pytest.mark.parametrize("metric, base, new, verdict", [
    ("rate", 100.0, 90.0, "regressed"),     # 10% less bandwidth
    ("rate", 100.0, 96.0, "same"),          # inside 5%
    ("rate", 100.0, 110.0, "improved"),
    ("latency", 10.0, 11.0, "regressed"),   # 10% slower
    ("latency", 10.0, 10.4, "same"),
    ("latency", 10.0, 9.0, "improved"),
])
def test_a_figure_regresses_when_it_moves_the_wrong_way_past_the_threshold(make_results, metric, base, new, verdict):
    comparison = compare(*pair(make_results, [row(metric=metric, value=base)], [row(metric=metric, value=new)]), 0.05)
    (figure,) = comparison.figures
    assert figure.ratio == pytest.approx(new / base)
    assert figure.verdict(0.05) == verdict
    assert comparison.failed == (verdict == "regressed")


@pytest.mark.parametrize("metric", ["rate", "latency"])
def test_a_figure_that_is_zero_in_both_runs_is_the_same_and_one_that_leaves_zero_moved(make_results, metric):
    # Only a derived figure can be 0 (beff's fitted t_lat); a measured one is refused when loaded.
    same = compare(*pair(make_results, [derived(0.0, metric=metric)], [derived(0.0, metric=metric)]), 0.05)
    assert same.figures[0].verdict(0.05) == "same" and not same.failed
    moved = compare(*pair(make_results, [derived(0.0, metric=metric)], [derived(1.0, metric=metric)]), 0.05)
    assert moved.figures[0].verdict(0.05) == ("improved" if metric == "rate" else "regressed")


def test_a_figure_whose_data_arrived_wrong_in_new_fails_however_fast_it_was(make_results):
    comparison = compare(*pair(make_results, [row(value=10)], [row(value=20, check="FAILED")], "FAILED"), 0.05)
    assert comparison.figures[0].verdict(0.05) == "FAILED" and comparison.failed


def test_figures_are_matched_by_their_settings_not_by_results_carried_in_params(make_results):
    def ladder(value, delta, speedup):
        return row(section="ladder", metric="latency", value=value, keys=32768, rung="+graph", kernels=120,
                   host="pinned", **{"delta us": delta, "vs baseline": speedup})

    dispatch = [dict(document("dispatch")["workloads"][0])]
    base_doc = document(workloads=[{**dispatch[0], "rows": [ladder(200.0, "-30.0", "7.00x")]}])
    new_doc = document(workloads=[{**dispatch[0], "rows": [ladder(190.0, "-41.0", "7.40x")]}])
    comparison = compare(load(make_results("b.json", base_doc)), load(make_results("n.json", new_doc)), 0.05)
    assert len(comparison.figures) == 1 and not comparison.only_in_base
    assert comparison.figures[0].name == "keys=32768, rung=+graph, host=pinned"


@pytest.mark.parametrize("text, value", [("5%", 0.05), ("5", 0.05), ("0%", 0.0), ("12.5%", 0.125)])
def test_thresholds_are_percentages(text, value):
    assert parse_threshold(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["abc", "-1%", "100%", "5%%", ""])
def test_a_threshold_that_is_not_a_percentage_is_refused(text):
    with pytest.raises(ValueError, match="threshold"):
        parse_threshold(text)


def test_comparing_a_run_with_itself_exits_zero_and_prints_every_figure(emulator_results):
    done = run_ferry_py("compare", emulator_results["dispatch"], emulator_results["dispatch"])
    assert done.returncode == 0, done.stderr
    figures = sum(len(w["rows"]) for w in json.loads(emulator_results["dispatch"].read_text())["workloads"])
    assert f"{figures} figures compared at a 5% threshold" in done.stdout
    assert f"{figures} within the threshold" in done.stdout
    assert "new/base" in done.stdout and "1.000" in done.stdout


def gpu_copy(path, folder, name):
    """The emulator's results file as if a GPU had written it: the same rows, GPU timings."""
    return write_json(folder / name, on_gpu(json.loads(path.read_text())))


def test_a_slower_copy_in_new_exits_one_and_names_the_worst_figure(emulator_results, tmp_path):
    doc = on_gpu(json.loads(emulator_results["link"].read_text()))
    rows = doc["workloads"][0]["rows"]
    slowed = next(r for r in rows if r["section"] == "bandwidth" and r["params"]["memory"] == "pinned")
    slowed["value"] /= 2
    new = write_json(tmp_path / "slower.json", doc)
    base = gpu_copy(emulator_results["link"], tmp_path, "base.json")
    done = run_ferry_py("compare", base, new, "--threshold", "10%", "--show", "changed")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 regressed" in done.stdout
    assert "REGRESSED: worst is link bandwidth device=0, memory=pinned" in done.stdout
    assert "0.500" in done.stdout and "regressed" in done.stdout


def test_only_limits_the_comparison_to_the_named_sections(emulator_results, tmp_path):
    doc = on_gpu(json.loads(emulator_results["link"].read_text()))
    for r in doc["workloads"][0]["rows"]:
        if r["section"] == "bandwidth":
            r["value"] /= 2          # every bandwidth figure regressed; the ceilings did not
    new = write_json(tmp_path / "halved.json", doc)
    base = gpu_copy(emulator_results["link"], tmp_path, "base.json")
    assert run_ferry_py("compare", base, new).returncode == 1
    done = run_ferry_py("compare", base, new, "--only", "link/ceiling,dispatch")
    assert done.returncode == 0, done.stdout
    ceilings = sum(1 for r in doc["workloads"][0]["rows"] if r["section"] == "ceiling")
    assert f"{ceilings} figures compared" in done.stdout and " bandwidth " not in done.stdout


@pytest.mark.parametrize("args, message", [
    (["--only", "topo"], "no figure in common within topo"),
    (["--threshold", "lots"], "threshold 'lots' is not a percentage"),
    (["--threshold", "150%"], "below 100%"),
])
def test_bad_options_exit_two_with_one_message(emulator_results, args, message):
    done = run_ferry_py("compare", emulator_results["link"], emulator_results["link"], *args)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""


def test_files_with_no_figure_in_common_exit_two(emulator_results, make_results):
    other = make_results("other.json", document("topo", rows=[row(section="pingping")]))
    done = run_ferry_py("compare", emulator_results["dispatch"], other)
    assert done.returncode == 2 and "hold no figure in common" in done.stderr


def test_a_malformed_file_exits_two_naming_it(emulator_results, make_results):
    broken = make_results("broken.json", "{")
    done = run_ferry_py("compare", emulator_results["link"], broken)
    assert done.returncode == 2 and f"'{broken}' is not a ferry results file" in done.stderr


def test_a_failed_figure_with_a_zero_latency_is_reported_not_a_crash(make_results):
    from ferry.compare import render
    comparison = compare(*pair(make_results, [derived(5.0)], [derived(0.0, check="FAILED")], "FAILED"), 0.05)
    text = render(comparison)
    assert "1 failed verification in NEW" in text and "NEW's verification FAILED" in text


def test_every_workload_ferry_wrote_matches_its_rows_checksum(emulator_results):
    # Python recomputes what C++ wrote: the two must agree on every float and string ferry writes.
    for path in emulator_results.values():
        results = load(path)
        assert [w.rows_match_checksum for w in results.workloads] == [True] * len(results.workloads), path
        assert results.edited_workloads() == []


def test_a_file_edited_after_the_run_is_compared_with_a_warning_naming_the_workload(emulator_results, tmp_path):
    doc = json.loads(emulator_results["dispatch"].read_text())
    doc["workloads"][-1]["rows"][0]["value"] *= 0.999   # within the threshold: only the checksum can tell
    edited = write_json(tmp_path / "edited.json", doc)
    done = run_ferry_py("compare", emulator_results["dispatch"], edited)
    assert done.returncode == 0, done.stderr
    assert f"warning: '{edited}': the dispatch rows do not match the checksum" in done.stderr
    untouched = run_ferry_py("compare", emulator_results["dispatch"], emulator_results["dispatch"])
    assert "warning" not in untouched.stderr


def test_a_file_without_a_checksum_is_compared_without_a_warning(make_results):
    # Files written before ferry had checksums carry none; they are not edited for that.
    base = make_results("base.json", document("link", rows=[row()]))
    done = run_ferry_py("compare", base, base)
    assert done.returncode == 0 and "warning" not in done.stderr


def failing_rows(n):
    return [row(check="FAILED", device=i, direction="h2d") for i in range(n)]


@pytest.mark.parametrize("failed_side", ["BASE", "NEW"])
def test_a_file_with_failed_rows_is_refused_with_exit_two_naming_the_file_and_the_rows(make_results, failed_side):
    clean = make_results("clean.json", document(rows=[row(device=i, direction="h2d") for i in range(7)]))
    failed = make_results("failed.json", document(rows=failing_rows(7), verification="FAILED"))
    base, new = (failed, clean) if failed_side == "BASE" else (clean, failed)
    done = run_ferry_py("compare", base, new)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert f"'{failed}' ({failed_side}): 7 rows FAILED their check" in done.stderr
    assert "link bandwidth (device=0, direction=h2d); link bandwidth (device=1, direction=h2d)" in done.stderr
    assert "device=4" in done.stderr and "device=5" not in done.stderr and "; and 2 more" in done.stderr
    assert f"'{clean}'" not in done.stderr and "--allow-failed" in done.stderr


def test_a_run_whose_verification_failed_without_a_failed_row_is_refused(make_results):
    clean = make_results("clean.json", document(rows=[row()]))
    edited = make_results("edited.json", document(rows=[row()], verification="FAILED"))
    done = run_ferry_py("compare", edited, clean)
    assert done.returncode == 2
    assert f"'{edited}' (BASE): its verification says FAILED" in done.stderr


def printed_lines(text):
    return [line for line in text.splitlines() if line]


def test_allow_failed_compares_a_failed_base_and_every_line_says_so(make_results):
    base = make_results("base.json", document(rows=[row(value=10, check="FAILED", bytes=4096), row(value=10, bytes=8192)],
                                              verification="FAILED"))
    new = make_results("new.json", document(rows=[row(value=30, bytes=4096), row(value=10, bytes=8192)]))
    done = run_ferry_py("compare", base, new, "--allow-failed")
    # A figure FAILED only in BASE is no regression, and NEW passed: nothing to exit 1 for.
    assert done.returncode == 0, done.stdout + done.stderr
    lines = printed_lines(done.stdout)
    assert len(lines) > 5 and all(line.startswith("[FAILED input: BASE] ") for line in lines), done.stdout
    assert "BASE FAILED" in next(line for line in lines if "bytes=4 KiB" in line and "link" in line)
    assert "1 failed verification in BASE" in done.stdout
    assert f"'{base}' (BASE): 1 row FAILED its check: link bandwidth (bytes=4 KiB)" in done.stdout


def test_allow_failed_still_exits_one_for_a_figure_that_failed_in_new(make_results):
    base = make_results("base.json", document(rows=[row(value=10)]))
    new = make_results("new.json", document(rows=[row(value=10, check="FAILED")], verification="FAILED"))
    done = run_ferry_py("compare", base, new, "--allow-failed")
    assert done.returncode == 1, done.stdout + done.stderr
    assert all(line.startswith("[FAILED input: NEW] ") for line in printed_lines(done.stdout)), done.stdout
    assert "1 failed verification in NEW" in done.stdout


def test_a_failed_beff_run_is_refused_and_compared_with_allow_failed(emulator_results, tmp_path):
    # A real FAILED run, as the test hook makes it: one 4 KiB message arrives corrupted.
    failed = tmp_path / "beff-failed.json"
    env = dict(os.environ, FERRY_FAULT_CORRUPT_MESSAGE="4K")
    run = subprocess.run([str(ferry_binary())] + RUNS["beff"] + ["--backend", "emu", "-q", "--json", str(failed)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    refused = run_ferry_py("compare", emulator_results["beff"], failed)
    assert refused.returncode == 2 and f"'{failed}' (NEW):" in refused.stderr, refused.stderr
    assert "beff ring (transport=p2p-ce, MSize bytes=4 KiB)" in refused.stderr
    allowed = run_ferry_py("compare", emulator_results["beff"], failed, "--allow-failed")
    assert allowed.returncode == 1, allowed.stderr   # NEW's 4 KiB rows FAILED
    assert all(line.startswith("[FAILED input: NEW] ") for line in printed_lines(allowed.stdout))
