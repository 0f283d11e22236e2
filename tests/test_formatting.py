"""One formatting module for every view: the exact text of each kind of number."""

import pytest

from serialbench.core.formatting import (
    format_bytes,
    format_change,
    format_count,
    format_duration,
    format_percent,
    format_ratio,
    format_throughput,
    format_tick,
    format_time,
)


@pytest.mark.parametrize("seconds,text", [
    (1.5e-6, "1.50 us"), (999.7e-6, "1.00 ms"), (99.99e-6, "100 us"), (0.0123, "12.3 ms"), (2.5, "2.50 s"),
    (452e-9, "452 ns"), (1500.0, "1500 s"), (1e-7, "100 ns"),
])
def test_table_times_keep_three_digits(seconds, text):
    assert format_time(seconds) == text


def test_a_zero_time_is_zero():  # profile's own time of a function that takes none
    assert format_time(0) == "0"


@pytest.mark.parametrize("seconds,text", [(1e-6, "1 us"), (2e-3, "2 ms"), (5e-9, "5 ns"), (10.0, "10 s")])
def test_plot_ticks_drop_trailing_zeros(seconds, text):
    assert format_tick(seconds) == text


@pytest.mark.parametrize("fraction,text", [
    (0.125, "+12.5%"), (-0.03, "-3.0%"), (0, "+0.0%"), (-1, "-100%"), (-2, "-100%"), (float("inf"), "+inf"),
])
def test_changes_are_signed_percentages(fraction, text):
    assert format_change(fraction) == text


def test_ratios_bytes_throughput_percent_and_durations():
    assert [format_ratio(r) for r in (0.001, 0.25, 1.0, 2.34, 259.4, 1234.0)] == [
        "<0.01x", "0.25x", "1.0x", "2.3x", "259x", "1,234x"]
    assert [format_bytes(b) for b in (12, 4000, 400_123, 4_000_000)] == ["12 B", "4.00 KB", "400 KB", "4.00 MB"]
    assert [format_count(c) for c in (9, 3000, 30_000, 3_000_000)] == ["9", "3,000", "30.0K", "3.00M"]
    assert [format_throughput(t) for t in (3.456, 99.6, 12_345.6)] == ["3.46 MB/s", "100 MB/s", "12,346 MB/s"]
    assert [format_percent(f) for f in (0.025, 0.13)] == ["2.5%", "13%"]
    assert [format_duration(s) for s in (0.4, 40.2, 150)] == ["0 s", "40 s", "2.5 min"]
