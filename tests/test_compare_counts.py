"""compare --memory and --cycles on two revisions of a throwaway repository: HEAD~1 copies the array
once per op, HEAD four times (tests/test_compare.py's toy_repo)."""

import argparse

from serialbench.commands import compare_counts
from serialbench.commands.compare_counts import memory_verdict
from serialbench.measure import instructions
from serialbench.measure.instructions import Count, estimated_cycles
from serialbench.measure.sides import Side
from tests.helpers import PROJECT_ROOT, assert_one_line_usage_error, serialbench
from tests.test_compare import toy_repo  # noqa: F401 - the fixture


def rows_of(stdout: str, prefix: str = "toy/") -> dict[str, list[str]]:
    return {line.split()[0]: line.split() for line in stdout.splitlines() if line.startswith(prefix)}


def test_compare_memory_sees_three_more_copies_and_nothing_else(toy_repo):  # noqa: F811
    done = serialbench("compare", "HEAD~1", "HEAD", "--memory", "--cases", toy_repo / "cases", "-b", "toy/*",
                       "--tier", "10K")
    assert done.returncode == 0, done.stderr.decode()
    rows = rows_of(done.stdout.decode())
    name, base_bytes, head_bytes, _, base_allocs, head_allocs, _, *verdict = rows["toy/grows/float32/10K"]
    assert (base_bytes, head_bytes) == ("40,033", "160,132")  # one bytes object of 40,000 bytes, then four
    assert (base_allocs, head_allocs) == ("1.0", "4.0")
    assert " ".join(verdict) == "more allocations, more bytes"
    assert rows["toy/steady/float32/10K"][-1] == "same"


def test_the_memory_verdict_has_a_stated_tolerance():
    base = {"allocs_per_op": 1000.0, "bytes_per_op": 100_000.0}
    assert memory_verdict(base, {"allocs_per_op": 1000.5, "bytes_per_op": 100_016.0}) == "same"
    assert memory_verdict(base, {"allocs_per_op": 1002.0, "bytes_per_op": 100_000.0}) == "more allocations"
    assert memory_verdict(base, {"allocs_per_op": 1000.0, "bytes_per_op": 99_000.0}) == "fewer bytes"


def test_one_count_at_a_time():
    assert_one_line_usage_error(serialbench("compare", "HEAD", "--cycles", "--memory"))


def test_compare_cycles_table_names_the_weights_and_flags_more_cycles(monkeypatch, capsys):
    # The counts themselves are callgrind's (tests/test_instructions.py); here, the table they make.
    def counts(ir, l1, ll):
        events = {"Ir": ir, "Dr": ir / 3, "Dw": ir / 3, "I1mr": 0, "D1mr": l1, "D1mw": 0, "ILmr": 0, "DLmr": ll,
                  "DLmw": 0}
        return Count("x", estimated_cycles(events), 8, events={**events, "cycles": estimated_cycles(events)})

    pairs = [(counts(1e6, 1e4, 0), counts(1e6, 1e4, 0)), (counts(1e6, 1e4, 0), counts(1.01e6, 1.4e5, 0))]
    monkeypatch.setattr(instructions, "count_pairs", lambda sides, names, workers, say, cycles: pairs)
    args = argparse.Namespace(cycles=True, memory=False, fail_on="slower")
    side = Side("BASE", PROJECT_ROOT)
    status = compare_counts.run(args, side, side, ["a/same/float32/1M", "a/copy/float32/1M"], print, 0.01)
    rows = rows_of(capsys.readouterr().out, "a/")
    assert rows["a/same/float32/1M"][-1] == "same"
    assert rows["a/copy/float32/1M"][-2:] == ["more", "cycles"]
    # Every access costs 1, an L1 miss that hits the last level 4 more (5 in all): 1% more instructions
    # and 14 times the misses.
    base, head = 1e6 * 5 / 3 + 4 * 1e4, 1.01e6 * 5 / 3 + 4 * 1.4e5
    assert rows["a/copy/float32/1M"][3] == f"{(head / base - 1) * 100:+.2f}%" == "+31.45%"
    assert status == 1  # --fail-on slower: more cycles
