"""compare --instructions, --cycles and --memory on two revisions of a throwaway repository (HEAD~1
copies the array once per op, HEAD four times: tests/toys.py): each mode sees the injected work,
and honours --fail-on, --json, --markdown and --min-effect as every compare does."""

import json
import shutil

import pytest

from serialbench.measure.instructions import Count, estimated_cycles
from serialbench.verdicts.counts import count_rows, memory_verdict
from serialbench.views.count_table import counts_document
from tests.helpers import assert_one_line_usage_error, run_serialbench, serialbench

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None,
                                    reason="valgrind is not installed (apt-get install valgrind)")


def rows_of(stdout: str, prefix: str = "toy/") -> dict[str, list[str]]:
    return {line.split()[0]: line.split() for line in stdout.splitlines() if line.startswith(prefix)}


def compare_count(toy_repo, tmp_path, mode, *more):
    """compare MODE between the two revisions with a gate and both files: (done, its JSON, its Markdown)."""
    out, markdown = tmp_path / f"{mode}.json", tmp_path / f"{mode}.md"
    done = run_serialbench("compare", "HEAD~1", "HEAD", f"--{mode}", "--cases", toy_repo / "cases", "-b", "toy/*",
                           "--tier", "10K", "--fail-on", "slower", "--json", out, "--markdown", markdown, *more)
    return done, json.loads(out.read_text()), markdown.read_text()


def assert_the_gate_names_the_row(done, data, markdown, verdict):
    """--fail-on slower: exit status 1, the grown benchmark named by the table, the JSON and the gate."""
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "--fail-on slower: 1 benchmarks: toy/grows/float32/10K"
    rows = {row["name"]: row for row in data["benchmarks"]}
    assert rows["toy/grows/float32/10K"]["verdict"] == verdict and rows["toy/steady/float32/10K"]["verdict"] == "same"
    assert data["gate"] == {"fail_on": "slower", "failing": ["toy/grows/float32/10K"]}
    assert "| `toy/grows/float32/10K` |" in markdown and verdict in markdown


@pytest.mark.slow
@needs_valgrind
def test_compare_instructions_fails_the_gate_on_the_extra_copies_and_says_so_in_json(toy_repo, tmp_path):
    done, data, markdown = compare_count(toy_repo, tmp_path, "instructions")
    assert_the_gate_names_the_row(done, data, markdown, "more instructions")
    grown = next(row for row in data["benchmarks"] if row["name"] == "toy/grows/float32/10K")
    assert grown["head"] > grown["base"] and grown["change"] > 0.1
    assert (data["mode"], data["tolerance"]) == ("instructions", 0.02)


@pytest.mark.slow
@needs_valgrind
def test_compare_cycles_fails_the_gate_on_the_extra_copies(toy_repo, tmp_path):
    done, data, markdown = compare_count(toy_repo, tmp_path, "cycles")
    assert_the_gate_names_the_row(done, data, markdown, "more cycles")


@pytest.mark.slow
def test_compare_memory_sees_three_more_copies_and_nothing_else(toy_repo, tmp_path):
    done, data, markdown = compare_count(toy_repo, tmp_path, "memory", "--min-effect", "50")
    assert_the_gate_names_the_row(done, data, markdown, "more allocations, more bytes")  # +300% is beyond 50%
    assert data["tolerance"] == 0.5  # --min-effect: the count's tolerance
    rows = rows_of(done.stdout)
    name, base_bytes, head_bytes, _, base_allocs, head_allocs, _, *verdict = rows["toy/grows/float32/10K"]
    assert (base_bytes, head_bytes) == ("40,033", "160,132")  # one bytes object of 40,000 bytes, then four
    assert (base_allocs, head_allocs) == ("1.0", "4.0")


def test_min_effect_is_each_counts_own_tolerance():
    same = Count("x", 1e6, 8, events={"Ir": 1e6})
    more = Count("x", 1.03e6, 8, events={"Ir": 1.03e6})  # 3% more instructions
    assert [row.verdict for row in count_rows("instructions", ["a/b/c/1K"], [(same, more)], 0.01)[0]] == \
        ["more instructions"]
    assert [row.verdict for row in count_rows("instructions", ["a/b/c/1K"], [(same, more)], 0.05)[0]] == ["same"]


def test_the_memory_verdict_has_a_stated_tolerance():
    base = {"allocs_per_op": 1000.0, "bytes_per_op": 100_000.0}
    assert memory_verdict(base, {"allocs_per_op": 1000.5, "bytes_per_op": 100_016.0}) == "same"
    assert memory_verdict(base, {"allocs_per_op": 1002.0, "bytes_per_op": 100_000.0}) == "more allocations"
    assert memory_verdict(base, {"allocs_per_op": 1000.0, "bytes_per_op": 99_000.0}) == "fewer bytes"
    assert memory_verdict(base, {"allocs_per_op": 1002.0, "bytes_per_op": 100_000.0}, relative=0.01) == "same"


@pytest.mark.slow
def test_one_count_at_a_time():
    assert_one_line_usage_error(serialbench("compare", "HEAD", "--cycles", "--memory"))


def test_the_cycles_table_names_the_weights_and_flags_more_cycles():
    # The counts themselves are callgrind's (tests/test_instructions.py); here, the table they make.
    def counts(ir, l1, ll):
        events = {"Ir": ir, "Dr": ir / 3, "Dw": ir / 3, "I1mr": 0, "D1mr": l1, "D1mw": 0, "ILmr": 0, "DLmr": ll,
                  "DLmw": 0}
        return Count("x", estimated_cycles(events), 8, events={**events, "cycles": estimated_cycles(events)})

    pairs = [(counts(1e6, 1e4, 0), counts(1e6, 1e4, 0)), (counts(1e6, 1e4, 0), counts(1.01e6, 1.4e5, 0))]
    counted, failed = count_rows("cycles", ["a/same/float32/1M", "a/copy/float32/1M"], pairs, 0.01)
    assert failed == {}
    table = counts_document("cycles", counted, "base", "head", 0.01).text()
    rows = rows_of(table, "a/")
    assert rows["a/same/float32/1M"][-1] == "same"
    assert rows["a/copy/float32/1M"][-2:] == ["more", "cycles"]
    # Every access costs 1, an L1 miss that hits the last level 4 more (5 in all): 1% more instructions
    # and 14 times the misses.
    base, head = 1e6 * 5 / 3 + 4 * 1e4, 1.01e6 * 5 / 3 + 4 * 1.4e5
    assert rows["a/copy/float32/1M"][3] == f"{(head / base - 1) * 100:+.2f}%" == "+31.45%"
    assert "an L1 hit costs 1, a last-level hit 5, memory 35" in table
