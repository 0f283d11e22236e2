"""check-harness: the run, compare and a plain loop time one op the same, or the command says so."""

from serialbench.commands.check_harness import disagreement, table
from tests.helpers import serialbench


def test_a_benchmark_whose_harnesses_differ_beyond_the_tolerance_is_flagged():
    timed = {"run": {"a/b/c/1M": 145e-6, "x/y/z/1K": 1.0e-6},
             "compare": {"a/b/c/1M": 33.7e-6, "x/y/z/1K": 1.1e-6},
             "plain": {"a/b/c/1M": 18.3e-6, "x/y/z/1K": 1.05e-6}}
    lines, flagged, missing = table(["a/b/c/1M", "x/y/z/1K"], timed, 0.25)
    assert (flagged, missing) == (["a/b/c/1M"], [])
    assert lines == [
        "benchmark      run  compare    plain  run/plain  compare/plain",
        "a/b/c/1M    145 us  33.7 us  18.3 us       7.9x           1.8x  DISAGREE",
        "x/y/z/1K   1.00 us  1.10 us  1.05 us      0.95x           1.0x  agree",
    ]


def test_a_way_that_gave_no_time_is_never_agreement():
    # A panel whose run way failed after its first group read "all 158 agree": the rows had no run time.
    timed = {"run": {}, "compare": {"a/b/c/1M": 1.18e-3, "x/y/z/1K": 1.0e-6}, "plain": {"a/b/c/1M": 1.82e-3,
                                                                                        "x/y/z/1K": 1.05e-6}}
    lines, flagged, missing = table(["a/b/c/1M", "x/y/z/1K"], timed, 0.25)
    assert flagged == ["a/b/c/1M"]  # the two ways that ran already disagree
    assert missing == ["a/b/c/1M", "x/y/z/1K"]
    assert lines[1].endswith("DISAGREE") and lines[2].endswith("NOT TIMED")
    assert disagreement({"compare": 1.0}) is None


def test_the_three_harnesses_agree_on_a_copy_at_100k():
    # The benchmark whose run was 4.3x compare's (issue 24): memcpy's page-aliasing cliff, now off in
    # both harnesses' workers. Smallest settings; the bound is loose, a regression of that size is not.
    # Two FORMAT/IMPL groups: every way must time the second group too (each run has its own file).
    done = serialbench("check-harness", "-b", "msgpack/packb/float32/100K", "-b", "baseline/tobytes/float32/100K",
                       "--processes", "1", "--tolerance", "90")
    out = done.stdout.decode()
    assert done.returncode == 0, out + done.stderr.decode()
    rows = [line for line in out.splitlines() if line.startswith(("msgpack/packb/", "baseline/tobytes/"))]
    assert len(rows) == 2 and all(row.endswith("  agree") and " - " not in row for row in rows), rows
