"""The run's closing summary, as exact text from hand-built pyperf data."""

import pyperf

from serialbench.results.files import load
from serialbench.views.summary import summary


def benchmark(name, values, loops=1000, direction="encode"):
    fmt, impl, kind, tier = name.split("/")
    metadata = {"name": name, "serialbench_format": fmt, "serialbench_impl": impl, "serialbench_input": kind,
                "serialbench_tier": tier, "serialbench_direction": direction, "input_bytes": 4000,
                "payload_bytes": 4100, "loops": loops}
    return pyperf.Benchmark([pyperf.Run(values, metadata=metadata, collect_metadata=False)])


RUN = [
    benchmark("baseline/tobytes/float32/1K", [100e-9, 100e-9, 120e-9]),
    benchmark("baseline/tobytes/float32/1M", [100e-6, 101e-6, 99e-6]),
    benchmark("triton-binary/struct-pack/float32/1K", [2.9e-6, 3.0e-6, 2.8e-6]),
    benchmark("triton-binary/struct-pack/float32/1M", [270e-6, 271e-6, 269e-6]),
    benchmark("triton-binary/join/float32/1K", [2.4e-6, 2.5e-6, 2.7e-6]),
    benchmark("triton-binary/join/float32/1M", [230e-6, 231e-6, 229e-6]),
    benchmark("triton-binary/decode-json/float32/1K", [4e-6, 4e-6, 4e-6], direction="decode"),
    benchmark("triton-binary/decode-json/float32/1M", [4e-6, 4e-6, 4e-6], direction="decode"),
]


def results_file(tmp_path, benchmarks=RUN):
    path = tmp_path / "run.json"
    pyperf.BenchmarkSuite(benchmarks).dump(str(path))
    return load(path)


def test_the_summary_gives_each_median_and_its_multiple_of_memcpy_on_one_line_where_80_columns_allow(tmp_path):
    results = results_file(tmp_path)
    legend, tables = summary(results, {b.get_name() for b in RUN}).split("\n\n", 1)
    assert " ".join(legend.split()) == (
        "Median time per op and its multiple of baseline/tobytes, the memcpy floor (one copy of the same input at "
        "the same tier; 'no copy' for an op that copies no tensor); * the fastest of its format, separated from the "
        "next by a paired test; = the fastest and the next, a tie; ~ two speeds, below the table. Throughput and "
        f"payload size: python -m serialbench report {results.path}")
    assert all(len(line) <= 80 for line in legend.splitlines()[:-1])  # the path may be longer
    assert tables == """\
float32, encode: median time per op
-------------------------------------------------------------
FORMAT/IMPL                              1K                1M
-------------------------------------------------------------
baseline/tobytes              100 ns   1.0x     100 us   1.0x

triton-binary/struct-pack  = 2.90 us    29x  =  270 us   2.7x
triton-binary/join         = 2.50 us    25x  =  230 us   2.3x
-------------------------------------------------------------

float32, decode: median time per op
-------------------------------------------------------------
FORMAT/IMPL                              1K                1M
-------------------------------------------------------------
triton-binary/decode-json  4.00 us  no copy  4.00 us  no copy
-------------------------------------------------------------

The answer: the fastest of triton-binary, by how much it beats the next (= a tie):
  float32 encode: join = struct-pack at 1K, 1M
"""


def test_a_decoder_that_copies_no_tensor_gets_no_multiple_of_the_copy_it_never_makes(tmp_path):
    """decode-json slices the body with np.frombuffer: 4 us at 1M against a 100 us copy read '0.04x'
    of a floor that the op never performs. The cell says so instead."""
    results = results_file(tmp_path)
    text = summary(results, {b.get_name() for b in RUN})
    decode = text[text.index("float32, decode"):]
    assert "no copy" in decode and "0.04x" not in decode and "x " not in decode.split("\n")[4]


def test_a_table_that_gives_multiples_shows_the_floor_they_are_of(tmp_path):
    copying = benchmark("triton-binary/decode-kserve/float32/1M", [900e-6, 901e-6, 899e-6], direction="decode")
    results = results_file(tmp_path, [*RUN, copying])
    text = summary(results, {b.get_name() for b in [*RUN, copying]})
    decode = text[text.index("float32, decode"):text.index("The answer")]
    assert decode.count("baseline/tobytes") == 1 and "9.0x" in decode


def test_a_narrow_terminal_puts_the_multiple_under_the_time(tmp_path):
    results = results_file(tmp_path, RUN[:6])
    text = summary(results, {b.get_name() for b in RUN}, width=50)
    tables = text.split("\n\n", 1)[1].split("\n\nThe answer")[0] + "\n"
    assert tables == """\
float32, encode: median time per op
----------------------------------------------
FORMAT/IMPL                       1K        1M
----------------------------------------------
baseline/tobytes              100 ns    100 us
                                1.0x      1.0x

triton-binary/struct-pack  = 2.90 us  = 270 us
                                 29x      2.7x
triton-binary/join         = 2.50 us  = 230 us
                                 25x      2.3x
----------------------------------------------
"""
    assert all(len(line) <= 50 for line in tables.splitlines())


def test_the_summary_shows_only_the_benchmarks_of_this_run(tmp_path):
    results = results_file(tmp_path)
    text = summary(results, {"baseline/tobytes/float32/1K", "triton-binary/join/float32/1K"})
    assert "struct-pack" not in text and "decode" not in text and "1M" not in text
    assert summary(results, {"msgpack/packb/float32/1K"}) == ""
