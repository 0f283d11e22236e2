"""Memory per op: what tracemalloc sees for known ops, and the pass that `report` shows."""

import json
import subprocess
import sys

import pytest

from serialbench.measure.memory import measure
from serialbench.results.files import load, memory_path_for
from tests.helpers import PROJECT_ROOT, SMALLEST, assert_one_line_usage_error, serialbench

MB = 1_000_000


def memory_pass(*args) -> subprocess.CompletedProcess:
    # `python -m serialbench.memory` is the command's own entry point (and its workers').
    return subprocess.run([sys.executable, "-m", "serialbench", "memory", *map(str, args)],
                          cwd=PROJECT_ROOT, capture_output=True, timeout=600)


def test_an_op_that_returns_a_new_megabyte_retains_it():
    source = bytes(MB)
    measured = measure(lambda: bytearray(source))
    assert MB <= measured["retained_bytes"] < MB + 1000
    assert MB <= measured["peak_bytes"] < MB + 1000
    assert measured["calls"] == 5


def test_transient_objects_count_in_the_peak_not_in_what_is_retained():
    def via_python_objects():
        numbers = list(range(100_000))  # about 3.6 MB of ints and list, freed before returning
        return len(numbers)

    measured = measure(via_python_objects)
    assert measured["peak_bytes"] > 3 * MB
    assert measured["retained_bytes"] < 1000


def test_an_op_returning_its_input_allocates_nothing():
    data = bytes(MB)
    measured = measure(lambda: data)
    assert measured["peak_bytes"] < 1000 and measured["retained_bytes"] == 0


@pytest.fixture(scope="module")
def measured_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("memory") / "run.json"
    done = serialbench(*SMALLEST, "-b", "baseline/tobytes/float32", "-b", "triton-binary/join/float32",
                       "--tier", "1K,100K", "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    done = memory_pass(path, "--calls", "3")
    assert done.returncode == 0, done.stderr.decode()
    return path


def test_the_pass_writes_a_companion_file_with_every_benchmark(measured_run):
    data = json.loads(memory_path_for(measured_run).read_text())
    assert set(data["benchmarks"]) == {r.name for r in load(measured_run).results}
    assert data["serialbench_memory"] == 1 and data["calls"] == 3


def test_memcpy_retains_the_input_and_the_report_shows_it(measured_run):
    results = load(measured_run)
    floor = results.get("baseline/tobytes/float32/100K")
    assert 400_000 <= floor.memory.retained_bytes < 401_000
    stdout = serialbench("report", measured_run).stdout.decode()
    assert "float32, encode: memory per op (tracemalloc)" in stdout
    assert "retained 400 KB" in stdout


def test_an_existing_companion_is_not_overwritten_without_force(measured_run):
    before = memory_path_for(measured_run).read_text()
    done = memory_pass(measured_run)
    assert_one_line_usage_error(done)
    assert memory_path_for(measured_run).read_text() == before
