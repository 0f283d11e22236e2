"""Result data built by hand, for exact-text tests: pyperf benchmarks with serialbench's metadata and
chosen values, so that every figure a view prints is known. tests/testdata/ holds files made from
them (`python -m tests.hand_built` writes them again)."""

import pyperf

from serialbench.catalog.case import DIRECTIONS
from serialbench.verdicts.vocabulary import FASTER, NO_CHANGE, SLOWER


def benchmark(name, runs, direction="encode", input_bytes=4000, payload_bytes=4100, rounds=False):
    """A benchmark of these runs (lists of values); with `rounds`, run i is round i of one session."""
    fmt, impl, kind, tier = name.split("/")
    metadata = {"name": name, "serialbench_format": fmt, "serialbench_impl": impl, "serialbench_input": kind,
                "serialbench_tier": tier, "serialbench_direction": direction, "input_bytes": input_bytes,
                "payload_bytes": payload_bytes, "loops": 100, "serialbench_commit": "0123456789abcdef",
                "date": "2026-11-30 12:00:00", "msgpack_version": "1.1.2"}
    return pyperf.Benchmark([pyperf.Run(values, metadata={**metadata, **({"serialbench_round": i} if rounds else {})},
                                        collect_metadata=False) for i, values in enumerate(runs)])


def scaled(values, factor):
    return [[value * factor for value in run] for run in values]


FLOOR_1K = [[100e-9, 101e-9, 99e-9], [100e-9, 102e-9, 100e-9]]
FLOOR_1M = [[100e-6, 101e-6, 99e-6], [102e-6, 100e-6, 101e-6]]
BASE_RUN = [
    benchmark("baseline/tobytes/float32/1K", FLOOR_1K),
    benchmark("baseline/tobytes/float32/1M", FLOOR_1M, input_bytes=4_000_000, payload_bytes=4_000_000),
    benchmark("msgpack/packb/float32/1K", scaled(FLOOR_1K, 20)),
    benchmark("msgpack/packb/float32/1M", scaled(FLOOR_1M, 5), input_bytes=4_000_000, payload_bytes=4_000_050),
    benchmark("msgpack/packb-buffer/float32/1K", scaled(FLOOR_1K, 15)),
    benchmark("msgpack/packb-buffer/float32/1M", scaled(FLOOR_1M, 3), input_bytes=4_000_000,
              payload_bytes=4_000_050),
    benchmark("msgpack/decode-unpackb/float32/1K", scaled(FLOOR_1K, 8), direction="decode"),
    benchmark("msgpack/decode-unpackb/float32/1M", scaled(FLOOR_1M, 1.5), direction="decode",
              input_bytes=4_000_000, payload_bytes=4_000_050),
]
def repeated(bench, factor=1.0, times=3):
    """The same benchmark with its runs repeated (six runs a side let the unpaired test tell)."""
    meta = bench.get_metadata()
    return benchmark(bench.get_name(), scaled([run.values for run in bench.get_runs()] * times, factor),
                     meta["serialbench_direction"], meta["input_bytes"], meta["payload_bytes"])


BASE_RUN_6 = [repeated(b) for b in BASE_RUN]
NEW_RUN = [repeated(b, 1.3 if b.get_name().split("/")[1] == "packb" else 1.0) for b in BASE_RUN]  # packb +30%


def one_inference(fmt, impls, medians, tiers=("1K", "1M"), rounds=8):
    """The four halves of one protocol's round trip, each timed in the same `rounds` processes (a run per
    round, its values the median given; None: not run), so that the sums are compared round by round."""
    benches = []
    for impl, direction, by_tier in zip(impls, DIRECTIONS, medians, strict=True):
        for tier, median in zip(tiers, by_tier, strict=True):
            if median is not None:
                size = 4000 if tier == "1K" else 4_000_000
                benches.append(benchmark(f"{fmt}/{impl}/float32/{tier}", [[median] * 3] * rounds, direction, size,
                                         size + 100, rounds=True))
    return benches


