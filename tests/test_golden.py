"""What users read, as exact text: the run's summary, `report` (one file and two, text and Markdown),
the round trip, `verify`'s table and compare's table, from hand-built result data, against tests/golden/.

When a change of output is intended, regenerate the expected files and review their diff:

    SERIALBENCH_GOLDEN=update python -m pytest tests/test_golden.py
    git diff tests/golden/
"""

import json
from pathlib import Path

import pyperf
import pytest

from serialbench.catalog.case import Case
from serialbench.catalog.fidelity import LOSSLESS, LOSSY, REJECTED, Fidelity
from serialbench.catalog.fidelity_check import Check, Trial
from serialbench.core import stats
from serialbench.results.files import load
from serialbench.verdicts.paired import Compared
from serialbench.verdicts.vocabulary import AT_THRESHOLD, FASTER, NO_CHANGE, SLOWER, TOO_NOISY, TWO_SPEEDS, Verdict
from serialbench.views import verdict_table, verify_table
from serialbench.views.benchmem import benchmem
from serialbench.views.costs import cost_tables
from serialbench.views.roundtrip_table import roundtrip_tables
from serialbench.views.summary import summary
from serialbench.views.table import render_markdown, render_text
from serialbench.views.timing import memory_tables
from tests.hand_built import BASE_RUN, BASE_RUN_6, NEW_RUN, ROUND_TRIP_RUN, benchmark
from tests.helpers import check_golden, in_process


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, benches in (("base.json", BASE_RUN_6), ("new.json", NEW_RUN), ("run.json", BASE_RUN)):
        pyperf.BenchmarkSuite(benches).dump(name)
    return tmp_path


def test_the_runs_summary(files):
    check_golden("summary.txt", summary(load("run.json"), {b.get_name() for b in BASE_RUN}))


def rounds_benchmark(name, medians, ratios=None, direction="encode", size=4000):
    """A benchmark of serialbench's rounds: a run per round (process) of three values about its median,
    with the multiple of the floor the round took beside it, and the precision the run asked for."""
    fmt, impl, kind, tier = name.split("/")
    runs = []
    for index, median in enumerate(medians):
        metadata = {"name": name, "serialbench_format": fmt, "serialbench_impl": impl, "serialbench_input": kind,
                    "serialbench_tier": tier, "serialbench_direction": direction, "input_bytes": size,
                    "payload_bytes": size + 100, "loops": 100, "serialbench_commit": "0123456789abcdef",
                    "date": "2026-12-01 12:00:00", "serialbench_round": index, "serialbench_session": "s1",
                    "serialbench_precision": 0.03}
        if ratios is not None:
            metadata["serialbench_floor_ratio"] = ratios[index]
        runs.append(pyperf.Run([median * 0.99, median, median * 1.01], metadata=metadata, collect_metadata=False))
    return pyperf.Benchmark(runs)


def wobble(value, spread, count, seed):
    """`count` values about `value`, each off by up to +-spread, the same for the same seed."""
    import random

    rng = random.Random(seed)
    return [value * (1 + rng.uniform(-spread, spread)) for _ in range(count)]


