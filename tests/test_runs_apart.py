"""`report A B` of two runs taken at different moments (verdicts/apart.py), on hand-built run files whose
every process records its multiple of the floor: the machine's drift moves the times, not the verdicts."""

import random

import pyperf
import pytest

from serialbench.results.files import load
from serialbench.verdicts import apart, vocabulary
from serialbench.verdicts.file_changes import changes_between
from serialbench.views.changes import change_notes
from tests.helpers import check_golden, in_process

FLOOR_TIMES = {"1K": 100e-9, "10K": 1e-6, "100K": 10e-6}
INPUTS = ("float32", "int32x3")
OPS = {"msgpack/packb": 5.0, "msgpack/packb-buffer": 3.0}  # their multiples of the floor
PROCESSES = 6


def run_file(path, speed=1.0, multiples=None, seed=0, floor_data=True, floors=True):
    """A run of serialbench's rounds: the floors, two ops that copy and one that does not, six processes
    each. `speed` scales every time (the machine's drift); `multiples`: an op's multiple where it differs
    from OPS (a real change of the code). Without `floor_data` no process records its multiple; without
    `floors` the file has no floor rows either (a pyperf file of the ops alone)."""
    rng = random.Random(seed)
    benches = []

    def bench(name, times, ratios, copies=True):
        fmt, impl, kind, tier = name.split("/")
        runs = []
        for index, (median, ratio) in enumerate(zip(times, ratios)):
            metadata = {"name": name, "serialbench_format": fmt, "serialbench_impl": impl, "serialbench_input": kind,
                        "serialbench_tier": tier, "serialbench_direction": "encode", "input_bytes": 4000,
                        "payload_bytes": 4100, "loops": 100, "serialbench_commit": "0123456789abcdef",
                        "date": "2026-12-01 12:00:00", "serialbench_round": index, "serialbench_copies": int(copies)}
            if ratio is not None and floor_data:
                metadata["serialbench_floor_ratio"] = ratio
            runs.append(pyperf.Run([median * 0.99, median, median * 1.01], metadata=metadata, collect_metadata=False))
        benches.append(pyperf.Benchmark(runs))

    def wobbled(value, spread):
        return [value * (1 + rng.uniform(-spread, spread)) for _ in range(PROCESSES)]

    for kind in INPUTS:
        for tier, floor in FLOOR_TIMES.items():
            if floors:
                bench(f"baseline/tobytes/{kind}/{tier}", wobbled(floor * speed, 0.02), [None] * PROCESSES)
            for row, multiple in OPS.items():
                multiple = (multiples or {}).get(row, multiple)
                ratios = wobbled(multiple, 0.01)
                # each process's time: its floor's (the process-to-process spread of the machine) times its ratio
                bench(f"{row}/{kind}/{tier}", [floor * speed * r * (1 + rng.uniform(-0.02, 0.02)) for r in ratios],
                      ratios)
            bench(f"triton-binary/zero-copy/{kind}/{tier}", wobbled(2e-6 * speed, 0.02),
                  wobbled(2e-6 / floor, 0.01), copies=False)
    pyperf.BenchmarkSuite(benches).dump(str(path))
    return load(path)


def by_name(found):
    return {change.name: change for change in found.changes}


def test_a_drifted_floor_with_unchanged_multiples_gives_no_change(tmp_path):
    base = run_file(tmp_path / "a.json", seed=1)
    new = run_file(tmp_path / "b.json", speed=1.12, seed=2)  # the machine 12% slower, the code the same
    found = changes_between(base, new)
    assert not found.paired and found.drift.verdict.word == vocabulary.SLOWER
    assert found.drift.verdict.change == pytest.approx(0.12, abs=0.02)
    judged = [c for c in found.changes if c.basis == apart.MULTIPLE]
    assert len(judged) == 12 and not [c for c in judged if c.verdict in (vocabulary.SLOWER, vocabulary.FASTER)]
    assert all(c.ratio > 1.07 for c in judged)  # every time moved with the machine
    assert found.selection.word not in (vocabulary.SLOWER, vocabulary.FASTER)


