"""The own-cases guide's example (docs/guides/own-cases.md) works as written: it runs beside the built-in
cases and its dump is the body it says."""

import re

import pyperf
import pytest

from tests.helpers import PROJECT_ROOT, SMALLEST, serialbench

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)


def write_example(tmp_path):
    guide = (PROJECT_ROOT / "docs" / "guides" / "own-cases.md").read_text()
    code = re.search(r"```python\n(# mycases/npy.py.*?)```", guide, re.S).group(1)
    cases = tmp_path / "mycases"
    cases.mkdir()
    (cases / "npy.py").write_text(code)
    return cases


def test_the_example_case_module_runs_beside_the_built_in_cases(tmp_path):
    cases = write_example(tmp_path)
    out = tmp_path / "run.json"
    done = serialbench(*SMALLEST, "--cases", cases, "-b", "npy/*/*/1K", "-b", "baseline/tobytes/float32/1K", "-o", out)
    assert done.returncode == 0, done.stderr.decode()
    names = pyperf.BenchmarkSuite.load(str(out)).get_benchmark_names()
    assert names == ["baseline/tobytes/float32/1K", "npy/save/float32/1K"]


def test_the_example_dump_is_a_npy_file(tmp_path):
    cases = write_example(tmp_path)
    body = serialbench("dump", "npy/save/float32/1K", "--cases", cases, check=True).stdout
    assert body.startswith(b"\x93NUMPY")