ROUNDS_RUN = [
    rounds_benchmark("baseline/tobytes/float32/1K", wobble(100e-9, 0.01, 6, 1)),
    rounds_benchmark("baseline/tobytes/float32/1M", wobble(100e-6, 0.01, 20, 2), size=4_000_000),
    # packb-buffer is separated from packb at 1K (25% apart); at 1M packb ran to the cap, 8% wide.
    rounds_benchmark("msgpack/packb/float32/1K", wobble(2.0e-6, 0.01, 6, 3), wobble(20, 0.005, 6, 4)),
    rounds_benchmark("msgpack/packb-buffer/float32/1K", wobble(1.5e-6, 0.01, 6, 5), wobble(15, 0.005, 6, 6)),
    rounds_benchmark("msgpack/packb/float32/1M", wobble(500e-6, 0.12, 20, 7), wobble(5, 0.12, 20, 8),
                     size=4_000_000),
    rounds_benchmark("msgpack/packb-buffer/float32/1M", wobble(300e-6, 0.01, 20, 9), wobble(3, 0.01, 20, 10),
                     size=4_000_000),
    # join and zero-copy at 1K: 0.5% apart, a tie.
    rounds_benchmark("triton-binary/join/float32/1K", wobble(2.50e-6, 0.01, 6, 11), wobble(25.0, 0.01, 6, 12)),
    rounds_benchmark("triton-binary/zero-copy/float32/1K", wobble(2.51e-6, 0.01, 6, 13), wobble(25.1, 0.01, 6, 14)),
    # a decoder whose processes ran at two speeds, 1.5x and 2.4x the floor.
    rounds_benchmark("msgpack/decode-unpackb/float32/1M", [150e-6, 240e-6] * 5, [1.5, 2.4] * 5, "decode",
                     size=4_000_000),
]


def test_the_runs_summary_with_rounds_intervals_stars_ties_and_two_speeds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pyperf.BenchmarkSuite(ROUNDS_RUN).dump("rounds.json")
    check_golden("summary-rounds.txt", summary(load("rounds.json"), {b.get_name() for b in ROUNDS_RUN}))


def test_report_of_one_file(files):
    done = in_process("report", "run.json", "--markdown", "run.md")
    assert done.returncode == 0, done.stderr
    check_golden("report.txt", done.stdout)
    check_golden("report.md", Path("run.md").read_text())


def test_report_of_two_files(files):
    done = in_process("report", "base.json", "new.json", "--markdown", "changes.md")
    assert done.returncode == 0, done.stderr
    check_golden("report-two-files.txt", done.stdout)
    check_golden("report-two-files.md", Path("changes.md").read_text())


@pytest.fixture
def round_trip_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pyperf.BenchmarkSuite(ROUND_TRIP_RUN).dump("trip.json")
    return load("trip.json")


def test_the_round_trip_view_text_and_markdown(round_trip_file):
    tables = roundtrip_tables(round_trip_file.results)
    check_golden("roundtrip.txt", "\n".join(render_text(table) for table in tables))
    check_golden("roundtrip.md", "\n".join(render_markdown(table) for table in tables))


def test_the_runs_summary_ends_with_the_round_trip_when_a_protocol_ran_its_four_halves(round_trip_file):
    check_golden("summary-roundtrip.txt", summary(round_trip_file, {b.get_name() for b in ROUND_TRIP_RUN}))


def fake_case(fmt, impl, source=None):
    return Case(fmt, impl, ("float32", "png"), setup=lambda *args: None, source=source)


def test_verify_table():
    packb, json_case = fake_case("msgpack", "packb"), fake_case("tfserving-rest", "json")
    checks = [
        Check(Trial(packb, "float32", "1K"), Fidelity(LOSSLESS)),
        Check(Trial(packb, "png", "1K"), Fidelity(LOSSLESS)),
        Check(Trial(packb, "nan-inf", None), Fidelity(LOSSLESS)),
        Check(Trial(json_case, "float32", "1K"), Fidelity(LOSSLESS)),
        Check(Trial(json_case, "nan-inf", None), Fidelity(LOSSY, "NaN and ±Inf -> null (3 of 8 values)")),
        Check(Trial(json_case, "big-endian", None), Fidelity(REJECTED, "TypeError: not supported")),
    ]
    check_golden("verify.txt", verify_table.verify_document(checks).text() + "\n")


def verdict(change, low, high, word, rounds=16, detectable=0.021, p_value=0.5, level=0.95, modes=None):
    return Verdict(change=change, low=low, high=high, level=level, detectable=detectable, word=word,
                         rounds=rounds, p_value=p_value, modes=modes)


