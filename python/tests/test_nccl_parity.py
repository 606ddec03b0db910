"""The parity table: ferry's beff ring beside nccl-tests' sendrecv_perf, per size and pairing, ferry's time per
exchange (the median repetition / looplength) over nccl-tests' time per iteration (the out-of-place column, the
median of its cycles), and the inputs it refuses."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import PYTHON_DIR, document, row, write_json

from ferry.nccl_parity import BAD_INPUT, OK, WRONG_DATA, Pairing, main, pairing_parity
from ferry.results import load

# sendrecv_perf -b 8 -e 2M -f 2 -d uint8 -c 1 -N 3 on 2 ranks, as nccl-tests' util.cu prints it
# (writeDeviceReport, writeResultHeader, writeBenchmarkLine*, writeResultFooter), trimmed to three sizes:
# 8 B out of place 4, 5 and 9 us (in place 3), 8 KiB 7 us, 2 MiB 20, 21 and 22 us (in place 30).
NCCL_TESTS_OUTPUT = """\
# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803
# Collective test starting: sendrecv_perf
# nThread 1 nGpus 1 minBytes 8 maxBytes 2097152 step: 2(factor) warmup iters: 200 iters: 1000 agg iters: 1 \
validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4242 on         vm device  0 [0000:06:00] NVIDIA H200
#  Rank  1 Group  0 Pid   4243 on         vm device  1 [0000:07:00] NVIDIA H200
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
           8             8     uint8     sum      -1     4.00    0.00    0.00       0     3.00    0.00    0.00    N/A
        8192          8192     uint8     sum      -1     7.00    1.17    1.17       0     7.00    1.17    1.17    N/A
     2097152       2097152     uint8     sum      -1    20.00  104.86  104.86       0    30.00   69.91   69.91    N/A
           8             8     uint8     sum      -1     5.00    0.00    0.00       0     3.00    0.00    0.00    N/A
        8192          8192     uint8     sum      -1     7.00    1.17    1.17       0     7.00    1.17    1.17    N/A
     2097152       2097152     uint8     sum      -1    21.00   99.86   99.86       0    30.00   69.91   69.91    N/A
           8             8     uint8     sum      -1     9.00    0.00    0.00       0     3.00    0.00    0.00    N/A
        8192          8192     uint8     sum      -1     7.00    1.17    1.17       0     7.00    1.17    1.17    N/A
     2097152       2097152     uint8     sum      -1    22.00   95.33   95.33       0    30.00   69.91   69.91    N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 33.7367 
