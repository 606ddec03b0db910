"""ferry report: a self-contained page with a section per workload and the plots each promises."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import document, ferry_binary, row, run_ferry_py
from page_checks import EXPECTED, Page, css_fetches


@pytest.fixture(scope="module")
def emulator_page(emulator_results, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    done = run_ferry_py("report", *emulator_results.values(), "-o", out)
    assert done.returncode == 0, done.stderr
    return out.read_text()


def test_every_workload_has_its_section_plots_and_tables(emulator_page):
    page = Page(emulator_page)
    missing = {i: tag for i, tag in EXPECTED.items() if page.ids.get(i) != tag}
    assert not missing, f"missing or wrong elements: {missing}"
    empty = [i for i, n in page.figure_contents.items() if n < 20]
    assert not empty, f"plots with (almost) nothing drawn: {empty}"


def test_the_page_fetches_nothing(emulator_page):
    page = Page(emulator_page)
    assert page.fetches == [] and css_fetches(emulator_page) == []
    assert "<script" not in emulator_page


def test_the_machine_facts_come_first_and_say_the_timings_are_the_emulators(emulator_page):
    assert emulator_page.index('id="machine"') < emulator_page.index('id="workload-link"')
    assert "<td>emulated: CPU timings, not GPU timings</td>" in emulator_page
    assert "ferry CPU emulator" in emulator_page


def test_the_figures_tables_carry_the_measured_values(emulator_results, emulator_page):
    link = json.loads(emulator_results["link"].read_text())["workloads"][0]
    ceiling = next(r for r in link["rows"] if r["section"] == "ceiling")
    value = f"{ceiling['value']:.2f} GB/s" if ceiling["value"] < 100 else f"{ceiling['value']:.1f} GB/s"
    assert value in emulator_page


def test_several_files_overlay_as_named_series(emulator_results, tmp_path):
    out = tmp_path / "two.html"
    done = run_ferry_py("report", emulator_results["overlap"], emulator_results["overlap"], "--labels", "before,after",
                        "-o", out)
    assert done.returncode == 0, done.stderr
    page = Page(out.read_text())
    plot = out.read_text().split('id="plot-overlap-splits"')[1].split("</figure>")[0]
    assert "pipelined · before" in plot and "pipelined · after" in plot
    assert "before" in page.texts and "after" in page.texts   # machine table columns


def test_a_workload_without_its_own_plots_still_shows_every_figure(make_results, tmp_path):
    other = make_results("other.json", document("teleport", rows=[row(section="ring", metric="rate", value=42.5,
                                                                      transport="nccl", bytes=1024)]))
    out = tmp_path / "other.html"
    done = run_ferry_py("report", other, "-o", out)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert 'id="workload-teleport"' in text and 'id="table-teleport-figures"' in text
    assert "transport=nccl, bytes=1 KiB" in text and "42.50 GB/s" in text


def test_beff_plots_one_line_and_one_legend_entry_per_transport(emulator_page):
    # The page of every workload holds beff's section as a report of the beff file alone draws it.
    figure = emulator_page.split('id="plot-beff-bandwidth"')[1].split("</figure>")[0]
    # Legend text is real SVG text: each transport named once, with the model's key.
    assert figure.count(">p2p-ce<") == 1 and figure.count(">p2p-sm<") == 1, figure.count(">p2p-ce<")


def test_beff_rows_without_the_params_its_plot_needs_are_left_out_not_a_crash(make_results, tmp_path):
    beff = make_results("beff.json", document("beff", rows=[row(section="ring", metric="rate", value=42.5, bytes=1024)]))
    out = tmp_path / "beff.html"
    done = run_ferry_py("report", beff, "-o", out)
    assert done.returncode == 0, done.stderr
    assert 'id="workload-beff"' in out.read_text()


def test_beff_and_topo_tables_set_each_transport_beside_the_best_nccl_variant(make_results, tmp_path):
    beff = document("beff", rows=[
        row(section="beff", metric="rate", value=88.6, transport="p2p-sm", devices=2, **{"vs best NCCL": "3.53x"}),
        row(section="beff", metric="rate", value=25.1, transport="nccl-graph-reg", devices=2,
            **{"vs best NCCL": "1.00x"})])
    topo = document("topo", rows=[
        row(section="peak", metric="rate", value=381.7, topology="pair both", transport="p2p-ce", devices="0,1",
            **{"vs best NCCL": "1.08x"})])
    out = tmp_path / "nccl.html"
    done = run_ferry_py("report", make_results("beff.json", beff), make_results("topo.json", topo), "-o", out)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    beff_table = text.split('id="table-beff-transports"')[1].split("</table>")[0]
    assert "vs best NCCL" in beff_table and "3.53x" in beff_table and "1.00x" in beff_table
    peaks = text.split('id="table-topo-peaks"')[1].split("</table>")[0]
    assert "vs best NCCL" in peaks and "1.08x" in peaks


def test_topo_draws_a_panel_per_topology_and_the_matrix_as_heat_maps(emulator_page):
    text = emulator_page
    bandwidth = text.split('id="plot-topo-bandwidth"')[1].split("</figure>")[0]
    for topology in ("pair one-way", "pair both", "ring", "fully-connected", "host-staged"):
        assert f">{topology}<" in bandwidth, topology
    matrix = text.split('id="plot-topo-matrix"')[1].split("</figure>")[0]
    # Three devices: six ordered pairs per transport, bandwidth and latency each a panel.
    assert matrix.count("p2p-ce: GB/s") == 1 and matrix.count("p2p-sm: one-way us") == 1
    assert "fully-connected by p2p-ce" in text.split('id="table-topo-peaks"')[1].split("</table>")[0]


def test_topo_rows_without_the_params_its_plots_need_are_left_out_not_a_crash(make_results, tmp_path):
    topo = make_results("topo.json", document("topo", rows=[row(section="bandwidth", metric="rate", value=4.5,
                                                                bytes=1024), row(section="matrix", metric="rate",
                                                                                 value=3.0, transport="p2p-ce")]))
    out = tmp_path / "topo.html"
    done = run_ferry_py("report", topo, "-o", out)
    assert done.returncode == 0, done.stderr
    assert 'id="workload-topo"' in out.read_text()


def test_failed_rows_are_flagged_on_the_page(make_results, tmp_path):
    failed = make_results("failed.json", document("link", verification="FAILED",
                                                  rows=[row(section="ceiling", check="FAILED", device=0, path="copy engine",
                                                            memory="pinned", direction="h2d")]))
    out = tmp_path / "failed.html"
    assert run_ferry_py("report", failed, "-o", out).returncode == 0
    text = out.read_text()
    assert "Verification FAILED in failed" in text and 'class="failed"' in text


@pytest.mark.parametrize("args, message", [
    (["{missing}"], "cannot read"),
    (["{broken}"], "is not a ferry results file: not JSON"),
    (["{good}", "--labels", "a,b"], "--labels has 2 names for 1 results files"),
    (["{good}", "-o", "{nowhere}/r.html"], "folder"),
])
def test_bad_input_exits_two_and_writes_no_page(emulator_results, make_results, tmp_path, args, message):
    names = {"missing": tmp_path / "missing.json", "broken": make_results("broken.json", '{"schema": "ferry.res'),
             "good": emulator_results["link"], "nowhere": tmp_path / "no" / "such"}
    out = tmp_path / "out.html"
    argv = [a.format(**names) for a in args]
    done = run_ferry_py("report", *argv, *(["-o", out] if "-o" not in argv else []))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and done.stderr.count("\n") == 1
    assert not out.exists() and not list(tmp_path.glob(".out.html*"))


def test_the_ferry_command_forwards_report_to_this_package(emulator_results, tmp_path):
    out = tmp_path / "via-ferry.html"
    env = dict(os.environ, FERRY_PYTHON=sys.executable)
    done = subprocess.run([str(ferry_binary()), "report", str(emulator_results["dispatch"]), "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "ferry report: wrote" in done.stdout and 'id="plot-dispatch-ladder"' in out.read_text()


def test_the_stream_frontier_keeps_only_points_no_other_beats_on_both_figures():
    from ferry.sections.stream import frontier
    # (throughput, latency): (10, 5) is beaten by (20, 4); (15, 9) by (30, 8).
    points = [(10, 5), (20, 4), (30, 8), (15, 9), (40, 20)]
    assert frontier(points) == [(20, 4), (30, 8), (40, 20)]
    assert frontier([]) == []


def test_beff_sets_each_transport_beside_the_best_nccl_of_either_layout_of_runs_made_together(make_results, tmp_path):
    def beff_file(name, created, rank, rows):
        doc = document("beff", rows=rows + [row(section="exchange", metric="rate", value=1.0, transport="nccl",
                                                participant=1, rank=rank, bytes=8)])
        doc["created_utc"] = created
        return make_results(name, doc)

    one = beff_file("one.json", "2026-11-27T23:39:44Z", 0, [
        row(section="beff", metric="rate", value=87.67, transport="p2p-sm", devices=2),
        row(section="beff", metric="rate", value=25.04, transport="nccl-graph-reg", devices=2)])
    ranks = beff_file("ranks.json", "2026-11-27T23:40:02Z", 1, [
        row(section="beff", metric="rate", value=27.35, transport="nccl-graph-reg", devices=2)])
    # Another run, a day later: its faster NCCL is no yardstick for these.
    later = beff_file("later.json", "2026-11-28T23:40:02Z", 1, [
        row(section="beff", metric="rate", value=99.0, transport="nccl", devices=2)])
    out = tmp_path / "best.html"
    done = run_ferry_py("report", one, ranks, later, "-o", out)
    assert done.returncode == 0, done.stderr
    table = out.read_text().split('id="table-beff-nccl-at-its-best"')[1].split("</table>")[0]
    lines = {line.split("</td>")[0].split(">")[-1] + " " + line.split("</td>")[1].split(">")[-1]: line
             for line in table.split("<tr")[1:] if "<td" in line}
    p2p_sm = lines["p2p-sm one process"]
    assert f"{87.67 / 27.35:.2f}x" in p2p_sm and "nccl-graph-reg, a rank per GPU (ranks)" in p2p_sm, p2p_sm
    assert f"{25.04 / 27.35:.2f}x" in lines["nccl-graph-reg one process"]
    assert "1.00x" in lines["nccl-graph-reg a rank per GPU"]
    assert "1.00x" in lines["nccl a rank per GPU"] and "(later)" in lines["nccl a rank per GPU"]
