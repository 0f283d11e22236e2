"""A real pyperf run with the smallest settings: result file, metadata contract, failures."""

import json
import re
import statistics
import subprocess
import sys
import textwrap

import pyperf
import pytest

from tests.helpers import PROJECT_ROOT, SMALLEST, serialbench

SELECTION = ["-b", "baseline/*/float32/1K", "-b", "triton-binary/join/int32x3/1K", "-b", "tfserving-rest/orjson/png/1K"]
CONTRACT_KEYS = {
    "serialbench_format", "serialbench_impl", "serialbench_input", "serialbench_tier",
    "serialbench_direction", "input_bytes", "payload_bytes", "serialbench_commit", "serialbench_dirty",
}


@pytest.fixture(scope="module")
def result_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "run.json"
    done = serialbench(*SMALLEST, *SELECTION, "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    assert path.exists()
    return path, done.stdout.decode()


def test_run_prints_progress_and_writes_every_selected_benchmark_and_the_floor(result_file):
    path, stdout = result_file
    suite = pyperf.BenchmarkSuite.load(str(path))
    names = ["baseline/tobytes/float32/1K", "baseline/tobytes/png/1K", "baseline/tobytes/int32x3/1K",
             "baseline/noop/float32/1K", "tfserving-rest/orjson/png/1K", "triton-binary/join/int32x3/1K"]
    assert suite.get_benchmark_names() == names
    for index, name in enumerate(names, start=1):
        assert f"[{index}/6] {name}" in stdout


def test_one_benchmark_ends_with_a_summary_in_multiples_of_the_floor_it_added(tmp_path):
    path = tmp_path / "one.json"
    done = serialbench(*SMALLEST, "-b", "triton-binary/join/float32/1K", "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    stdout = done.stdout.decode()
    assert pyperf.BenchmarkSuite.load(str(path)).get_benchmark_names() == [
        "baseline/tobytes/float32/1K", "triton-binary/join/float32/1K"]
    assert re.search(r"^\[2/2\] triton-binary/join/float32/1K  \(\d+ s so far, ~\d+ s left\)$", stdout, re.M)
    assert "WARNING" not in stdout and "Mean +- std dev" not in stdout  # pyperf's own display
    after_results = stdout.split(f"results: {path}\n", 1)[1]
    assert "float32, encode: median time per op" in after_results
    assert re.search(r"^triton-binary/join +\d[\d.]* (ns|us|ms) +\d[\d.,]*x$", after_results, re.M) or re.search(
        r"^ +\d[\d.,]*x +$", after_results, re.M)  # the multiple beside the time, or under it
    assert all(len(line) <= 80 for line in after_results.split("\n\n", 1)[1].splitlines())


def test_no_summary_ends_with_the_results_path(tmp_path):
    path = tmp_path / "quiet.json"
    done = serialbench(*SMALLEST, "--no-summary", "-b", "baseline/tobytes/float32/1K", "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    stdout = done.stdout.decode()
    assert stdout.endswith(f"results: {path}\n")
    assert "median time per op" not in stdout


def test_unstable_results_get_one_line_each_and_one_closing_line(result_file):
    _, stdout = result_file  # one value of one loop: every result is flagged (a value under 1 ms)
    assert stdout.count("  unstable: a value lasts only") == 6
    (closing,) = [line for line in stdout.splitlines() if "results unstable" in line]
    assert closing.startswith("6 of 6 results unstable: rerun them")
    assert "'python -m serialbench compare'" in closing


def test_each_benchmark_carries_the_metadata_contract(result_file):
    path, _ = result_file
    for bench in pyperf.BenchmarkSuite.load(str(path)):
        metadata = bench.get_metadata()
        assert CONTRACT_KEYS <= set(metadata), bench.get_name()
        fmt, impl, kind, tier = bench.get_name().split("/")
        assert (metadata["serialbench_format"], metadata["serialbench_impl"]) == (fmt, impl)
        assert (metadata["serialbench_input"], metadata["serialbench_tier"]) == (kind, tier)
        assert metadata["serialbench_direction"] == "encode"
        assert metadata["numpy_version"]
        assert metadata["serialbench_malloc"] == "steady"
        assert bench.median() > 0


def test_versions_of_the_libraries_a_case_exercises_are_recorded(result_file):
    path, _ = result_file
    suite = pyperf.BenchmarkSuite.load(str(path))
    assert "orjson_version" in suite.get_benchmark("tfserving-rest/orjson/png/1K").get_metadata()
    assert "python_rapidjson_version" in suite.get_benchmark("triton-binary/join/int32x3/1K").get_metadata()


def test_payload_bytes_equals_the_length_of_dump(result_file):
    path, _ = result_file
    for bench in pyperf.BenchmarkSuite.load(str(path)):
        if bench.get_name().startswith("baseline/noop"):
            continue
        body = serialbench("dump", bench.get_name(), check=True).stdout
        assert bench.get_metadata()["payload_bytes"] == len(body)


def test_pyperf_compare_to_reads_the_result(result_file, tmp_path):
    path, _ = result_file
    other = tmp_path / "other.json"
    other.write_bytes(path.read_bytes())
    done = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(path), str(other)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_without_o_results_go_to_results_dir_and_never_overwrite(tmp_path):
    done = serialbench(*SMALLEST, "-b", "baseline/noop/float32/1K")
    again = serialbench(*SMALLEST, "-b", "baseline/noop/float32/1K")
    written = [line.split("results: ", 1)[1] for d in (done, again) for line in d.stdout.decode().splitlines()
               if line.startswith("results: ")]
    try:
        assert len(written) == 2 and written[0] != written[1]
        for path in written:
            assert path.startswith(str(PROJECT_ROOT / "results"))
            assert json.loads(open(path).read())["benchmarks"]
    finally:
        for path in written:
            __import__("os").remove(path)


def test_a_case_that_raises_in_setup_is_reported_and_the_run_goes_on(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "fragile.py").write_text(textwrap.dedent('''
        from serialbench.case import Case

        def broken(payload):
            raise RuntimeError("cannot prepare this")

        def fine(payload):
            value = payload.tensors[0].value
            return value.tobytes

        CASES = [
            Case("fragile", "broken", ("float32",), broken),
            Case("fragile", "fine", ("float32",), fine),
        ]
    '''))
    out = tmp_path / "run.json"
    done = serialbench(*SMALLEST, "--cases", cases, "-b", "fragile/*/float32/1K", "-o", out)
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert "fragile/broken/float32/1K: RuntimeError: cannot prepare this" in stderr
    assert "1 of 3 benchmarks not timed: fragile/broken/float32/1K" in stderr
    assert pyperf.BenchmarkSuite.load(str(out)).get_benchmark_names() == [
        "baseline/tobytes/float32/1K", "fragile/fine/float32/1K"]


def fast_runs(tmp_path, *options):
    path = tmp_path / "fast.json"
    done = serialbench("--fast", "--min-time", "0.001", *options, "-b", "baseline/tobytes/float32/1K", "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    return pyperf.BenchmarkSuite.load(str(path)).get_benchmark("baseline/tobytes/float32/1K").get_runs()


def test_fast_is_one_worker_of_three_values_that_calibrated_its_own_loops(tmp_path):
    (run,) = fast_runs(tmp_path)  # no separate calibration worker
    assert (len(run.warmups or ()), len(run.values)) == (0, 3)
    metadata = run.get_metadata()
    calls_per_value = metadata["loops"] * metadata["inner_loops"]
    assert metadata["loops"] > 1
    assert statistics.median(run.values) * calls_per_value >= 0.001 * 0.5  # a value lasts about --min-time


def test_fast_with_loops_given_does_not_calibrate(tmp_path):
    (run,) = fast_runs(tmp_path, "--loops", "3")
    assert run.get_metadata()["loops"] == 3


def test_fast_keeps_the_options_given_explicitly(tmp_path):
    runs = fast_runs(tmp_path, "-p", "2", "--values=2", "-w", "1")
    assert [(len(run.warmups or ()), len(run.values)) for run in runs] == [(1, 2), (1, 2)]
