"""Odd environments: broken case modules, cases whose output does not round-trip, oversize inputs.

The runner's guard (serialbench/catalog/registry.py `prepare`) decodes each case's output once before
timing it; a case module that does not import is skipped by discovery. In both, the rest of the
run goes on and writes its results.
"""

import os
import textwrap

import pyperf
import pytest

from serialbench.catalog import inputs
from tests.helpers import PROJECT_ROOT, SMALLEST, serialbench

GOOD = '''
import numpy as np

from serialbench.case import Case


def raw(payload):
    value = payload.tensors[0].value
    return value.tobytes


def decode_raw(wire, payload):
    like = payload.tensors[0].value
    return [np.frombuffer(wire, dtype=like.dtype).reshape(like.shape)]


def half(payload):  # fast because it drops half the bits: the guard must not time it
    value = payload.tensors[0].value
    return lambda: value.astype(np.float16).tobytes()


def decode_half(wire, payload):
    return [np.frombuffer(wire, dtype=np.float16).reshape(payload.tensors[0].value.shape)]


CASES = [
    Case("sturdy", "raw", ("float32",), raw, reference_decoder=decode_raw),
    Case("sturdy", "half", ("float32",), half, reference_decoder=decode_half),
]
'''
BROKEN_IMPORT = "import no_such_serializer_library\n"
BROKEN_SYNTAX = "CASES = [\n"
NO_CASES = "CASE = []\n"


@pytest.fixture
def case_dir(tmp_path):
    directory = tmp_path / "cases"
    directory.mkdir()
    (directory / "sturdy.py").write_text(textwrap.dedent(GOOD))
    (directory / "broken_import.py").write_text(BROKEN_IMPORT)
    (directory / "broken_syntax.py").write_text(BROKEN_SYNTAX)
    (directory / "no_cases.py").write_text(NO_CASES)
    return directory


def assert_broken_modules_reported(stderr: str, case_dir) -> None:
    assert (f"case module skipped: {case_dir / 'broken_import.py'}: ModuleNotFoundError: "
            "No module named 'no_such_serializer_library'") in stderr
    assert f"case module skipped: {case_dir / 'broken_syntax.py'}: SyntaxError: " in stderr
    assert f"case module skipped: {case_dir / 'no_cases.py'}: has no CASES list" in stderr
    assert "Traceback" not in stderr


@pytest.mark.slow
def test_broken_modules_are_reported_the_guard_refuses_a_lossy_case_and_the_rest_is_timed(case_dir, tmp_path):
    out = tmp_path / "run.json"
    done = serialbench(*SMALLEST, "--cases", case_dir, "-b", "sturdy/*/float32/1K",
                       "-b", "baseline/tobytes/float32/1K", "-o", out)
    stderr = done.stderr.decode()
    assert_broken_modules_reported(stderr, case_dir)
    assert ("sturdy/half/float32/1K: output does not decode to its input: input: float32 narrowed to float16; "
            "values changed (") in stderr
    assert "1 of 3 benchmarks not timed: sturdy/half/float32/1K" in stderr
    assert done.returncode == 1
    names = pyperf.BenchmarkSuite.load(str(out)).get_benchmark_names()
    assert names == ["baseline/tobytes/float32/1K", "sturdy/raw/float32/1K"]


@pytest.mark.slow
def test_a_run_with_only_a_broken_module_beside_it_succeeds(case_dir, tmp_path):
    out = tmp_path / "run.json"
    done = serialbench(*SMALLEST, "--cases", case_dir, "-b", "sturdy/raw/float32/1K", "-o", out)
    assert_broken_modules_reported(done.stderr.decode(), case_dir)
    assert done.returncode == 0
    assert pyperf.BenchmarkSuite.load(str(out)).get_benchmark_names() == [
        "baseline/tobytes/float32/1K", "sturdy/raw/float32/1K"]


@pytest.mark.slow
def test_list_and_verify_report_broken_modules_and_go_on(case_dir):
    listed = serialbench("list", "--cases", case_dir, "-b", "sturdy/*", "--tier", "1K")
    assert listed.returncode == 0
    assert listed.stdout.decode().split() == ["sturdy/raw/float32/1K", "sturdy/half/float32/1K"]
    assert_broken_modules_reported(listed.stderr.decode(), case_dir)
    verified = serialbench("verify", "--cases", case_dir, "-b", "sturdy/raw", "--no-edge")
    assert verified.returncode == 0
    assert verified.stdout.decode().splitlines()[1].split() == ["sturdy/raw", "float32/1K", "lossless"]
    assert_broken_modules_reported(verified.stderr.decode(), case_dir)


def test_an_oversize_tier_is_refused_before_anything_is_allocated(monkeypatch):
    built = []
    kind = inputs.INPUT_KINDS["float32"]
    monkeypatch.setitem(inputs.INPUT_KINDS, "float32",
                        inputs.InputKind(kind.name, lambda n: built.append(n), kind.bytes_per_unit))
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 3_999_999)
    inputs.make_payload.cache_clear()
    try:
        with pytest.raises(MemoryError, match=r"float32/1M needs 4,000,000 bytes of input, over the limit of "
                                              r"3,999,999 .*choose a smaller --tier"):
            inputs.make_payload("float32", "1M")
    finally:
        inputs.make_payload.cache_clear()
    assert built == []


