"""Result data built by hand, for exact-text tests: pyperf benchmarks with serialbench's metadata and
chosen values, so that every figure a view prints is known. tests/testdata/ holds files made from
them (`python -m tests.hand_built` writes them again)."""

import pyperf

from serialbench.catalog.case import DIRECTIONS


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
