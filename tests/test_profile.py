"""`profile NAME`: the op runs under cProfile and the functions that take its time come first."""

import textwrap

import pytest

from serialbench.measure.profiling import function_label
from tests.helpers import assert_one_line_usage_error, serialbench

HOT_CASE = '''
from serialbench.case import Case

def expensive_python_loop(values):
    total = 0
    for value in values:
        total += value
    return total

def cheap_helper():
    return b"x"

def setup(payload):
    values = list(range(20_000))
    def op():
        expensive_python_loop(values)
        return cheap_helper()
    return op

CASES = [Case("hot", "loop", ("float32",), setup)]
'''


@pytest.mark.slow
def test_the_function_that_takes_the_time_is_at_the_top(tmp_path):
    (tmp_path / "hot.py").write_text(textwrap.dedent(HOT_CASE))
    done = serialbench("profile", "hot/loop/float32/1K", "--cases", tmp_path, "--top", "3", "--seconds", "0.3")
    stdout = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    lines = stdout.splitlines()
    assert lines[0].startswith("hot/loop/float32/1K: ") and "per op without the profiler" in lines[0]
    assert lines[1] == "top 3 of 3 functions by own time, per op:"
    assert lines[3].split()[-2] == "expensive_python_loop"
    assert lines[3].split()[-3] == "1"  # calls per op


@pytest.mark.slow
def test_a_builtin_op_is_named_as_python_names_it():
    done = serialbench("profile", "baseline/tobytes/float32/100K", "--top", "1", "--seconds", "0.2")
    assert done.returncode == 0, done.stderr.decode()
    assert "method 'tobytes' of 'numpy.ndarray' objects" in done.stdout.decode().splitlines()[-1]


@pytest.mark.slow
def test_a_pattern_is_not_a_name():
    assert "one full name" in assert_one_line_usage_error(serialbench("profile", "baseline/*"))


@pytest.mark.slow
def test_the_raw_profile_is_saved_and_never_overwritten(tmp_path):
    out = tmp_path / "p.pstats"
    args = ["profile", "baseline/tobytes/float32/1K", "--seconds", "0.1", "-o", out]
    assert serialbench(*args).returncode == 0 and out.stat().st_size > 0
    assert_one_line_usage_error(serialbench(*args))


def test_library_paths_are_shown_from_site_packages():
    label = function_label("/venv/lib/python3.11/site-packages/tritonclient/http/_utils.py", 90, "f")
    assert label == "f (tritonclient/http/_utils.py:90)"