COMPARE_ROWS = [
    Compared("msgpack/packb/float32/1K", 2.0e-6, 2.6e-6, verdict(0.30, 0.27, 0.33, SLOWER, p_value=1e-4)),
    Compared("msgpack/packb/float32/1M", 500e-6, 650e-6, verdict(0.30, 0.25, 0.35, SLOWER, p_value=1e-4)),
    Compared("msgpack/packb-buffer/float32/1K", 1.5e-6, 1.5e-6, verdict(0.001, -0.008, 0.01, NO_CHANGE)),
    Compared("msgpack/packb-buffer/float32/1M", 300e-6, 297e-6,
               verdict(-0.01, -0.04, 0.02, TOO_NOISY, rounds=64, detectable=0.05, level=0.99984)),
    Compared("msgpack/packb-buffer/float32/10K", 10.0e-6, 10.2e-6,
               verdict(0.02, 0.017, 0.023, AT_THRESHOLD, rounds=64, detectable=0.026, level=0.99688)),
    Compared("msgpack/decode-unpackb/float32/1K", 1.0e-6, 1.2e-6,
               verdict(0.2, -0.2, 0.6, TWO_SPEEDS, rounds=16, detectable=None, level=0.999,
                       modes=(None, stats.Modes(1.0e-6, 1.3e-6, (1, 4, 7, 9, 12, 15))))),
]
SELECTION = verdict(0.071, 0.054, 0.088, SLOWER, rounds=8, detectable=None)


def test_compare_table_text_and_markdown():
    document = verdict_table.compare_document(COMPARE_ROWS, "msgpack 1.0.8", "msgpack 1.1.2", 0.02, selection=SELECTION)
    check_golden("compare.txt", document.text() + "\n")
    check_golden("compare.md", document.markdown())


TIERS_BYTES = (("1K", 4_000), ("10K", 40_000), ("100K", 400_000), ("1M", 4_000_000))


def four_tiers(fmt_impl, cost, payload=lambda size: size + 100):
    """A row at the four tiers whose medians follow `cost(bytes)` (seconds), two runs of three values."""
    return [benchmark(f"{fmt_impl}/float32/{tier}", [[cost(size)] * 3, [cost(size) * 1.01] * 3],
                      input_bytes=size, payload_bytes=payload(size)) for tier, size in TIERS_BYTES]


COSTS_RUN = (four_tiers("baseline/tobytes", lambda size: 100e-9 + 0.04e-9 * size, payload=lambda size: size)
             + four_tiers("baseline/noop", lambda size: 60e-9, payload=lambda size: 0)
             + four_tiers("msgpack/packb", lambda size: 2e-6 + 0.2e-9 * size)
             + four_tiers("tfserving-rest/json", lambda size: 20e-6 + 260e-9 * size)
             + four_tiers("tfserving-rest/quadratic", lambda size: 3e-6 + 1e-15 * size**2))
COSTS_MEMORY = {  # B/op, allocs/op, peak, retained per row, at 1K; scaled with the tier's size
    "baseline/tobytes": (1.0, 1, 1.0, 1.0), "baseline/noop": (0, 0, 0, 0), "msgpack/packb": (2.0, 9, 1.0, 1.0),
    "tfserving-rest/json": (80.0, 3000, 12.0, 3.0), "tfserving-rest/quadratic": (400.0, 40, 3.0, 1.0)}


@pytest.fixture
def costs_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pyperf.BenchmarkSuite(COSTS_RUN).dump("costs.json")
    entries = {}
    for bench in COSTS_RUN:
        name = bench.get_name()
        size = bench.get_metadata()["input_bytes"]
        per_byte, allocs, peak, retained = COSTS_MEMORY[name.rsplit("/", 2)[0]]
        tier_scale = size // 4000
        entries[name] = {"peak_bytes": int(peak * size), "retained_bytes": int(retained * size), "calls": 5,
                         "bytes_per_op": per_byte * size + 33 * bool(per_byte),
                         "allocs_per_op": allocs * (tier_scale if allocs > 100 else 1), "alloc_calls": 64}
    Path("costs.memory.json").write_text(json.dumps({"serialbench_memory": 2, "benchmarks": entries}))
    return load("costs.json")


