"""Memory per op: what memray counts (B/op, allocs/op) and tracemalloc sees for known ops, and the
pass that `memory` prints and `report` shows."""

import json
import subprocess
import sys

import numpy as np
import pytest

from serialbench.inside.allocations import count, totals, totals_from_records
from serialbench.measure.memory import measure
from serialbench.results.files import load, memory_path_for
from tests.helpers import PROJECT_ROOT, SMALLEST, serialbench

MB = 1_000_000


def memory_pass(*args) -> subprocess.CompletedProcess:
    # `python -m serialbench memory`; its workers are `python -m serialbench worker memory` (serialbench/workers.py).
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


# B/op and allocs/op of ops whose allocations are known. CPython's object sizes are exact (a bytes
# object is 33 bytes and its contents; a float 24; a list 56 and an array of 8 per item): the
# tolerances are for what CPython reuses without an allocator call (its free lists: up to 100 floats
# and the list object itself).

def test_one_bytes_object_of_n_bytes_is_one_allocation_of_n_bytes_and_its_header():
    n = 100_000
    counted = count(lambda: bytes(n))
    assert counted.allocs_per_op == pytest.approx(1, abs=0.01)
    assert counted.bytes_per_op == pytest.approx(n + 33, abs=1)


def test_a_list_of_k_floats_is_k_floats_and_an_array_of_k_pointers():
    k = 10_000
    values = np.arange(k, dtype=np.float64)
    counted = count(values.tolist)
    assert k + 1 - 100 <= counted.allocs_per_op <= k + 2
    assert 24 * (k - 100) + 8 * k <= counted.bytes_per_op <= 24 * k + 8 * k + 56


def test_a_buffer_that_numpy_mallocs_outside_pythons_allocator_is_counted():
    # numpy's data buffer comes from malloc (its own handler), not from Python's allocators: only the
    # array object (about 100 bytes) goes through those.
    counted = count(lambda: np.empty(1_000_000, dtype=np.uint8))
    assert counted.allocs_per_op == pytest.approx(2, abs=0.01)
    assert 1_000_000 <= counted.bytes_per_op < 1_000_000 + 200


def test_memrays_private_reader_and_its_public_records_give_the_same_totals(tmp_path):
    # The count uses memray's private C++ reader where it exists, the public FileReader where not:
    # both must count the same calls and bytes (frees excluded), here on Python, numpy and msgpack
    # allocations, a realloc among them.
    import memray
    import msgpack

    array = np.arange(50_000, dtype=np.float32)
    path = str(tmp_path / "capture.bin")
    with memray.Tracker(path, trace_python_allocators=True, follow_fork=False):
        for _ in range(4):
            array[:2_000].tolist()
            msgpack.packb({"x": array.tobytes()})
            bytearray(100) + bytearray(100_000)
            np.concatenate([array, array])
    allocs, allocated = totals_from_records(path)
    assert allocs > 4_000 and allocated > 4 * 3 * array.nbytes
    assert totals(path) == (allocs, allocated)


def test_python_and_method_calls_add_no_allocation_of_their_own():
    # Under a profile function (memray's) CPython would create a frame object per Python call and a
    # bound method per C method call: the counted regions run without it.
    array = np.zeros(250, dtype=np.float32)

    def leaf():
        return None

    def calls_five():
        leaf(); leaf(); leaf(); leaf(); leaf()  # (a loop would allocate its range)
        return array.tobytes()

    counted = count(calls_five)
    assert counted.allocs_per_op == pytest.approx(1, abs=0.01)
    assert counted.bytes_per_op == pytest.approx(1033, abs=1)


@pytest.fixture(scope="module")
def measured_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("memory") / "run.json"
    done = serialbench(*SMALLEST, "-b", "baseline/tobytes/float32", "-b", "baseline/noop/float32",
                       "-b", "triton-binary/join/float32", "--tier", "1K,100K", "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    done = memory_pass(path, "--calls", "3")
    assert done.returncode == 0, done.stderr.decode()
    return path, done.stdout.decode(), done.stderr.decode()


@pytest.mark.slow
def test_the_pass_writes_a_companion_file_with_every_benchmark(measured_run):
    path, _, _ = measured_run
    data = json.loads(memory_path_for(path).read_text())
    assert set(data["benchmarks"]) == {r.name for r in load(path).results}
    assert data["serialbench_memory"] == 2 and data["calls"] == 3
    assert set(data["overhead"]) == {"baseline/tobytes", "baseline/noop", "triton-binary/join"}


@pytest.mark.slow
def test_the_harness_alone_allocates_about_nothing_once_its_overhead_is_taken_off(measured_run):
    path, _, _ = measured_run
    for tier in ("1K", "100K"):
        noop = load(path).get(f"baseline/noop/float32/{tier}").memory
        assert abs(noop.allocs_per_op) < 0.05 and abs(noop.bytes_per_op) < 5


@pytest.mark.slow
def test_the_pass_prints_b_per_op_and_allocs_per_op_as_go_test_benchmem(measured_run):
    path, stdout, stderr = measured_run
    lines = {line.split()[0]: line.split() for line in stdout.splitlines() if line.startswith("baseline/")}
    name, _time, unit, b_per_op, allocs, *_ = lines["baseline/tobytes/float32/100K"]
    assert (b_per_op, allocs) == ("400,033", "1")  # one bytes object: its 400,000 bytes and header
    assert stderr.splitlines()[-1] == f"memory: {memory_path_for(path)}"  # the file written, said on stderr


@pytest.mark.slow
def test_memcpy_retains_the_input_and_the_report_shows_it(measured_run):
    path, _, _ = measured_run
    results = load(path)
    floor = results.get("baseline/tobytes/float32/100K")
    assert 400_000 <= floor.memory.retained_bytes < 401_000
    stdout = serialbench("report", path).stdout.decode()
    assert "float32, encode: allocations and memory per op" in stdout
    assert "400 KB/op  1 allocs" in stdout and "retained 400 KB" in stdout


@pytest.mark.slow
def test_a_format_1_companion_still_loads_without_allocations(measured_run, tmp_path):
    path, _, _ = measured_run
    old = tmp_path / "old.json"
    old.write_bytes(path.read_bytes())
    data = json.loads(memory_path_for(path).read_text())
    data["serialbench_memory"] = 1
    for entry in data["benchmarks"].values():
        for key in ("bytes_per_op", "allocs_per_op", "alloc_calls"):
            del entry[key]
    memory_path_for(old).write_text(json.dumps(data))
    floor = load(old).get("baseline/tobytes/float32/100K").memory
    assert floor.bytes_per_op is None and 400_000 <= floor.retained_bytes < 401_000
    stdout = serialbench("report", old).stdout.decode()
    assert "retained 400 KB" in stdout and "KB/op" not in stdout


@pytest.mark.slow
def test_an_existing_companion_is_never_overwritten_its_figures_are_shown(measured_run, tmp_path):
    path, stdout, _ = measured_run
    before = memory_path_for(path).read_text()
    done = memory_pass(path, "--json", tmp_path / "memory.json")
    assert done.returncode == 0, done.stderr.decode()
    assert memory_path_for(path).read_text() == before
    assert "never overwritten" in done.stderr.decode().splitlines()[0]
    assert done.stdout.decode() == stdout  # the same table, measured once
    rows = {row["name"]: row for row in json.loads((tmp_path / "memory.json").read_text())["benchmarks"]}
    assert rows["baseline/tobytes/float32/100K"]["bytes_per_op"] == pytest.approx(400_033, abs=1)
