"""The run with the smallest settings, as a user runs it: result file, metadata contract, failures, the
rule's options; and the rule itself (which benchmarks stop after a round) on hand-built rounds."""

import io
import json
import math
import os
import re
import subprocess
import sys
import textwrap

import pyperf
import pytest

from serialbench.measure.engine import still_running
from serialbench.measure.lanes import floor_ratio
from serialbench.measure.session import FLOOR_RATIO, RUN_DEFAULT, RUN_FAST, RoundDone, Run, Session, run_settings
from serialbench.results import run_files
from serialbench.sides.sides import Side
from serialbench.views.progress import RoundProgress
from tests.helpers import PROJECT_ROOT, SMALLEST, assert_one_line_usage_error, serialbench

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)

SELECTION = ["-b", "baseline/*/float32/1K", "-b", "triton-binary/join/int32x3/1K", "-b", "tfserving-rest/orjson/png/1K"]
NAMES = ["baseline/tobytes/float32/1K", "baseline/tobytes/png/1K", "baseline/tobytes/int32x3/1K",
         "baseline/noop/float32/1K", "tfserving-rest/orjson/png/1K", "triton-binary/join/int32x3/1K"]
CONTRACT_KEYS = {
    "serialbench_format", "serialbench_impl", "serialbench_input", "serialbench_tier",
    "serialbench_direction", "input_bytes", "payload_bytes", "serialbench_commit", "serialbench_dirty",
}


