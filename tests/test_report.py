"""`report` on real result files: the Markdown tables, the plot, the errors, and BASE vs NEW."""

import json
import re
import subprocess
import sys
import textwrap

import pyperf
import pytest
from PIL import Image

from serialbench.core.formatting import format_ratio, format_time
from serialbench.results.files import load
from serialbench.verdicts.file_changes import changes_between as compare
from tests.helpers import PROJECT_ROOT, SMALLEST, assert_one_line_usage_error, in_process, serialbench

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)

SELECTION = ["-b", "baseline/tobytes", "-b", "triton-binary/join", "-b", "triton-binary/struct-pack",
             "--input", "float32,png", "--tier", "1K,10K"]
ROWS = ["baseline/tobytes", "triton-binary/struct-pack", "triton-binary/join"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "run.json"
    done = serialbench(*SMALLEST, *SELECTION, "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    return path


@pytest.fixture(scope="module")
def report_outputs(small_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("outputs")
    done = serialbench("report", small_run, "--markdown", out / "r.md", "--plot", out / "r.png")
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode(), (out / "r.md").read_text(), out / "r.png"


def markdown_table(markdown: str, title: str) -> list[list[str]]:
    """The rows (cells split on |) of the table under `### title`, header first."""
    section = markdown.split(f"### {title}\n", 1)[1].split("###", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines if "---" not in line]


def test_markdown_has_one_table_per_input_kind_with_a_row_per_impl_and_a_column_per_tier(report_outputs):
    _, markdown, _ = report_outputs
    for kind in ("float32", "png"):
        table = markdown_table(markdown, f"{kind}, encode: median time per op")
        assert table[0] == ["FORMAT/IMPL", "1K", "10K"]
        assert [row[0] for row in table[1:]] == ROWS
        for row in table[1:]:
            for cell in row[1:]:
                assert re.search(r"\d (ns|us|ms|s)\b", cell), cell
                assert "MB/s" in cell and "size " in cell


def test_each_cell_gives_the_multiple_of_the_memcpy_floor(report_outputs, small_run):
    _, markdown, _ = report_outputs
    results = load(small_run)
    join = results.get("triton-binary/join/float32/10K")
    floor = results.get("baseline/tobytes/float32/10K")
    cell = markdown_table(markdown, "float32, encode: median time per op")[3][2].replace("**", "").lstrip("= ")
    # The multiple is the ratio to the floor's values alternated with join's in the same process.
    (run,) = join.benchmark.get_runs()
    multiple = format_ratio(run.get_metadata()["serialbench_floor_ratio"])
    assert cell.startswith(f"{format_time(join.median)} · {multiple}")
    assert markdown_table(markdown, "float32, encode: median time per op")[1][2].startswith(
        f"{format_time(floor.median)} · 1.0x")


def test_one_process_a_benchmark_separates_no_implementation_from_the_next(report_outputs, small_run):
    # A star needs a paired test over six rounds or more (tests/test_rankings.py); with one, both of a
    # format's implementations are a tie at every tier.
    _, markdown, _ = report_outputs
    table = markdown_table(markdown, "float32, encode: median time per op")
    for column in (1, 2):
        assert not any(row[column].startswith("**") for row in table[1:])
        assert [row[0] for row in table[1:] if row[column].startswith("= ")] == ROWS[1:]


def test_terminal_rendering_shows_the_same_tables(report_outputs):
    stdout, _, _ = report_outputs
    assert "float32, encode: median time per op" in stdout and "png, encode: median time per op" in stdout
    assert re.search(r"^FORMAT/IMPL +1K +10K$", stdout, re.MULTILINE)
    assert "Traceback" not in stdout


def test_plot_is_a_png_of_a_size_a_laptop_shows(report_outputs):
    _, _, png = report_outputs
    with Image.open(png) as image:
        assert image.format == "PNG"
        width, height = image.size
    assert 800 <= width <= 3000 and 300 <= height <= 3000


def test_existing_outputs_are_never_overwritten(small_run, tmp_path):
    markdown = tmp_path / "r.md"
    markdown.write_text("keep me")
    line = assert_one_line_usage_error(serialbench("report", small_run, "--markdown", markdown))
    assert "never overwritten" in line and markdown.read_text() == "keep me"
    assert serialbench("report", small_run, "--markdown", tmp_path / "new.md").returncode == 0
    assert "| FORMAT/IMPL |" in (tmp_path / "new.md").read_text()


def test_filters_narrow_the_report(small_run):
    stdout = serialbench("report", small_run, "--input", "png", "-b", "*/join").stdout.decode()
    assert "png, encode" in stdout and "float32, encode" not in stdout
    assert "triton-binary/join" in stdout and "struct-pack" not in stdout


@pytest.mark.parametrize("problem", ["truncated", "not serialbench", "missing", "empty object"])
def test_unreadable_files_are_one_line_and_exit_2(problem, small_run, tmp_path):
    path = tmp_path / "bad.json"
    if problem == "truncated":
        text = small_run.read_text()
        path.write_text(text[: len(text) // 2])
    elif problem == "not serialbench":
        run = pyperf.Run([0.001, 0.0011], metadata={"name": "bm_other"}, collect_metadata=False)
        pyperf.Benchmark([run]).dump(str(path))
    elif problem == "empty object":
        path.write_text("{}")
    line = assert_one_line_usage_error(serialbench("report", path))
    assert str(path) in line


def test_a_file_written_by_an_older_serialbench_is_refused(small_run, tmp_path):
    data = json.loads(small_run.read_text())
    for bench in data["benchmarks"]:
        bench["metadata"].pop("serialbench_direction", None)
    data["metadata"].pop("serialbench_direction", None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    assert "older serialbench" in assert_one_line_usage_error(serialbench("report", old))


# ---------------------------------------------------------------- BASE vs NEW

SLEEP_CASES = '''
import time

from serialbench.case import Case

def spinner(seconds):
    # CPU work for `seconds` of the thread's CPU time, the clock ops are timed on: a sleep would
    # cost nothing on it, and a CPU-bound op keeps its cost when the other run loads the machine.
    def setup(payload):
        body = payload.tensors[0].value.tobytes()
        def op():
            end = time.thread_time() + seconds
            while time.thread_time() < end:
                pass
            return body
        return op
    return setup

CASES = [
    Case("snooze", "steady", ("float32",), spinner(200e-6)),
    Case("snooze", "slowed", ("float32",), spinner({slowed_s})),
]
'''
# Six processes a side: with three, the exact rank test cannot reach 5% (its smallest p is 0.1).
SLEEP_SETTINGS = ["-p", "6", "-n", "3", "-w", "1", "-l", "1", "--tier", "1K", "-b", "snooze/*/float32"]


def start_sleep_run(directory, slowed_s):
    cases = directory / "cases"
    cases.mkdir()
    (cases / "snooze.py").write_text(textwrap.dedent(SLEEP_CASES.format(slowed_s=slowed_s)))
    out = directory / "run.json"
    command = [sys.executable, "-m", "serialbench", "--quiet", *SLEEP_SETTINGS, "--cases", str(cases), "-o", str(out)]
    return out, subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def base_and_new(tmp_path_factory):
    # BASE and NEW run at the same time, so that whatever else loads the machine loads both alike.
    runs = [start_sleep_run(tmp_path_factory.mktemp("base"), 200e-6),
            start_sleep_run(tmp_path_factory.mktemp("new"), 800e-6)]  # the deliberate slowdown
    for _, process in runs:
        _, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr.decode()
    return runs[0][0], runs[1][0]


def test_compare_flags_the_slowed_benchmark_and_not_the_unchanged_one(base_and_new):
    base, new = base_and_new
    found = compare(load(base), load(new))
    changes = {change.name: change for change in found.changes}
    slowed, steady = changes["snooze/slowed/float32/1K"], changes["snooze/steady/float32/1K"]
    assert not found.paired  # two independent runs
    assert slowed.verdict == "slower" and slowed.ratio > 1.3
    # Not "no change" exactly: three runs of a sleep on a loaded machine may not prove equivalence.
    assert steady.verdict in ("no change", "too noisy to tell")


def test_two_file_report_shows_the_change_in_the_format_and_tier_layout(base_and_new, tmp_path):
    base, new = base_and_new
    done = serialbench("report", base, new, "-b", "snooze/*", "--markdown", tmp_path / "diff.md")
    assert done.returncode == 0, done.stderr.decode()
    table = markdown_table((tmp_path / "diff.md").read_text(), "float32, encode: BASE -> NEW, median time per op")
    cells = {row[0]: row[1] for row in table[1:]}
    assert table[0] == ["FORMAT/IMPL", "1K"]
    # two runs apart: each judged by its multiple of the floor where both runs recorded one (verdicts/apart.py)
    assert re.search(r"\*\*.* -> .*\*\*<br>(.*x -> .*x<br>)?\d\.\d\dx slower", cells["snooze/slowed"])
    assert re.search(r"(no change|too noisy to tell) [+-]\d", cells["snooze/steady"])
    assert "**" not in cells["snooze/steady"]
    assert "slower in NEW (1): snooze/slowed/float32/1K" in done.stdout.decode()


def test_report_of_a_file_that_never_was_a_result_says_so_and_gives_no_advice_to_re_run(tmp_path):
    """`report README.md` said "truncated or malformed JSON ...; re-run the benchmarks to write it again"."""
    readme = tmp_path / "README.md"
    readme.write_text("# serialbench\n\nWhat does it cost?\n")
    line = assert_one_line_usage_error(in_process("report", readme))
    assert line == (f"serialbench: error: {readme}: not a serialbench result (not pyperf JSON: Expecting value at "
                    "line 1 column 1); give a result file written by 'python -m serialbench'")
    truncated = tmp_path / "cut.json"
    truncated.write_text('{"benchmarks": [{"runs": [')
    assert "truncated or malformed JSON" in assert_one_line_usage_error(in_process("report", truncated))