#
# Collective test concluded: sendrecv_perf
#
"""


def ring_row(transport: str, size: int, looplength: int, samples: list, check="PASSED") -> dict:
    """A beff ring row as ferry writes it: one sample per repetition, each the slowest device's seconds."""
    r = row(section="ring", check=check, **{"transport": transport, "MSize bytes": size, "looplength": looplength})
    ordered = sorted(samples)
    r.update(samples=len(samples), samples_s=samples,
             stats_s={"min": ordered[0], "median": ordered[len(ordered) // 2], "mean": sum(samples) / len(samples),
                      "p99": ordered[-1], "max": ordered[-1]})
    return r


# 8 B: repetitions of 5, 9 and 6 ms for 1000 exchanges, so 6 us an exchange at the median (5 at the best, 6.67 at
# the mean, 2 ms a repetition over 3); 2 MiB: 10.5 ms for 500. 1 B lies below nccl-tests' sweep; 16 B is ferry's
# alone, 8 KiB nccl-tests' alone.
FERRY_RING = [
    ring_row("nccl", 1, 1000, [5e-3, 5e-3, 5e-3]),
    ring_row("nccl", 8, 1000, [5e-3, 9e-3, 6e-3]),
    ring_row("nccl", 16, 1000, [6e-3, 6e-3, 6e-3]),
    ring_row("nccl", 2 << 20, 500, [10.5e-3, 11e-3, 10.5e-3]),
    ring_row("nccl-graph", 8, 2000, [5e-3, 5e-3, 5e-3]),
]


def beff_document(rows=FERRY_RING, verification="PASSED", participants=2) -> dict:
    doc = document("beff", rows=rows, verification=verification)
    doc["workloads"][0]["config"] = {"participants": participants}
    return doc


@pytest.fixture
def files(tmp_path):
    """files(ferry=doc, nccl_tests=text) -> (results path, nccl-tests output path)."""
    def make(ferry=None, nccl_tests=NCCL_TESTS_OUTPUT, name="ranks"):
        results = write_json(tmp_path / f"{name}.json", ferry or beff_document())
        output = tmp_path / f"{name}.txt"
        output.write_text(nccl_tests)
        return results, output
    return make


def table_rows(block: str) -> dict:
    """A pairing's printed table: size -> its cells (ferry us, nccl-tests us, ratio, verdict)."""
    cells = [re.split(r"\s{2,}", line.strip()) for line in block.splitlines()]
    return {c[0]: c[1:] for c in cells if len(c) == 5 and c[0][0].isdigit()}


def sizes_of(results, output, transport="nccl") -> dict:
    parity = pairing_parity(Pairing("a rank per GPU", results, transport, output), load(results))
    return {s.bytes: s for s in parity.sizes}


def test_the_ratio_is_ferrys_median_repetition_per_exchange_over_nccl_tests_median_out_of_place_time(files):
    sizes = sizes_of(*files())
    assert sizes[8].ferry_s == pytest.approx(6e-6)         # 6 ms / 1000 exchanges
    assert sizes[8].nccl_tests_s == pytest.approx(5e-6)    # the median of 4, 5 and 9 us, out of place
    assert sizes[8].ratio == pytest.approx(1.2)
    assert sizes[2 << 20].ratio == pytest.approx(1.0)      # 10.5 ms / 500 against 21 us
    assert (sizes[8].verdict, sizes[2 << 20].verdict) == ("over 1.05", "within 1.05")


def test_each_pairing_sets_its_own_transport_and_files_side_by_side(files, capsys):
    ranks = files(name="ranks")
    one = files(ferry=beff_document(rows=[ring_row("nccl-graph", 8, 1000, [12e-3])]),
                nccl_tests=NCCL_TESTS_OUTPUT.replace("     4.00", "    10.00"), name="one")
    code = main(["--pair", "a rank per GPU", str(ranks[0]), "nccl", str(ranks[1]),
                 "--pair", "one thread", str(one[0]), "nccl-graph", str(one[1])])
    printed = capsys.readouterr().out
    assert code == OK
    rank_block, one_block = printed.split("\n\na rank per GPU, nccl: ")[1].split("\n\none thread, nccl-graph: ")
    assert table_rows(rank_block)["8 B"] == ["6.00", "5.00", "1.200", "over 1.05"]
    assert table_rows(one_block)["8 B"] == ["12.00", "9.00", "1.333", "over 1.05"]   # median of 10, 5 and 9 us
    assert "worst ratio: 1.333 at 8 B (over 1.05), one thread, nccl-graph" in printed


def test_a_size_only_one_side_has_is_listed_as_missing_on_the_other(files):
    sizes = sizes_of(*files())
    assert sizes[16].verdict == "missing in nccl-tests" and sizes[16].ratio is None
    assert sizes[8192].verdict == "missing in ferry" and sizes[8192].ratio is None
    assert sorted(sizes) == [8, 16, 8192, 2 << 20]   # ferry's 1 B lies below nccl-tests' 8 B .. 2 MiB


def test_wrong_data_in_nccl_tests_exits_1_naming_the_file(files, capsys):
    wrong = NCCL_TESTS_OUTPUT.replace("    7.00    1.17    1.17       0", "    7.00    1.17    1.17       3", 1)
    results, output = files(nccl_tests=wrong)
    assert main(["--pair", "a rank per GPU", str(results), "nccl", str(output)]) == WRONG_DATA
    said = capsys.readouterr()
    assert f"'{output}'" in said.err and "wrong data (#wrong) at 8 KiB (3)" in said.err and not said.out


def test_a_ferry_file_that_failed_verification_is_refused_with_exit_2(files, capsys):
    failed = beff_document(rows=FERRY_RING[:1] + [ring_row("nccl", 8, 1000, [6e-3], check="FAILED")],
                           verification="FAILED")
    results, output = files(ferry=failed)
    assert main(["--pair", "a rank per GPU", str(results), "nccl", str(output)]) == BAD_INPUT
    said = capsys.readouterr()
    assert f"'{results}'" in said.err and "FAILED" in said.err and not said.out


def test_an_nccl_tests_output_with_no_rows_is_refused_with_exit_2(files, capsys):
    header_only = "".join(line + "\n" for line in NCCL_TESTS_OUTPUT.splitlines() if line.startswith("#"))
    results, output = files(nccl_tests=header_only)
    assert main(["--pair", "a rank per GPU", str(results), "nccl", str(output)]) == BAD_INPUT
    assert f"'{output}' has no rows" in capsys.readouterr().err


def test_rows_nccl_tests_did_not_check_are_refused_with_exit_2(files, capsys):
    unchecked = NCCL_TESTS_OUTPUT.replace("       0     ", "     N/A     ")   # -c 0
    results, output = files(nccl_tests=unchecked)
    assert main(["--pair", "a rank per GPU", str(results), "nccl", str(output)]) == BAD_INPUT
    assert "did not check the data of 8 B" in capsys.readouterr().err


def test_rings_of_different_sizes_are_refused_with_exit_2(files, capsys):
    results, output = files(ferry=beff_document(participants=4))
    assert main(["--pair", "a rank per GPU", str(results), "nccl", str(output)]) == BAD_INPUT
    assert "ring of 2 ranks" in capsys.readouterr().err


def test_the_module_runs_as_the_evidence_script_runs_it(files):
    results, output = files()
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    done = subprocess.run([sys.executable, "-m", "ferry.nccl_parity", "--pair", "a rank per GPU", str(results), "nccl",
                           str(output)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == OK, done.stderr
    assert table_rows(done.stdout)["8 KiB"] == ["-", "7.00", "-", "missing in ferry"]
