"""The shared options' checks: a count or a time that is not one is refused as it is parsed, in one line
that names the option, what was given and what is accepted (commands/options.py whole, positive)."""

import pytest

from tests.helpers import assert_one_line_usage_error, in_process


@pytest.mark.parametrize("argv, message", [
    (["compare", "HEAD", "--cpus", "0"], "argument --cpus: give 1 or more, not 0"),
    (["compare", "HEAD", "--rounds", "two"], "argument --rounds: give 1 or more, not two (6 or more for a verdict)"),
    (["compare", "HEAD", "--max-rounds", "4"], "argument --max-rounds: give 8 or more, not 4 (the first look)"),
    (["compare", "HEAD", "--max-time", "-1"], "argument --max-time: give a positive number of minutes, not -1"),
    (["compare", "HEAD", "--min-time", "nan"], "argument --min-time: give a positive number of seconds, not nan"),
    (["sweep", "a==1", "a==2", "--benchmark-budget", "0"],
     "argument --benchmark-budget: give a positive number of seconds, not 0"),
    (["bisect", "a", "1", "2", "--explain-top", "0"], "argument --explain-top: give 1 or more, not 0"),
    (["-l", "1.5"], "argument -l/--loops: give 1 or more, not 1.5"),
    (["check-harness", "--processes", "0"], "argument --processes: give 1 or more, not 0"),
    (["bisect", "a", "1", "2", "--max-sessions", "0"], "argument --max-sessions: give 1 or more, not 0"),
    (["memory", "run.json", "--calls", "0"], "argument --calls: give 1 or more, not 0"),
    (["profile", "msgpack/packb/float32/1K", "--top", "0"], "argument --top: give 1 or more, not 0"),
    (["profile", "msgpack/packb/float32/1K", "--seconds", "0"],
     "argument --seconds: give a positive number of seconds, not 0"),
])
def test_a_count_or_a_time_that_is_not_one_is_refused_as_it_is_parsed(argv, message):
    assert assert_one_line_usage_error(in_process(*argv)) == f"serialbench: error: {message}"