V2_PATH = ("tritonclient", "decode-kserve", "response-kserve", "decode-response-tritonclient")
ROUND_TRIP_RUN = [
    benchmark("baseline/tobytes/float32/1K", FLOOR_1K),
    benchmark("baseline/tobytes/float32/1M", FLOOR_1M, input_bytes=4_000_000, payload_bytes=4_000_000),
    *one_inference("kserve-grpc", V2_PATH, [(20e-6, 2e-3), (10e-6, 1e-3), (30e-6, 3e-3), (5e-6, 0.5e-3)]),
    # A floor beside the path: in the timing tables, not in the round trip.
    *one_inference("kserve-grpc", ("raw", "decode-raw", "response-raw", "decode-response-raw"),
                   [(8e-6, 1.5e-3), (4e-6, 0.1e-3), (8e-6, 1.5e-3), (4e-6, 0.1e-3)]),
    *one_inference("tfserving-grpc", ("make-tensor-proto", "decode-make-ndarray", "response-make-tensor-proto",
                                      "decode-response-make-ndarray"),
                   [(40e-6, 2.5e-3), (15e-6, 0.8e-3), (40e-6, 2.5e-3), (15e-6, 0.8e-3)]),
    *one_inference("tfserving-rest", ("json", "decode-json", "response-json", "decode-response-json"),
                   [(100e-6, 100e-3), (50e-6, None), (100e-6, 100e-3), (60e-6, 60e-3)]),
]


# --- tests/testdata: whole commands read these files --------------------------------------------

def memory_companion(benches) -> dict:
    """A memory pass's file for `benches`: B/op and allocs/op as one copy of the input (the floor) or
    a few objects more, peak and retained of the same order."""
    entries = {}
    for bench in benches:
        meta = bench.get_metadata()
        size, impl = meta["input_bytes"], meta["serialbench_impl"]
        copies = {"tobytes": 1, "packb": 2, "packb-buffer": 1, "decode-unpackb": 1}.get(impl, 1)
        entries[bench.get_name()] = {"peak_bytes": copies * size + 512, "retained_bytes": size + 33, "calls": 5,
                                     "bytes_per_op": copies * (size + 33), "allocs_per_op": 3.0 * copies,
                                     "alloc_calls": 64}
    return {"serialbench_memory": 2, "results_file": "run.json", "serialbench_commit": "0123456789abcdef",
            "serialbench_dirty": 0, "python_version": "3.11.7", "calls": 5, "overhead": {}, "benchmarks": entries}


SESSION_ROUNDS = 16
# compare's two files of one session: HEAD's packb 10% slower in every round, decode-unpackb 10% faster,
# the rest unchanged; each round's values wobble by a fixed pattern of a few tenths of a percent.
SESSION_CHANGES = {"baseline/tobytes/float32/1K": (100e-9, 1.0), "msgpack/packb/float32/1K": (2e-6, 1.10),
                   "msgpack/packb-buffer/float32/1K": (1.5e-6, 1.0),
                   "msgpack/decode-unpackb/float32/1K": (0.8e-6, 0.90)}


def session_file(side: str, version: str, sided: bool = True) -> list:
    """One side of the session (sided), or, without serialbench_side, a run in rounds as the run writes it."""
    benches = []
    for name, (seconds, change) in SESSION_CHANGES.items():
        fmt, impl, kind, tier = name.split("/")
        runs = []
        for round_index in range(SESSION_ROUNDS):
            wobble = [1 + ((round_index * 7 + cycle * 3 + len(side)) % 5 - 2) * 0.001 for cycle in range(3)]
            values = [seconds * w * (change if side == "head" else 1.0) for w in wobble]
            metadata = {"name": name, "serialbench_format": fmt, "serialbench_impl": impl, "serialbench_input": kind,
                        "serialbench_tier": tier, "serialbench_direction": "decode" if impl.startswith("decode-")
                        else "encode", "input_bytes": 4000, "payload_bytes": 4100, "loops": 100,
                        "serialbench_commit": "0123456789abcdef", "serialbench_session": "0123456789ab",
                        "serialbench_round": round_index, "date": "2026-11-30 12:00:00", "msgpack_version": version,
                        **({"serialbench_side": f"msgpack {version}"} if sided else {})}
            runs.append(pyperf.Run(values, metadata=metadata, collect_metadata=False))
        benches.append(pyperf.Benchmark(runs))
    return benches