def test_the_cost_per_request_and_per_byte_tables(costs_file):
    tables = cost_tables(costs_file.results)
    check_golden("costs.txt", "\n".join(render_text(table) for table in tables))
    check_golden("costs.md", "\n".join(render_markdown(table) for table in tables))


def test_memory_tables_and_the_benchmem_listing(costs_file):
    check_golden("memory.txt", "\n".join(render_text(table) for table in memory_tables(costs_file.results))
                 + "\n" + benchmem(costs_file.results))


def test_compare_json():
    check_golden("compare.json", verdict_table.compare_document(COMPARE_ROWS, "msgpack 1.0.8", "msgpack 1.1.2", 0.02,
                                                                {"msgpack/packb/png/1M": "HEAD: MemoryError"}).json())


def test_sweep_table_json_and_markdown():
    from serialbench.verdicts.steps import Step, Sweep, SweepRow
    from serialbench.views.sweep_table import sweep_document

    def step(before, after, change, word, low=None, high=None):
        return Step(before, after, change, change - 0.02 if low is None else low,
                    change + 0.02 if high is None else high, word, 16, 0.03)

    sides = ["2.44.0", "2.45.0", "2.46.0", "2.50.0"]
    rows = [
        SweepRow("triton-binary/tritonclient/int32x3/1M", tuple(sides), (3.78e-3, 3.77e-3, 2.04e-3, 2.05e-3),
                 (step("2.44.0", "2.45.0", -0.002, NO_CHANGE), step("2.45.0", "2.46.0", -0.46, FASTER),
                  step("2.46.0", "2.50.0", 0.004, NO_CHANGE)),
                 (step("2.44.0", "2.45.0", -0.002, NO_CHANGE), step("2.44.0", "2.46.0", -0.461, FASTER),
                  step("2.44.0", "2.50.0", -0.458, FASTER))),
        SweepRow("triton-binary/tritonclient/png/100K", ("2.44.0", "2.46.0", "2.50.0"), (40.1e-6, 40.6e-6, 40.2e-6),
                 (step("2.44.0", "2.46.0", 0.012, TOO_NOISY, -0.01, 0.034),
                  step("2.46.0", "2.50.0", -0.01, NO_CHANGE)),
                 (step("2.44.0", "2.46.0", 0.012, TOO_NOISY, -0.01, 0.034),
                  step("2.44.0", "2.50.0", 0.002, NO_CHANGE))),
        SweepRow("triton-binary/tritonclient/float32/1M", tuple(sides), (1.52e-3, 1.55e-3, 1.55e-3, 1.55e-3),
                 (step("2.44.0", "2.45.0", 0.02, AT_THRESHOLD, 0.017, 0.023),
                  step("2.45.0", "2.46.0", 0.001, NO_CHANGE), step("2.46.0", "2.50.0", -0.002, NO_CHANGE)),
                 (step("2.44.0", "2.45.0", 0.02, AT_THRESHOLD, 0.017, 0.023),
                  step("2.44.0", "2.46.0", 0.021, SLOWER), step("2.44.0", "2.50.0", 0.019, TOO_NOISY))),
    ]
    machine = {"host": "ci", "cpu": "AMD EPYC 7B13", "cpus": 2, "python": "3.11.7"}
    sweep = Sweep(sides, rows, 0.02, {side: machine for side in sides}, sides, sides,
                  left_out={"2.47.0": "cannot install 'tritonclient==2.47.0': ERROR: No matching distribution found"})
    check_golden("sweep.txt", sweep_document(sweep).text() + "\n")
    check_golden("sweep.md", sweep_document(sweep).markdown())
    check_golden("sweep.json", sweep_document(sweep).json())