def test_a_real_change_in_the_multiple_is_found_through_the_drift(tmp_path):
    base = run_file(tmp_path / "a.json", seed=1)
    new = run_file(tmp_path / "b.json", speed=0.9, multiples={"msgpack/packb": 6.0}, seed=2)  # +20%, machine -10%
    changes = by_name(changes_between(base, new))
    for kind in INPUTS:
        for tier in FLOOR_TIMES:
            assert changes[f"msgpack/packb/{kind}/{tier}"].verdict == vocabulary.SLOWER
            assert changes[f"msgpack/packb/{kind}/{tier}"].change == pytest.approx(0.2, abs=0.03)
            assert changes[f"msgpack/packb-buffer/{kind}/{tier}"].verdict != vocabulary.FASTER


def test_where_the_floor_moved_past_the_minimum_effect_no_time_is_judged(tmp_path):
    base = run_file(tmp_path / "a.json", seed=1)
    new = run_file(tmp_path / "b.json", speed=1.12, seed=2)
    found = changes_between(base, new)
    no_copy = [c for c in found.changes if c.name.startswith("triton-binary/zero-copy/")]
    floors = [c for c in found.changes if c.name.startswith("baseline/tobytes/")]
    assert len(no_copy) == 6 and all(c.verdict == apart.FLOOR_MOVED and c.judged is None for c in no_copy + floors)
    notes = change_notes(found, new.results, base.results)
    assert notes[0].startswith("the floor (baseline/tobytes, 6 rows) moved +1")
    assert "slower in NEW" in notes[0] and "no verdict on a time" in notes[0]


def test_where_the_floor_stayed_put_a_row_without_a_multiple_is_judged_on_its_time(tmp_path):
    base = run_file(tmp_path / "a.json", seed=1)
    new = run_file(tmp_path / "b.json", speed=1.0, seed=1)  # the same figures: the floor provably steady
    found = changes_between(base, new)
    assert found.drift.allows_time()
    no_copy = [c for c in found.changes if c.name.startswith("triton-binary/zero-copy/")]
    assert all(c.basis == apart.TIME and c.verdict == vocabulary.NO_CHANGE for c in no_copy)


def test_files_without_multiples_are_judged_on_time_where_the_floor_allows(tmp_path):
    base = run_file(tmp_path / "a.json", seed=1, floor_data=False)
    new = run_file(tmp_path / "b.json", speed=1.12, seed=2, floor_data=False)
    found = changes_between(base, new)
    assert {c.basis for c in found.changes} == {apart.TIME}
    assert {c.verdict for c in found.changes} == {apart.FLOOR_MOVED}  # the 12% drift: no verdict at all
    assert found.selection is None


def test_files_without_a_floor_keep_their_time_verdicts_and_say_what_those_are_worth(tmp_path):
    base = run_file(tmp_path / "a.json", seed=1, floor_data=False, floors=False)
    new = run_file(tmp_path / "b.json", speed=1.3, seed=2, floor_data=False, floors=False)
    found = changes_between(base, new)
    assert found.drift.verdict is None
    assert {c.verdict for c in found.changes} == {vocabulary.SLOWER}  # the machine's 30%, which nothing tells apart
    assert change_notes(found, new.results, base.results)[0].startswith(
        "no floor (baseline/tobytes) timed in both files: how far the machine drifted between them is unknown")


def test_the_report_of_two_runs_apart(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_file(tmp_path / "a.json", seed=1)
    run_file(tmp_path / "b.json", speed=1.12, multiples={"msgpack/packb": 6.0}, seed=2)
    done = in_process("report", "a.json", "b.json", "--input", "float32", "--json", "apart.json")
    assert done.returncode == 0, done.stderr
    check_golden("report-runs-apart.txt", done.stdout)
    check_golden("report-runs-apart.json", (tmp_path / "apart.json").read_text())