def sweep_parts():
    """A sweep of tritonclient's releases in two parts (--shard 1/2 and 2/2): a step at 2.46.0."""
    from serialbench.verdicts.steps import Step, Sweep, SweepRow

    def step(before, after, change, word, rounds=16):
        return Step(before, after, change, change - 0.02, change + 0.02, word, rounds, 0.03)

    releases = ["2.44.0", "2.45.0", "2.46.0", "2.47.0"]
    machine = {"host": "ci", "cpu": "AMD EPYC 7B13", "cpus": 2, "python": "3.11.7"}
    name = "triton-binary/tritonclient/int32x3/1M"
    first = SweepRow(name, ("2.44.0", "2.45.0"), (3.78e-3, 3.77e-3),
                     (step("2.44.0", "2.45.0", -0.002, NO_CHANGE),),
                     (step("2.44.0", "2.45.0", -0.002, NO_CHANGE),))
    second = SweepRow(name, ("2.44.0", "2.45.0", "2.46.0", "2.47.0"), (3.79e-3, 3.78e-3, 2.04e-3, 2.05e-3),
                      (step("2.44.0", "2.45.0", -0.003, NO_CHANGE),
                       step("2.45.0", "2.46.0", -0.46, FASTER), step("2.46.0", "2.47.0", 0.004, NO_CHANGE)),
                      (step("2.44.0", "2.45.0", -0.003, NO_CHANGE),
                       step("2.44.0", "2.46.0", -0.461, FASTER), step("2.44.0", "2.47.0", -0.458, FASTER)))
    sides = ["2.44.0", "2.45.0", "2.46.0", "2.47.0"]
    return [Sweep(["2.44.0", "2.45.0"], [first], 0.02, {s: machine for s in sides[:2]}, releases,
                  ["2.44.0", "2.45.0"], (1, 2)),
            Sweep(sides, [second], 0.02, {s: machine for s in sides}, releases, ["2.44.0", "2.46.0", "2.47.0"],
                  (2, 2))]


def bisection() -> str:
    """bisect --json of tritonclient 2.40.0 to 2.50.0 on one benchmark: three sessions, the step at 2.46.0."""
    from serialbench.verdicts.bisection import Result
    from serialbench.verdicts.steps import Step
    from serialbench.views.table import Document
    from serialbench.views.verdict_json import bisect_keys

    def step(before, after, change, word=FASTER, rounds=8):
        return Step(before, after, change, change - 0.05, change + 0.05, word, rounds)

    same = NO_CHANGE
    sessions = [{"sides": ["2.40.0", "2.44.0", "2.50.0"], "rounds": 16, "minutes": 0.4,
                 "steps": [step("2.40.0", "2.44.0", -0.005, same, 16), step("2.44.0", "2.50.0", -0.553),
                           step("2.40.0", "2.50.0", -0.553)]},
                {"sides": ["2.44.0", "2.47.0", "2.50.0"], "rounds": 16, "minutes": 0.42,
                 "steps": [step("2.44.0", "2.47.0", -0.554), step("2.47.0", "2.50.0", 0.003, same, 16),
                           step("2.44.0", "2.50.0", -0.546)]},
                {"sides": ["2.45.0", "2.46.0", "2.47.0"], "rounds": 16, "minutes": 0.5,
                 "steps": [step("2.45.0", "2.46.0", -0.549), step("2.46.0", "2.47.0", 0.002, same, 16),
                           step("2.45.0", "2.47.0", -0.548)]}]
    result = Result([step("2.45.0", "2.46.0", -0.549)], step("2.40.0", "2.50.0", -0.553))
    keys = bisect_keys("triton-binary/tritonclient/int32x3/1M", "2.40.0", "2.50.0", result, sessions)
    return Document([], keys=keys).json()


