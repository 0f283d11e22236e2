"""The round-trip view's rules (its exact text is tests/test_golden.py's), and result files with the
response directions."""

import pyperf
import pytest

from serialbench.core.errors import UsageError
from serialbench.results.files import load
from serialbench.views.roundtrip_table import roundtrip_tables
from tests.hand_built import BASE_RUN, ROUND_TRIP_RUN, V2_PATH, benchmark, one_inference
from tests.helpers import SMALLEST, assert_one_line_usage_error, serialbench


def results(tmp_path, benchmarks, name="run.json"):
    path = tmp_path / name
    pyperf.BenchmarkSuite(benchmarks).dump(str(path))
    return load(path).results


def rows(table):
    return {row.label: [cell.lines[0] if cell else None for cell in row.cells] for row in table.rows}


def test_the_sum_is_the_four_halves_and_needs_all_of_them(tmp_path):
    (table,) = roundtrip_tables(results(tmp_path, ROUND_TRIP_RUN))
    assert [column.header for column in table.columns] == ["1K", "1M"]
    assert rows(table)["kserve-grpc (sum)"] == ["65.0 us", "6.50 ms"]  # 20 + 10 + 30 + 5 us; 2 + 1 + 3 + 0.5 ms
    assert rows(table)["tfserving-rest json (sum)"] == ["310 us", None]  # decode-json did not run at 1M
    # Every half timed in the same 8 rounds: at 1K the sums are 1.69x apart in every round, a star; at 1M
    # 1.5% apart, under the minimum effect: a tie, which the note says.
    marks = {row.label: [cell.mark if cell else None for cell in row.cells] for row in table.rows}
    assert marks["kserve-grpc (sum)"] == ["*", "="] and marks["tfserving-grpc (sum)"] == ["", "="]
    assert table.notes[1].startswith("cheapest at 1M: cannot separate kserve-grpc, 6.50 ms, and tfserving-grpc")


def test_sums_timed_in_processes_of_their_own_are_never_separated(tmp_path):
    # pyperf's runs: each half in its own processes, no round in common, one sum each: no test can tell.
    single = [benchmark(b.get_name(), [b.get_runs()[0].values], b.get_metadata()["serialbench_direction"])
              for b in ROUND_TRIP_RUN]
    (table,) = roundtrip_tables(results(tmp_path, single))
    assert not any(cell.mark == "*" for row in table.rows for cell in row.cells if cell)
    assert all("cannot separate" in note for note in table.notes)


def test_no_round_trip_without_a_protocol_s_four_halves(tmp_path):
    assert roundtrip_tables(results(tmp_path, BASE_RUN)) == []  # msgpack: no real library's path
    three = one_inference("kserve-grpc", V2_PATH, [(1e-6, 1e-3)] * 3 + [(None, None)])
    assert roundtrip_tables(results(tmp_path, three, "three.json")) == []


def test_one_complete_protocol_has_nothing_to_beat(tmp_path):
    (table,) = roundtrip_tables(results(tmp_path, one_inference("kserve-grpc", V2_PATH, [(1e-6, 1e-3)] * 4)))
    assert not any(cell.mark == "*" for row in table.rows for cell in row.cells if cell) and table.notes == []


def test_a_file_with_an_unknown_direction_is_refused_in_one_line(tmp_path):
    path = tmp_path / "odd.json"
    pyperf.BenchmarkSuite([benchmark("kserve-grpc/raw/float32/1K", [[1e-6] * 3], "sideways")]).dump(str(path))
    with pytest.raises(UsageError, match="direction 'sideways'; accepted: encode, decode, encode-response, "
                                         "decode-response"):
        load(path)


TOY_FORMAT = '''
import numpy as np

from serialbench.case import Case


def send(payload):
    (tensor,) = payload.tensors
    return tensor.value.tobytes


def receive(wire, payload):
    (tensor,) = payload.tensors
    like = tensor.value
    return lambda: [np.frombuffer(wire, like.dtype).reshape(like.shape)]


def read_back(wire, payload):
    return receive(wire, payload)()


CASES = [
    Case("toy", "send", ("float32",), send, reference_decoder=read_back, roundtrip="toy"),
    Case("toy", "decode-receive", ("float32",), receive, source="send", roundtrip="toy"),
    Case("toy", "reply", ("float32",), send, reference_decoder=read_back, response=True, roundtrip="toy"),
    Case("toy", "decode-reply", ("float32",), receive, source="reply", response=True, roundtrip="toy"),
]
'''


@pytest.mark.slow
def test_a_format_from_a_case_directory_is_in_the_round_trip_with_nothing_else_changed(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "toy.py").write_text(TOY_FORMAT)
    out = tmp_path / "toy.json"
    run = serialbench("--cases", cases, "-b", "toy/*", "--tier", "1K", "--input", "float32", *SMALLEST, "-o", out)
    assert run.returncode == 0, run.stderr.decode()
    assert "toy (sum)" in run.stdout.decode()  # the run's summary
    report = serialbench("report", out)  # no --cases: the result file says which benchmarks are its halves
    lines = report.stdout.decode().splitlines()
    assert report.returncode == 0, report.stderr.decode()
    start = lines.index(next(line for line in lines if line.startswith("toy (sum)")))
    assert [line.split()[0] for line in lines[start + 1 : start + 5]] == ["send", "decode-receive", "reply",
                                                                          "decode-reply"]


@pytest.mark.slow
def test_two_cases_for_one_half_of_a_round_trip_are_refused(tmp_path):
    twice = TOY_FORMAT + 'CASES.append(Case("toy", "send-again", ("float32",), send, roundtrip="toy"))\n'
    (tmp_path / "twice.py").write_text(twice)
    done = serialbench("list", "--cases", tmp_path)
    assert assert_one_line_usage_error(done).endswith(
        "toy/send and toy/send-again both declare the encode half of the 'toy' round trip; one case per half")


def test_the_cases_slow_at_1m_are_every_case_of_the_json_formats():
    from serialbench.catalog.discovery import BUILTIN_CASES_DIR, discover
    from serialbench.catalog.registry import slow_at_1m

    cases = discover([BUILTIN_CASES_DIR], lambda message: None)
    json_formats = ("tfserving-rest", "kserve-json")  # calibrate's SLOW_AT_1M before the cases said it
    assert slow_at_1m() == {case.label for case in cases if case.format in json_formats}
