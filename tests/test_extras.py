"""The install's extras: what a plain install leaves out, and what the program says when a case or an
option needs one of them (one line that names the extra; exit 2 when nothing else is left to do).

.ci/run installs the plain package into a venv of its own and runs it without TensorFlow; here the
test environment has every extra, so a missing library is a user's case module that requires one.
"""

import sys
import tomllib

import pytest

from serialbench.catalog.discovery import BUILTIN_CASES_DIR, discover
from tests.helpers import PROJECT_ROOT, in_process

PROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
EXTRAS = PROJECT["optional-dependencies"]

NEEDS_EXTRAS = '''
from serialbench.case import Case

def setup(payload):
    return lambda: b""

CASES = [Case("needs", "one", ("float32",), setup, requires=("no_such_module_xyz",),
              install="pip install 'serialbench[xyz]'"),
         Case("needs", "two", ("float32",), setup, requires=("no_such_module_xyz",),
              install="pip install 'serialbench[xyz]'"),
         Case("bare", "three", ("float32",), setup, requires=("another_missing_module",))]
'''


def _names(requirements):
    return {requirement.split(";")[0].split("[")[0].split(">")[0].split("=")[0].strip().lower()
            for requirement in requirements}


@pytest.fixture
def needs(tmp_path):
    (tmp_path / "needs.py").write_text(NEEDS_EXTRAS)
    return tmp_path


def test_a_plain_install_brings_no_tensorflow_and_no_optional_tool():
    plain = _names(PROJECT["dependencies"])
    assert not plain & {"tensorflow", "tensorflow-serving-api", "kserve", "memray", "matplotlib"}
    assert {"numpy", "protobuf", "tritonclient", "msgpack", "orjson", "pyperf", "scipy"} <= plain
    assert _names(EXTRAS["tfserving"]) == {"tensorflow-serving-api"}
    assert _names(EXTRAS["memory"]) == {"memray"} and _names(EXTRAS["plot"]) == {"matplotlib"}


def test_all_brings_every_extra_and_the_test_extra_brings_all():
    assert EXTRAS["all"] == ["serialbench[tfserving,servers,memory,plot]"]
    assert "serialbench[all]" in EXTRAS["test"] and "serialbench[docs]" in EXTRAS["test"]


def test_every_case_that_imports_tensorflow_requires_it_and_names_the_tfserving_extra():
    cases = [case for case in discover([BUILTIN_CASES_DIR], print) if case.format == "tfserving-grpc"]
    assert len(cases) > 5
    for case in cases:
        assert "tensorflow" in case.requires and case.install == "pip install 'serialbench[tfserving]'", case.label
    others = [case for case in discover([BUILTIN_CASES_DIR], print) if case.format != "tfserving-grpc"]
    assert not any("tensorflow" in "".join(case.requires) for case in others)


def test_a_selection_with_absent_cases_lists_the_rest_and_says_once_what_brings_them(needs):
    done = in_process("list", "--cases", needs, "-b", "needs/*", "-b", "bare/*", "-b", "msgpack/packb/float32/1K")
    assert done.returncode == 0, done.stderr
    assert "msgpack/packb/float32/1K" in done.stdout.split() and "needs/one/float32/1K" not in done.stdout
    assert [line for line in done.stderr.splitlines() if "floor" not in line] == [
        "left out, a library not installed: needs/* (module 'no_such_module_xyz', pip install 'serialbench[xyz]' "
        "brings it); bare/* (module 'another_missing_module')"]


def test_a_selection_made_only_of_absent_cases_is_one_line_naming_the_extra(needs):
    done = in_process("--fast", "--cases", needs, "-b", "needs/one", "-o", needs / "never.json")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "serialbench: error: -b 'needs/one': every case selected needs a library that is not installed: needs/one "
        "(module 'no_such_module_xyz', pip install 'serialbench[xyz]' brings it)"]
    assert not (needs / "never.json").exists()


@pytest.mark.parametrize("command", [["report", "RESULT", "--plot", "PLOT.png"], ["sweep", "msgpack", "--plot",
                                                                                 "PLOT.png"]])
def test_plot_without_matplotlib_is_one_line_naming_the_plot_extra(command, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # find_spec then finds no matplotlib
    result = tmp_path / "result.json"
    result.write_text("{}")
    args = [str(result) if word == "RESULT" else str(tmp_path / word) if word == "PLOT.png" else word
            for word in command]
    done = in_process(*args)
    assert (done.returncode, done.stderr) == (
        2, "serialbench: error: --plot: matplotlib is not installed; pip install 'serialbench[plot]' brings it\n")
    assert not (tmp_path / "PLOT.png").exists()


def test_counting_memory_without_memray_names_the_memory_extra(monkeypatch):
    from serialbench.inside import allocations

    monkeypatch.setitem(sys.modules, "memray", None)  # `import memray` then raises ImportError
    assert allocations.available() == "memray is not installed (pip install 'serialbench[memory]')"