# Sweeps and bisections of a library's commits (built into wheels): their sides are 8-hex labels, and the
# --json files add `commits` (label -> sha, subject, date, files), `history`, and bisect's `order` and
# `skipped` (sweep's skipped commits are in its `left_out`). 12345678 is a label JavaScript would sort
# first among an object's keys (a number), and packaging's Version before the hex ones.
HISTORY = "msgpack-python v1.1.2..v1.2.0 (first-parent)"
NO_GCC = "does not build: error: command 'gcc' failed: No such file or directory"


def commit(label: str, subject: str, day: int, *files: str) -> dict:
    return {"sha": label * 5, "subject": subject, "date": f"2026-08-{day:02d}", "files": list(files)}


def sweep_of_commits() -> str:
    """sweep --json of five commits of msgpack-python: 5eb57e14 skipped (it does not build), a step at
    12345678 (+20%)."""
    import json

    from serialbench.verdicts.steps import Step, Sweep, SweepRow
    from serialbench.views.sweep_table import sweep_document

    def step(before, after, change, word=NO_CHANGE):
        return Step(before, after, change, change - 0.02, change + 0.02, word, 16, 0.03)

    sides = ["9f9bdae3", "a1b2c3d4", "12345678", "c0ffee42"]
    row = SweepRow("msgpack/packb/float32/1M", tuple(sides), (1.0e-3, 1.0e-3, 1.2e-3, 1.2e-3),
                   (step("9f9bdae3", "a1b2c3d4", 0.001), step("a1b2c3d4", "12345678", 0.2, SLOWER),
                    step("12345678", "c0ffee42", -0.001)),
                   (step("9f9bdae3", "a1b2c3d4", 0.001), step("9f9bdae3", "12345678", 0.201, SLOWER),
                    step("9f9bdae3", "c0ffee42", 0.2, SLOWER)))
    machine = {"host": "ci", "cpu": "AMD EPYC 7B13", "cpus": 2, "python": "3.11.7"}
    data = json.loads(sweep_document(Sweep(sides, [row], 0.02, {side: machine for side in sides}, sides, sides,
                                           left_out={"5eb57e14": NO_GCC})).json())
    data["commits"] = {  # the range's order, the skipped commit in its place
        "9f9bdae3": commit("9f9bdae3", "Release v1.1.2", 1, "msgpack/__init__.py"),
        "a1b2c3d4": commit("a1b2c3d4", "Drop Python 3.8 (#720)", 5, "setup.py", "pyproject.toml"),
        "5eb57e14": commit("5eb57e14", "Build with Cython 3.1 (#723)", 9, "pyproject.toml"),
        "12345678": commit("12345678", "Convert Packer's buf_size once (#726)", 14, "msgpack/_packer.pyx"),
        "c0ffee42": commit("c0ffee42", "Release v1.2.0", 20, "msgpack/__init__.py", "ChangeLog.rst", "README.md")}
    data["history"] = HISTORY
    return json.dumps(data, indent=1) + "\n"


