"""budget: times serialbench's own commands; bad options are one-line errors."""

import pytest

from tests.helpers import assert_one_line_usage_error, serialbench

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)


def test_budget_times_one_format_and_reports_it_against_the_target():
    done = serialbench("budget", "--skip", "suite,compare", "--format", "baseline")
    assert done.returncode == 0, done.stderr.decode()
    stdout = done.stdout.decode()
    (row,) = [line for line in stdout.splitlines() if line.startswith("baseline --fast")]
    assert row.split()[2] == "16"  # benchmarks of the format in the default run
    assert row.endswith("within") or row.endswith("OVER")
    assert "< 2.0 min" in row


def test_an_unknown_step_or_format_is_a_one_line_error():
    assert "accepted steps" in assert_one_line_usage_error(serialbench("budget", "--skip", "everything"))
    assert "formats:" in assert_one_line_usage_error(serialbench("budget", "--format", "nope", "--skip", "suite"))