@pytest.mark.slow
def test_an_oversize_tier_is_reported_by_dump_verify_and_not_timed_by_run(tmp_path):
    env = {**os.environ, "SERIALBENCH_MAX_INPUT_BYTES": "1000"}
    name = "baseline/tobytes/float32/1K"
    message = "MemoryError: float32/1K needs 4,000 bytes of input, over the limit of 1,000"
    dumped = serialbench_env(env, "dump", name, "-o", tmp_path / "body.bin")
    assert dumped.returncode == 1 and message in dumped.stderr.decode()
    verified = serialbench_env(env, "verify", "-b", name, "--no-edge")
    assert verified.returncode == 1
    assert "rejected: input not built: float32/1K needs 4,000 bytes" in verified.stdout.decode()
    out = tmp_path / "run.json"
    ran = serialbench_env(env, *SMALLEST, "--inherit-environ", "SERIALBENCH_MAX_INPUT_BYTES",
                          "-b", name, "-b", "baseline/tobytes/png/1K", "-o", out)
    assert ran.returncode == 1
    assert f"{name}: {message}" in ran.stderr.decode()
    assert pyperf.BenchmarkSuite.load(str(out)).get_benchmark_names() == ["baseline/tobytes/png/1K"]


def serialbench_env(env, *args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "serialbench", *map(str, args)], cwd=PROJECT_ROOT,
                          capture_output=True, timeout=600, env=env)


# Bad result files --------------------------------------------------------------------------------
# Every command that reads result files (through serialbench/results/files.py) answers a file it cannot
# use with one line and exit status 2, never a traceback. A command not in this version is skipped.

def command_line(command: str) -> list[str] | None:
    """How to run a command: `python -m serialbench COMMAND`; None when this version lacks it."""
    import importlib.util

    from serialbench.__main__ import COMMANDS

    if command in COMMANDS and importlib.util.find_spec("serialbench.commands." + COMMANDS[command][0]) is not None:
        return ["-m", "serialbench", command]
    return None


@pytest.fixture(scope="module")
def good_results(tmp_path_factory):
    path = tmp_path_factory.mktemp("results") / "good.json"
    done = serialbench(*SMALLEST, "-b", "baseline/tobytes/float32/1K", "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    return path


def bad_files(directory, good) -> dict:
    import json

    text = good.read_text()
    document = json.loads(text)
    files = {}

    def write(name, content):
        files[name] = directory / f"{name}.json"
        files[name].write_text(content)

    write("truncated", text[: len(text) // 2])
    write("empty", "")
    write("not-json", "benchmark,median\nbaseline,1.0\n")
    write("other-json", json.dumps({"results": [1, 2, 3]}))
    foreign = json.loads(text)  # a pyperf file from another program: no serialbench metadata
    for bench in foreign["benchmarks"]:
        bench["metadata"] = {"name": "timeit", "unit": "second"}
    foreign["metadata"] = {"name": "timeit"}
    write("foreign-pyperf", json.dumps(foreign))
    older = json.loads(text)  # written before payload_bytes and input_bytes were recorded
    for bench in older["benchmarks"]:
        for key in ("payload_bytes", "input_bytes"):
            bench.get("metadata", {}).pop(key, None)
            for run in bench["runs"]:
                run.get("metadata", {}).pop(key, None)
    older["metadata"] = {k: v for k, v in document["metadata"].items() if k not in ("payload_bytes", "input_bytes")}
    write("older-serialbench", json.dumps(older))
    newer = json.loads(text)
    newer["metadata"]["serialbench_results_format"] = 99
    write("newer-serialbench", json.dumps(newer))
    files["missing"] = directory / "missing.json"
    files["directory"] = directory
    return files


EXPECTED = {"truncated": "truncated", "foreign-pyperf": "not written by serialbench",
            "older-serialbench": "older serialbench", "newer-serialbench": "newer serialbench",
            "missing": "no such file"}
# `compare` takes git revisions and writes its own files: it reads no file a user hands it.
READERS = {
    "report": lambda bad, good: [[bad], [good, bad], [bad, good]],
    "memory": lambda bad, good: [[bad]],
}


@pytest.mark.slow
@pytest.mark.parametrize("command", list(READERS))
def test_every_command_reading_results_gives_one_line_for_a_bad_file(command, good_results, tmp_path):
    import subprocess
    import sys

    from tests.helpers import assert_one_line_usage_error

    prefix = command_line(command)
    if prefix is None:
        pytest.skip(f"no {command} command in this version")
    for kind, bad in bad_files(tmp_path, good_results).items():
        for argv in READERS[command](bad, good_results):
            done = subprocess.run([sys.executable, *prefix, *map(str, argv)], cwd=PROJECT_ROOT,
                                  capture_output=True, timeout=600)
            message = assert_one_line_usage_error(done)
            assert str(bad) in message, (kind, argv, message)
            assert EXPECTED.get(kind, "") in message, (kind, argv, message)
