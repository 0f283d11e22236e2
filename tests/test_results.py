"""The one loader of result files: what it accepts (partial, appended) and what it refuses, in one line."""

import gzip
import json
import textwrap

import pyperf
import pytest

from serialbench.catalog.discovery import source_root
from serialbench.catalog.inputs import tier_order
from serialbench.core.errors import UsageError
from serialbench.core.gitinfo import commit_and_dirty
from serialbench.results.files import RESULTS_FORMAT, load, memory_path_for
from tests.helpers import SMALLEST, assert_one_line_usage_error, serialbench

SELECTION = ["-b", "baseline/*/float32/1K", "-b", "triton-binary/join/int32x3/1K"]


@pytest.fixture(scope="module")
def result_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("results") / "run.json"
    done = serialbench(*SMALLEST, *SELECTION, "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    return path


def edited(source, target, edit):
    data = json.loads(source.read_text())
    edit(data)
    target.write_text(json.dumps(data))
    return target


@pytest.mark.slow
def test_a_real_run_loads_with_its_metadata(result_file):
    results = load(result_file)
    assert [r.name for r in results.results] == [  # with the floor of int32x3 the run added
        "baseline/tobytes/float32/1K", "baseline/tobytes/int32x3/1K", "baseline/noop/float32/1K",
        "triton-binary/join/int32x3/1K"]
    join = results.get("triton-binary/join/int32x3/1K")
    assert (join.format, join.impl, join.input, join.tier, join.direction) == (
        "triton-binary", "join", "int32x3", "1K", "encode")
    assert join.input_bytes == 3 * 4 * 1000 and join.payload_bytes > join.input_bytes
    assert len(join.values) == 1 and join.median > 0
    assert results.floor(results.get("baseline/noop/float32/1K")).name == "baseline/tobytes/float32/1K"
    # The commit of the serialbench that ran: a source tree's 40 hex digits, or "unknown" installed.
    root = source_root()
    assert results.commits == [commit_and_dirty(root)[0] if root else "unknown"]
    assert root is None or len(results.commits[0]) == 40
    assert "numpy" in results.library_versions()


@pytest.mark.slow
def test_runs_appended_to_a_file_are_all_read(tmp_path):
    path = tmp_path / "appended.json"
    for _ in range(2):
        done = serialbench(*SMALLEST, "-b", "baseline/tobytes/float32/1K", "--append", path)
        assert done.returncode == 0, done.stderr.decode()
    assert len(load(path).get("baseline/tobytes/float32/1K").values) == 2
    assert serialbench("report", path).returncode == 0


@pytest.mark.slow
def test_a_partial_run_loads_what_was_timed(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "halfway.py").write_text(textwrap.dedent('''
        from serialbench.case import Case

        def broken(payload):
            raise RuntimeError("never prepared")

        CASES = [Case("halfway", "broken", ("float32",), broken)]
    '''))
    path = tmp_path / "partial.json"
    done = serialbench(*SMALLEST, "--cases", cases, "-b", "halfway/*/float32/1K", "-b", "baseline/tobytes/float32/1K",
                       "-o", path)
    assert done.returncode == 1  # one benchmark not timed
    assert [r.name for r in load(path).results] == ["baseline/tobytes/float32/1K"]


@pytest.mark.slow
def test_a_benchmark_whose_runs_only_warmed_up_has_no_median(result_file, tmp_path):
    def drop_values(data):
        for run in data["benchmarks"][0]["runs"]:
            run.pop("values", None)
            run["warmups"] = [[1, 1e-6]]
    results = load(edited(result_file, tmp_path / "warmups.json", drop_values))
    assert results.results[0].values == () and results.results[0].median is None
    stdout = serialbench("report", tmp_path / "warmups.json").stdout.decode()
    assert "not timed" in stdout


@pytest.mark.slow
def test_gzip_result_files_load(result_file, tmp_path):
    path = tmp_path / "run.json.gz"
    with gzip.open(path, "wt") as out:
        out.write(result_file.read_text())
    assert len(load(path).results) == 4
    assert memory_path_for(path).name == "run.memory.json"


@pytest.mark.slow
@pytest.mark.parametrize("problem, expected", [
    ("missing", "no such file"),
    ("directory", "is a directory"),
    ("truncated", "truncated or malformed JSON"),
    ("text", r"not a serialbench result \(not pyperf JSON"),
    ("binary", "cannot be read as pyperf JSON"),
    ("json list", "not a pyperf result file"),
    ("other pyperf", "not written by serialbench"),
    ("older serialbench", "older serialbench"),
    ("newer serialbench", "newer serialbench"),
    ("renamed benchmark", "does not match its metadata"),
    ("appended from another version", "disagree on payload_bytes"),
])
def test_refused_files_raise_one_usage_error(problem, expected, result_file, tmp_path):
    path = tmp_path / "bad.json"
    if problem == "directory":
        path.mkdir()
    elif problem == "truncated":
        path.write_text(result_file.read_text()[:-200])
    elif problem == "text":
        path.write_text("pyperf results go here\n")
    elif problem == "binary":
        path.write_bytes(b"\x89PNG\r\n\x1a\n")
    elif problem == "json list":
        path.write_text("[]")
    elif problem == "other pyperf":
        run = pyperf.Run([0.5, 0.6], metadata={"name": "bm_float"}, collect_metadata=False)
        pyperf.Benchmark([run]).dump(str(path))
    elif problem == "older serialbench":
        def strip(data):
            data["metadata"].pop("payload_bytes", None)
            for bench in data["benchmarks"]:
                bench["metadata"].pop("payload_bytes", None)
        edited(result_file, path, strip)
    elif problem == "newer serialbench":
        edited(result_file, path, lambda data: data["metadata"].update(serialbench_results_format=RESULTS_FORMAT + 1))
    elif problem == "renamed benchmark":
        edited(result_file, path, lambda data: data["benchmarks"][0]["metadata"].update(name="x/y/float32/1K"))
    elif problem == "appended from another version":
        def disagree(data):
            bench = data["benchmarks"][0]
            payload = bench["metadata"].pop("payload_bytes", None) or data["metadata"].pop("payload_bytes")
            bench["runs"].append(json.loads(json.dumps(bench["runs"][0])))
            bench["runs"][0].setdefault("metadata", {})["payload_bytes"] = payload
            bench["runs"][1].setdefault("metadata", {})["payload_bytes"] = payload + 1
        edited(result_file, path, disagree)
    with pytest.raises(UsageError, match=expected) as caught:
        load(path)
    assert "\n" not in str(caught.value)


@pytest.mark.slow
def test_the_command_line_prints_the_loader_error_as_one_line(tmp_path):
    assert "no such file" in assert_one_line_usage_error(serialbench("report", tmp_path / "absent.json"))


@pytest.mark.slow
def test_a_malformed_memory_companion_is_refused(result_file, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(result_file.read_text())
    memory_path_for(path).write_text('{"serialbench_memory": 1, "benchmarks": {"x": {"peak_bytes": "a lot"}}}')
    with pytest.raises(UsageError, match="lacks integer peak_bytes"):
        load(path)


def test_tiers_sort_by_size_including_ones_this_version_does_not_know():
    assert tier_order(["1M", "10K", "1K", "100K", "10M"]) == ["1K", "10K", "100K", "1M", "10M"]
