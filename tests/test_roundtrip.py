"""The round-trip view's rules (its exact text is tests/test_golden.py's), and result files with the
response directions."""

import pyperf
import pytest

from serialbench.core.errors import UsageError
from serialbench.results.files import load
from serialbench.views.roundtrip import roundtrip_tables
from tests.test_golden import BASE_RUN, ROUND_TRIP_RUN, V2_PATH, benchmark, one_inference


def results(tmp_path, benchmarks, name="run.json"):
    path = tmp_path / name
    pyperf.BenchmarkSuite(benchmarks).dump(str(path))
    return load(path).results


def rows(table):
    return {label: [cell.lines[0] if cell else None for cell in cells] for label, cells in table.rows}


def test_the_sum_is_the_four_halves_and_needs_all_of_them(tmp_path):
    (table,) = roundtrip_tables(results(tmp_path, ROUND_TRIP_RUN))
    assert table.columns == ["1K", "1M"]
    assert rows(table)["kserve-grpc (sum)"] == ["65.0 us", "6.50 ms"]  # 20 + 10 + 30 + 5 us; 2 + 1 + 3 + 0.5 ms
    assert rows(table)["tfserving-rest json (sum)"] == ["310 us", None]  # decode-json did not run at 1M
    marked = {label: [bool(cell and cell.marked) for cell in cells] for label, cells in table.rows}
    assert marked["kserve-grpc (sum)"] == [True, True] and not any(marked["tfserving-grpc (sum)"])


def test_no_round_trip_without_a_protocol_s_four_halves(tmp_path):
    assert roundtrip_tables(results(tmp_path, BASE_RUN)) == []  # msgpack: no real library's path
    three = one_inference("kserve-grpc", V2_PATH, [(1e-6, 1e-3)] * 3 + [(None, None)])
    assert roundtrip_tables(results(tmp_path, three, "three.json")) == []


def test_one_complete_protocol_has_nothing_to_beat(tmp_path):
    (table,) = roundtrip_tables(results(tmp_path, one_inference("kserve-grpc", V2_PATH, [(1e-6, 1e-3)] * 4)))
    assert not any(cell.marked for _, cells in table.rows for cell in cells if cell) and table.notes == []


def test_a_file_with_an_unknown_direction_is_refused_in_one_line(tmp_path):
    path = tmp_path / "odd.json"
    pyperf.BenchmarkSuite([benchmark("kserve-grpc/raw/float32/1K", [[1e-6] * 3], "sideways")]).dump(str(path))
    with pytest.raises(UsageError, match="direction 'sideways'; accepted: encode, decode, encode-response, "
                                         "decode-response"):
        load(path)