def bisection_of_commits() -> str:
    """bisect --json of nine commits on one benchmark: two sessions, the step at f00dcafe (after 12345678),
    5eb57e14 between them skipped (it does not build)."""
    import json

    from serialbench.verdicts.bisection import Result
    from serialbench.verdicts.steps import Step
    from serialbench.views.table import Document
    from serialbench.views.verdict_json import bisect_keys

    def step(before, after, change, word=SLOWER):
        return Step(before, after, change, change - 0.02, change + 0.02, word, 16)

    same = NO_CHANGE
    sessions = [{"sides": ["e1a2b3c4", "12345678", "badc0ffe"], "rounds": 16, "minutes": 0.4,
                 "steps": [step("e1a2b3c4", "12345678", 0.002, same), step("12345678", "badc0ffe", 0.2),
                           step("e1a2b3c4", "badc0ffe", 0.2)]},
                {"sides": ["12345678", "f00dcafe", "badc0ffe"], "rounds": 16, "minutes": 0.4,
                 "steps": [step("12345678", "f00dcafe", 0.2), step("f00dcafe", "badc0ffe", -0.001, same),
                           step("12345678", "badc0ffe", 0.2)]}]
    result = Result([step("12345678", "f00dcafe", 0.2)], step("e1a2b3c4", "badc0ffe", 0.2),
                    notes=["5eb57e14, between 12345678 and f00dcafe, was skipped"])
    data = json.loads(Document([], keys=bisect_keys("msgpack/packb/float32/1M", "e1a2b3c4", "badc0ffe", result,
                                                    sessions)).json())
    subjects = {"e1a2b3c4": "Release v1.1.2", "d00dfeed": "Test on Python 3.14 (#719)",
                "7bad1dea": "Drop Python 3.8 (#720)", "0ddba11a": "Fix a typo in README",
                "12345678": "Use PyLong_AsSize_t (#722)", "5eb57e14": "Build with Cython 3.1 (#723)",
                "f00dcafe": "Convert Packer's buf_size once (#726)", "abcdef01": "Update ChangeLog",
                "badc0ffe": "Release v1.2.0"}
    data["commits"] = {label: commit(label, subject, day, "msgpack/_packer.pyx", "msgpack/_unpacker.pyx")
                       for day, (label, subject) in enumerate(subjects.items(), start=1)}
    data.update(order=list(subjects), skipped={"5eb57e14": NO_GCC}, history=HISTORY)
    return json.dumps(data, indent=1) + "\n"


def harness_panel() -> str:
    """check-harness --json of three benchmarks, five processes a way: two agree, one disagrees."""
    from serialbench.views.harness_table import Panel

    def processes(median, spread=0.02):
        return [median * (1 + spread * k) for k in (-2, -1, 0, 1, 2)]

    medians = {"msgpack/packb/float32/100K": (50e-6, 51e-6, 50.5e-6),  # run, compare, plain
               "msgpack/packb/float32/1M": (1.5e-3, 1.6e-3, 1.55e-3),
               "baseline/tobytes/float32/1M": (150e-6, 260e-6, 120e-6)}
    timed = {way: {name: processes(ways[index]) for name, ways in medians.items()}
             for index, way in enumerate(("run", "compare", "plain"))}
    return Panel(list(medians), timed, 0.25, 5).document().json()


def write_testdata(directory) -> None:
    """Write tests/testdata/ again (its files are committed: whole commands read them as a user's)."""
    import json
    from pathlib import Path

    from serialbench.views.sweep_table import sweep_document

    directory = Path(directory)
    directory.mkdir(exist_ok=True)
    pyperf.BenchmarkSuite(BASE_RUN).dump(str(directory / "run.json"), replace=True)
    (directory / "run.memory.json").write_text(json.dumps(memory_companion(BASE_RUN), indent=1) + "\n")
    for side, version in (("base", "1.0.8"), ("head", "1.1.2")):
        pyperf.BenchmarkSuite(session_file(side, version)).dump(str(directory / f"compare-{side}.json"), replace=True)
    pyperf.BenchmarkSuite(session_file("head", "1.1.2", sided=False)).dump(str(directory / "rounds.json"),
                                                                            replace=True)
    for index, part in enumerate(sweep_parts(), start=1):
        (directory / f"sweep-part-{index}.json").write_text(sweep_document(part).json())
    (directory / "bisect.json").write_text(bisection())
    (directory / "check-harness.json").write_text(harness_panel())


if __name__ == "__main__":
    from tests.helpers import PROJECT_ROOT

    write_testdata(PROJECT_ROOT / "tests" / "testdata")