@pytest.fixture(scope="module")
def result_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "run.json"
    done = serialbench(*SMALLEST, *SELECTION, "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    assert path.exists()
    return path, done.stdout.decode()


def test_run_writes_every_selected_benchmark_and_the_floor_in_run_order(result_file):
    path, stdout = result_file
    suite = pyperf.BenchmarkSuite.load(str(path))
    assert suite.get_benchmark_names() == NAMES
    settled = re.findall(r"^\[(\d)/6\] (\S+)  ", stdout, re.M)
    assert sorted(name for _, name in settled) == sorted(NAMES)
    assert [int(k) for k, _ in settled] == [1, 2, 3, 4, 5, 6]
    # The round's line follows its look: it counts the benchmarks that settled in it.
    assert re.search(r"^round 1 of at most 1: \d+ s, 6 benchmarks, \d+ s so far; 0 of 6 known within \+-3.0%, "
                     r"6 end short of it$", stdout, re.M)
    assert stdout.index("[6/6]") < stdout.index("round 1 of")


def test_each_benchmark_carries_the_metadata_contract(result_file):
    path, _ = result_file
    for bench in pyperf.BenchmarkSuite.load(str(path)):
        metadata = bench.get_metadata()
        assert CONTRACT_KEYS <= set(metadata), bench.get_name()
        fmt, impl, kind, tier = bench.get_name().split("/")
        assert (metadata["serialbench_format"], metadata["serialbench_impl"]) == (fmt, impl)
        assert (metadata["serialbench_input"], metadata["serialbench_tier"]) == (kind, tier)
        assert metadata["serialbench_direction"] == "encode"
        assert metadata["numpy_version"]
        assert metadata["serialbench_malloc"] == "steady"
        assert metadata["serialbench_precision"] == 0.03
        assert bench.median() > 0
        assert [run.get_metadata()["serialbench_round"] for run in bench.get_runs()] == [0]


def test_each_benchmark_s_multiple_of_the_floor_is_taken_in_its_own_process(result_file):
    path, _ = result_file
    suite = pyperf.BenchmarkSuite.load(str(path))
    (run,) = suite.get_benchmark("triton-binary/join/int32x3/1K").get_runs()
    assert run.get_metadata()[FLOOR_RATIO] > 0
    (floor,) = suite.get_benchmark("baseline/tobytes/float32/1K").get_runs()
    assert FLOOR_RATIO not in floor.get_metadata()  # the floor itself has none


def test_versions_of_the_libraries_a_case_exercises_are_recorded(result_file):
    path, _ = result_file
    suite = pyperf.BenchmarkSuite.load(str(path))
    assert "orjson_version" in suite.get_benchmark("tfserving-rest/orjson/png/1K").get_metadata()
    assert "python_rapidjson_version" in suite.get_benchmark("triton-binary/join/int32x3/1K").get_metadata()


def test_payload_bytes_equals_the_length_of_dump(result_file):
    path, _ = result_file
    for bench in pyperf.BenchmarkSuite.load(str(path)):
        if bench.get_name().startswith("baseline/noop"):
            continue
        body = serialbench("dump", bench.get_name(), check=True).stdout
        assert bench.get_metadata()["payload_bytes"] == len(body)


def test_pyperf_compare_to_reads_the_result(result_file, tmp_path):
    path, _ = result_file
    other = tmp_path / "other.json"
    other.write_bytes(path.read_bytes())
    done = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(path), str(other)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_rows_short_of_the_precision_say_so_and_the_run_counts_them(result_file):
    _, stdout = result_file  # one process each: no interval at all
    assert stdout.count("(no interval), short of +-3.0% (1 process)") == 6
    (closing,) = [line for line in stdout.splitlines() if "reached +-3.0%" in line]
    assert closing.startswith("0 of 6 benchmarks reached +-3.0%; 6 stopped short")
    assert "'python -m serialbench compare'" in closing


def test_one_benchmark_ends_with_a_summary_in_multiples_of_the_floor_it_added(tmp_path):
    path = tmp_path / "one.json"
    done = serialbench(*SMALLEST, "-b", "triton-binary/join/float32/1K", "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    stdout = done.stdout.decode()
    assert pyperf.BenchmarkSuite.load(str(path)).get_benchmark_names() == [
        "baseline/tobytes/float32/1K", "triton-binary/join/float32/1K"]
    after_results = stdout.split(f"results: {path}\n", 1)[1]
    assert "float32, encode: median time per op" in after_results
    assert re.search(r"^triton-binary/join +\d[\d.]* (ns|us|ms) +\d[\d.,]*x$", after_results, re.M) or re.search(
        r"^ +\d[\d.,]*x +$", after_results, re.M)  # the multiple beside the time, or under it
    assert all(len(line) <= 80 for line in after_results.split("\n\n", 1)[1].splitlines())


def test_no_summary_ends_with_the_results_path(tmp_path):
    path = tmp_path / "quiet.json"
    done = serialbench(*SMALLEST, "--quiet", "--no-summary", "-b", "baseline/tobytes/float32/1K", "-o", path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == f"results: {path}\n"


def test_without_o_results_go_to_results_dir_and_never_overwrite(tmp_path):
    done = serialbench(*SMALLEST, "-b", "baseline/noop/float32/1K")
    again = serialbench(*SMALLEST, "-b", "baseline/noop/float32/1K")
    written = [line.split("results: ", 1)[1] for d in (done, again) for line in d.stdout.decode().splitlines()
               if line.startswith("results: ")]
    try:
        assert len(written) == 2 and written[0] != written[1]
        for path in written:
            assert path.startswith(str(PROJECT_ROOT / "results"))
            assert json.loads(open(path).read())["benchmarks"]
    finally:
        for path in written:
            __import__("os").remove(path)


def test_append_adds_the_processes_of_another_run(tmp_path):
    path = tmp_path / "run.json"
    for _ in range(2):
        done = serialbench(*SMALLEST, "--no-summary", "-b", "baseline/tobytes/float32/1K", "--append", path)
        assert done.returncode == 0, done.stderr.decode()
    assert len(pyperf.BenchmarkSuite.load(str(path)).get_benchmark("baseline/tobytes/float32/1K").get_runs()) == 2


def test_a_case_that_raises_in_setup_is_reported_and_the_run_goes_on(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "fragile.py").write_text(textwrap.dedent('''
        from serialbench.case import Case

        def broken(payload):
            raise RuntimeError("cannot prepare this")

        def fine(payload):
            value = payload.tensors[0].value
            return value.tobytes

        CASES = [
            Case("fragile", "broken", ("float32",), broken),
            Case("fragile", "fine", ("float32",), fine),
        ]
    '''))
    out = tmp_path / "run.json"
    done = serialbench(*SMALLEST, "--cases", cases, "-b", "fragile/*/float32/1K", "-o", out)
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert "fragile/broken/float32/1K: RuntimeError: cannot prepare this" in stderr
    assert "1 of 3 benchmarks not timed: fragile/broken/float32/1K" in stderr
    assert pyperf.BenchmarkSuite.load(str(out)).get_benchmark_names() == [
        "baseline/tobytes/float32/1K", "fragile/fine/float32/1K"]


def test_fast_is_six_processes_each_with_loops_calibrated_once(tmp_path):
    path = tmp_path / "fast.json"
    done = serialbench("--fast", "--min-time", "0.0005", "--no-summary", "-b", "baseline/tobytes/float32/1K", "-o",
                       path)
    assert done.returncode == 0, done.stderr.decode()
    runs = pyperf.BenchmarkSuite.load(str(path)).get_benchmark("baseline/tobytes/float32/1K").get_runs()
    assert [len(run.values) for run in runs] == [5] * 6
    assert len({run.get_metadata()["loops"] for run in runs}) == 1 and runs[0].get_metadata()["loops"] > 1
    assert sorted(run.get_metadata()["serialbench_round"] for run in runs) == list(range(6))


@pytest.mark.parametrize("options, message", [
    (["--fast", "--rigorous"], "--fast and --rigorous are two presets"),
    (["--max-rounds", "5"], "--max-rounds: give 6 or more, not 5"),
    (["--precision", "0"], "--precision 0: give a percentage"),
    (["--rounds", "0"], "--rounds: give 1 or more, not 0"),
    (["--values", "0"], "--values: give 1 or more, not 0"),
    (["--min-time", "x"], "--min-time: give a positive number of seconds, not x"),
])
def test_the_rule_s_options_are_checked_before_any_work(options, message):
    line = assert_one_line_usage_error(serialbench(*options, "-b", "baseline/tobytes/float32/1K"))
    assert message in line


# --- the rule, on hand-built rounds -----------------------------------------------------------------

def session_with(per_name: dict) -> Session:
    """A session whose benchmarks' rounds have these medians (and floor ratios)."""
    session = Session([Side("run", PROJECT_ROOT)], list(per_name))
    for name, rounds in per_name.items():
        session.runs["run"][name] = [Run(r, [median], {} if ratio is None else {FLOOR_RATIO: ratio})
                                     for r, (median, ratio) in enumerate(rounds)]
    return session


def test_a_benchmark_stops_once_its_median_and_its_multiple_are_within_the_precision():
    quiet = [(1.0 + 0.001 * r, 5.0 * (1 + 0.001 * (-1) ** r)) for r in range(6)]
    noisy = [(1.0 + 0.1 * (-1) ** r, 5.0) for r in range(6)]
    loose_multiple = [(1.0, 5.0 * (1 + 0.1 * (-1) ** r)) for r in range(6)]
    floor = [(0.2, None)] * 6
    floors = {"a/q/float32/1K": "f/f/float32/1K", "a/n/float32/1K": "f/f/float32/1K",
              "a/l/float32/1K": "f/f/float32/1K", "f/f/float32/1K": None}
    session = session_with({"a/q/float32/1K": quiet, "a/n/float32/1K": noisy, "a/l/float32/1K": loose_multiple,
                            "f/f/float32/1K": floor})
    lines = []
    progress = RoundProgress(list(floors), floors, run_settings(0.03, 6, 20, 5), lines.append)
    settled = progress.settle(session, list(floors), 0, set())
    assert settled == {"a/q/float32/1K"}  # the floor goes on: two benchmarks still need it
    assert lines == ["[1/4] a/q/float32/1K  1.00 s +-0.2%, 5.0x of the floor +-0.1% (6 processes)"]
    assert still_running(list(floors), settled, floors) == ["a/n/float32/1K", "a/l/float32/1K", "f/f/float32/1K"]
    left = ["a/n/float32/1K", "a/l/float32/1K", "f/f/float32/1K"]
    final = progress.settle(session, left, 1, set(left))
    assert final == {"a/n/float32/1K", "a/l/float32/1K", "f/f/float32/1K"}
    assert lines[1] == "[2/4] a/n/float32/1K  1.00 s +-10%, 5.0x of the floor +-0.0%, short of +-3.0% (6 processes)"
    assert progress.closing().startswith("2 of 4 benchmarks reached +-3.0%; 2 stopped short")


def test_a_round_s_multiple_is_the_median_of_its_cycles_ratios_to_the_floor():
    assert floor_ratio([0, 1], [[2.0, 4.0, 3.0], [1.0, 1.0, 1.0]]) == pytest.approx(3.0)
    # a slow op's one value between two of its floor's: their median is the floor of that cycle
    assert floor_ratio([1, 0, 1], [[1.0], [10.0], [3.0]]) == pytest.approx(5.0)
    assert math.isclose(floor_ratio([0, 1], [[1.0, 9.0], [1.0, 1.0]]), 3.0)


def one_round(session: Session, round_index: int) -> None:
    """A round of baseline/tobytes/float32/1K added to the session, as the workers would."""
    session.runs["run"].setdefault("baseline/tobytes/float32/1K", []).append(Run(round_index, [1e-7, 1.1e-7], {
        "serialbench_format": "baseline", "serialbench_impl": "tobytes", "serialbench_input": "float32",
        "serialbench_tier": "1K", "serialbench_direction": "encode", "input_bytes": 4000, "payload_bytes": 4000,
        "loops": 1, "serialbench_round": round_index}))
    session.rounds = round_index + 1


def run_in_process(argv: list[str]) -> tuple[int, str]:
    from serialbench.commands import contract

    stderr = io.StringIO()
    return contract.main("run", "run", argv, io.StringIO(), stderr), stderr.getvalue()


def test_an_interrupted_run_writes_the_processes_it_has_and_exits_130(tmp_path, monkeypatch):
    from serialbench.commands import run as run_command

    def interrupted(sides, names, settings, settle, say, **hooks):
        session = Session(sides, list(names))
        one_round(session, 0)
        session.interrupted = True
        return session

    monkeypatch.setattr(run_command, "run_session", interrupted)
    output = tmp_path / "run.json"
    status, stderr = run_in_process(["-b", "baseline/tobytes/float32/1K", "--no-summary", "-q", "-o", str(output)])
    assert status == 130
    assert f"interrupted after 1 rounds: the 1 benchmarks timed are in {output}" in stderr
    assert pyperf.BenchmarkSuite.load(str(output)).get_benchmark_names() == ["baseline/tobytes/float32/1K"]


def test_a_long_run_keeps_its_rounds_on_disk_as_it_goes_and_the_end_replaces_them(tmp_path, monkeypatch):
    """A run killed outright (SIGKILL, a CI timeout) leaves the rounds of its last checkpoint."""
    from serialbench.commands import run as run_command

    output = tmp_path / "run.json"
    on_disk = []  # what the file held after each round

    def three_rounds(sides, names, settings, settle, say, **hooks):
        session = Session(sides, list(names))
        for round_index in range(3):
            one_round(session, round_index)
            hooks["checkpoint"](session)
            if output.exists():
                bench = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()[0]
                on_disk.append((bench.get_nrun(), bench.get_metadata().get("serialbench_partial")))
        return session

    monkeypatch.setattr(run_command, "run_session", three_rounds)
    monkeypatch.setattr(run_files.Checkpoint, "EVERY_SECONDS", 0.0)
    status, stderr = run_in_process(["-b", "baseline/tobytes/float32/1K", "--no-summary", "-q", "-o", str(output)])
    assert status == 0, stderr
    assert on_disk == [(1, 1), (2, 2), (3, 3)]
    final = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()[0]
    assert final.get_nrun() == 3 and "serialbench_partial" not in final.get_metadata()
    umask = os.umask(0)
    os.umask(umask)
    assert output.stat().st_mode & 0o777 == 0o666 & ~umask  # not the private 0600 of its scratch file


def test_an_op_of_seconds_a_call_is_timed_from_the_call_that_prepares_it(tmp_path, monkeypatch):
    # An op of timeloop.TIMED_FIRST_CALL or more a call takes its one value a round from prepare's own
    # call (in the first round, the call that is checked), and its floor's value follows it.
    from serialbench.inside import timeloop

    # Every op counts as one of seconds a call in the plan (the workers calibrate by their own copy).
    monkeypatch.setattr(timeloop, "TIMED_FIRST_CALL", 0.0)
    output = tmp_path / "run.json"
    status, stderr = run_in_process(["--rounds", "2", "--values", "3", "--min-time", "0.0005", "--no-summary", "-q",
                                     "-b", "triton-binary/join/float32/1K", "-o", str(output)])
    assert status == 0, stderr
    runs = pyperf.BenchmarkSuite.load(str(output)).get_benchmark("triton-binary/join/float32/1K").get_runs()
    by_round = {run.get_metadata()["serialbench_round"]: run for run in runs}
    assert [len(by_round[index].values) for index in (0, 1)] == [1, 1]
    assert all(by_round[index].get_metadata()[FLOOR_RATIO] > 0 for index in (0, 1))
    floor = pyperf.BenchmarkSuite.load(str(output)).get_benchmark("baseline/tobytes/float32/1K").get_runs()
    assert all(len(run.values) == 1 for run in floor)  # the floor, too, counted as one of seconds a call


def test_a_fresh_clone_shows_nothing_new_in_git_status_after_a_run_and_its_site(tmp_path):
    """A user's results and site stay out of git: the README's run and `html results -o site`, from a
    clone of this repository (its .gitignore as it is in this tree), leave `git status` as it was."""
    if not (PROJECT_ROOT / ".git").exists():
        pytest.skip("not a git checkout (an installed serialbench): nothing to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(PROJECT_ROOT), str(clone)], check=True)
    (clone / ".gitignore").write_text((PROJECT_ROOT / ".gitignore").read_text())
    subprocess.run(["git", "-C", str(clone), "-c", "user.name=test", "-c", "user.email=test@example.com",
                    "commit", "-q", "--allow-empty", "-am", "the tree's .gitignore"], check=True)
    for args in ([*SMALLEST, "-b", "baseline/tobytes/float32/1K"], ["html", "results", "-o", "site"]):
        done = subprocess.run([sys.executable, "-m", "serialbench", *args], cwd=clone, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr
    assert (clone / "site" / "index.html").exists()
    assert [path for path in (clone / "results").glob("*.json") if not (PROJECT_ROOT / "results" / path.name).exists()]
    status = subprocess.run(["git", "-C", str(clone), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True)
    assert status.stdout == ""


def test_the_rule_is_one_sentence_true_for_fast_and_the_default_alike():
    """It read 'exactly 6 processes each, until the median ... is known within +-5.0%' for --fast: both
    cannot hold. The one sentence names when a benchmark is looked at and the cap, whatever the preset."""
    names = ["a/b/float32/1K", "f/f/float32/1K"]
    for settings, cap in ((RUN_FAST, 6), (RUN_DEFAULT, 12)):
        opening = RoundProgress(names, {}, settings).opening()
        assert opening == (f"2 benchmarks, in rounds of one fresh process each: a benchmark stops once its median "
                           f"and its multiple of the floor are known within +-{settings.precision * 100:.1f}%, "
                           f"looked at from round 6, or at the cap of {cap} processes (5 values a process)")
        assert "exactly" not in opening


def test_a_round_line_counts_what_a_user_can_act_on():
    """Every round line of a --fast run read '0 of 124 settled': before the first look nothing can settle."""
    names = [f"a/{i}/float32/1K" for i in range(4)]
    progress = RoundProgress(names, {}, RUN_DEFAULT)
    first = progress.round_line(RoundDone(1, 15.0, 4, 15.0, 4, 4, 11, False))
    assert first == ("round 1 of at most 12: 15 s, 4 benchmarks, 15 s so far; precision looked at from round 6; "
                     "at most 11 rounds left (~2.8 min)")
    progress.settled, progress.reached = {names[0]: None}, 1
    assert progress.round_line(RoundDone(6, 15.0, 4, 90.0, 4, 3, 6, False)) == (
        "round 6 of at most 12: 15 s, 4 benchmarks, 90 s so far; 1 of 4 known within +-3.0%, 3 go on; "
        "at most 6 rounds left (~90 s)")
    # Two rounds at once, one a CPU: the line names both, and the time left is at the pace of a round.
    assert progress.round_line(RoundDone(8, 30.0, 4, 120.0, 4, 3, 4, False, 2)) == (
        "rounds 7-8 of at most 12: 30 s, 4 benchmarks, 2.0 min so far; 1 of 4 known within +-3.0%, 3 go on; "
        "at most 4 rounds left (~60 s)")
    fast = RoundProgress(names, {}, RUN_FAST)
    fast.settled, fast.reached = dict.fromkeys(names), 1
    assert fast.round_line(RoundDone(6, 15.0, 4, 90.0, 4, 0, 0, False)).endswith(
        "1 of 4 known within +-5.0%, 3 end short of it")
