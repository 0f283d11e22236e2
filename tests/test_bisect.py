"""bisect: on a toy library of eight versions with two steps (as tests/conftest.py makes its
four), found through pip's --find-links; the search itself, its budget included, on modelled
sessions (no timing); the answer and the JSON as exact text."""

import json
import math
import textwrap
from types import SimpleNamespace

import pytest

from serialbench.commands.options import settings_from
from serialbench.core.errors import UsageError
from serialbench.verdicts import bisection, vocabulary
from serialbench.verdicts.bisection import Bracket, Result
from serialbench.verdicts.steps import Step
from serialbench.views.bisect_steps import answer_lines
from serialbench.views.table import Document
from serialbench.views.verdict_json import bisect_keys
from tests.helpers import check_golden, run_serialbench
from tests.toys import LIBRARY_CASES, make_wheel


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    """toylib 1.0 to 8.0: 3 more copies per op from 3.0, 8 from 6.0: two steps."""
    root = tmp_path_factory.mktemp("eight")
    (root / "cases").mkdir()
    (root / "cases" / "lib.py").write_text(textwrap.dedent(LIBRARY_CASES))
    (root / "wheels").mkdir()
    for index in range(1, 9):
        make_wheel(root / "wheels", f"{index}.0", 0 if index < 3 else 3 if index < 6 else 8)
    env = {"XDG_CACHE_HOME": str(root / "cache"), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(root / "wheels")}
    return {"root": root, "cases": root / "cases", "env": env}


@pytest.mark.slow
def test_both_steps_of_eight_releases_are_found(eight):
    out = eight["root"] / "bisect.json"
    done = run_serialbench("bisect", "toylib", "1.0", "8.0", "-b", "lib/toylib/float32/10K", "--cases", eight["cases"],
                           "--rounds", "8", "--min-effect", "10", "--json", out, env=eight["env"])
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert [(s["from"], s["to"], s["verdict"]) for s in data["steps"]] == [("2.0", "3.0", "slower"),
                                                                         ("5.0", "6.0", "slower")], done.stdout
    assert data["complete"] and data["unsearched"] == [] and len(data["sessions"]) <= 5
    assert sum(s["share"] for s in data["steps"]) == pytest.approx(1.0, abs=0.15)
    assert (data["changed_at"], data["previous"], data["verdict"]) == ("3.0", "2.0", "slower")  # the first step
    assert data["steps"][1]["low"] > 0.5  # five more copies per op: far more than the minimum effect
    assert done.stdout.splitlines()[0].startswith("session 1 (8 rounds")
    assert "lib/toylib/float32/10K: 2 steps from 1.0 to 8.0, whose whole change is slower" in done.stdout


# --- the search, on modelled sessions -------------------------------------------------------------

def modelled(costs, noisy=(), direction="changed", max_sessions=None, threshold=()):
    """A Bisection whose sessions judge from `costs` (version -> time): a step beyond 10% changed,
    unless it touches a version in `noisy`, which is too noisy to tell; a step in `threshold` (pairs)
    is at the threshold."""
    versions = list(costs)
    search = bisection.Bisection(versions, "x/y/float32/1K", lambda version: (object(), ""), None, None, 0.02,
                                 direction, max_sessions)

    def judge(before, after):
        change = costs[after] / costs[before] - 1
        word = (vocabulary.TOO_NOISY if {before, after} & set(noisy) else
                vocabulary.AT_THRESHOLD if (before, after) in threshold else
                vocabulary.SLOWER if change > 0.1 else vocabulary.FASTER if change < -0.1 else vocabulary.NO_CHANGE)
        return Step(before, after, change, change - 0.01, change + 0.01, word, 8, 0.05)

    def session(chosen):
        steps = [judge(a, b) for a, b in zip(chosen, chosen[1:])] + ([judge(chosen[0], chosen[-1])]
                                                                       if len(chosen) > 2 else [])
        search.sessions.append({"sides": chosen, "rounds": 8, "minutes": 0.1, "steps": steps})
        return steps

    search.session = session
    return search


def found(result):
    return [(step.before, step.after, step.verdict) for step in result.steps]


TRITON = [f"2.{minor}.0" for minor in range(40, 52)]  # twelve releases


def test_a_step_among_twelve_releases_is_found_in_about_four_sessions():
    search = modelled({v: (1.0 if v < "2.46.0" else 0.54) for v in TRITON})
    result = search.run()
    assert found(result) == [("2.45.0", "2.46.0", "faster")] and result.complete
    assert len(search.sessions) <= 4
    assert result.share(result.steps[0]) == pytest.approx(1.0)


def test_no_change_from_good_to_bad_is_said_in_one_session():
    search = modelled({v: 1.0 for v in TRITON})
    result = search.run()
    assert (result.steps, result.complete) == ([], True)
    assert len(search.sessions) == 1


def test_every_step_of_a_cost_that_crept_up_is_found_with_its_share_of_the_whole():
    """orjson's bisection in miniature: five steps over twenty releases, one of them faster, one
    hidden in a half whose whole change is at the threshold."""
    versions = [f"3.10.{i}" for i in range(20)]
    factors = {"3.10.1": 1.20, "3.10.2": 1.15, "3.10.6": 1.40, "3.10.9": 0.80, "3.10.13": 1.25}
    costs, level = {}, 1.0
    for version in versions:
        level *= factors.get(version, 1.0)
        costs[version] = level
    search = modelled(costs)
    result = search.run()
    assert [after for _, after, _ in found(result)] == list(factors)
    assert found(result)[3] == ("3.10.8", "3.10.9", "faster") and result.complete
    shares = [result.share(step) for step in result.steps]
    assert sum(shares) == pytest.approx(1.0)
    assert shares[2] == pytest.approx(math.log(1.4) / math.log(costs["3.10.19"]))
    assert len(search.sessions) <= 12  # a sweep of the twenty would time 20 sides at once


def test_a_half_at_the_threshold_is_searched():
    """+30% at 6 and -20% at 7: the half 4 -> 8 nets +4%, measured at the threshold, and holds both."""
    costs = {"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0, "5": 1.0, "6": 1.3, "7": 1.04, "8": 1.04}
    search = modelled(costs, threshold=[("4", "8")])
    assert found(search.run()) == [("5", "6", "slower"), ("6", "7", "faster")]


def test_a_budget_stops_the_search_and_names_what_it_left():
    versions = [str(i) for i in range(1, 17)]
    costs = {v: 1.0 * (1.3 if int(v) >= 4 else 1) * (1.5 if int(v) >= 12 else 1) for v in versions}
    search = modelled(costs, max_sessions=2)
    result = search.run()
    assert len(search.sessions) == 2 and not result.complete
    assert result.unsearched and all(why == "--max-sessions 2 ran out" for _, why in result.unsearched)
    searched = {step.after for step in result.steps}
    left = [(bracket.low, bracket.high) for bracket, _ in result.unsearched]
    for step_at in ("4", "12"):  # each step is found, or inside a bracket named as unsearched
        assert step_at in searched or any(int(low) < int(step_at) <= int(high) for low, high in left)
    text = answer_lines("x/y/float32/1K", result, "1", "16", "changed", "2 sessions in 0.2 min")
    assert any(line.startswith("unsearched: ") and line.endswith(": --max-sessions 2 ran out") for line in text)


@pytest.mark.parametrize("word, sessions", [(vocabulary.AT_THRESHOLD, 1), (vocabulary.TOO_NOISY, 3)])
def test_a_step_at_the_threshold_is_measured_and_not_taken_again_but_a_noisy_one_is(monkeypatch, word, sessions):
    steps = (Step("1", "2", 0.02, 0.017, 0.023, word, 64),)
    monkeypatch.setattr(bisection, "sweep_rows", lambda *args: [SimpleNamespace(steps=steps, from_anchor=steps)])
    args = SimpleNamespace(direction="changed", min_effect=None, rounds=None, max_rounds=64, max_time=20,
                           min_time=0.002, cpus=1, max_sessions=None)
    search = bisection.Bisection(["1", "2"], "x/y/float32/1K", lambda version: (object(), ""),
                                 lambda *args: SimpleNamespace(interrupted=False, rounds=64, seconds=6),
                                 settings_from(args), 0.02, max_minutes=20)
    assert search.session(["1", "2"])[0].verdict == word and len(search.sessions) == sessions


def test_a_step_too_noisy_to_tell_is_said_without_guessing():
    search = modelled({"1": 1.0, "2": 1.0, "3": 2.0, "4": 2.0, "5": 2.0, "6": 2.0}, noisy=("3",))
    result = search.run()
    assert result.steps == [] and not result.complete
    assert result.notes[0].startswith("too noisy to tell whether")
    assert "a change there is between" in result.notes[0]


def test_a_direction_passes_over_a_step_the_other_way():
    search = modelled({"1": 1.0, "2": 0.5, "3": 0.5, "4": 0.8, "5": 0.8, "6": 0.8}, direction="slower")
    assert found(search.run()) == [("3", "4", "slower")]


def test_a_release_that_cannot_run_is_skipped():
    search = modelled({str(i): (1.0 if i < 5 else 1.5) for i in range(1, 9)})
    search.side = lambda version: None if version in ("4", "5") else object()
    assert found(search.run()) == [("3", "6", "slower")]


def test_the_answer_as_text_one_step_and_several():
    one = Result([Step("2.0", "3.0", 0.5, 0.45, 0.55, vocabulary.SLOWER, 8)],
                 Step("1.0", "4.0", 0.49, 0.44, 0.54, vocabulary.SLOWER, 8))
    assert answer_lines("lib/toylib/float32/10K", one, "1.0", "4.0", "changed", "1 sessions in 0.2 min") == [
        "lib/toylib/float32/10K: changed at 3.0 (after 2.0): slower, +50.0% [+45.0%, +55.0%], 102% of the whole "
        "change; 1 sessions in 0.2 min"]
    whole = Step("3.9.15", "3.11.0", 0.12, 0.11, 0.131, vocabulary.SLOWER, 8)
    steps = [Step("3.9.15", "3.10.0", 0.028, 0.024, 0.034, vocabulary.SLOWER, 8),
             Step("3.10.1", "3.10.2", 0.091, 0.08, 0.102, vocabulary.SLOWER, 8),
             Step("3.10.6", "3.10.7", 0.021, 0.018, 0.024, vocabulary.AT_THRESHOLD, 64)]
    several = Result(steps, whole, ["3.10.4 -> 3.10.5: ..."],
                     [(Bracket("3.10.9", "3.10.18", whole), "--max-time 5 min ran out")])
    check_golden("bisect.txt", "\n".join(answer_lines("tfserving-rest/orjson-numpy/int32x3/10K", several, "3.9.15",
                                                     "3.11.0", "changed", "9 sessions in 2.1 min")) + "\n")


def test_a_bisections_json_reads_back_to_the_answer_the_terminal_printed():
    whole = Step("3.9.15", "3.11.0", 0.12, 0.11, 0.131, vocabulary.SLOWER, 8)
    steps = [Step("3.9.15", "3.10.0", 0.028, 0.024, 0.034, vocabulary.SLOWER, 8),
             Step("3.10.1", "3.10.2", 0.091, 0.08, 0.102, vocabulary.SLOWER, 8)]
    for result in (Result(steps, whole, ["too noisy to tell whether 3.10.4 -> 3.10.5 changed; a change there is"],
                          [(Bracket("3.10.9", "3.11.0", whole), "--max-time 5 min ran out"), (Bracket("1", "2"), "x")]),
                   Result(steps[:1], whole), Result([], whole), Result([], None, unsearched=[(Bracket("1", "2"),
                                                                                              "interrupted")])):
        text = json.dumps(bisect_keys("x/y/int32x3/10K", "3.9.15", "3.11.0", result, []))
        back = bisection.bisect_from_json(text, "bisect.json")
        assert back.complete == result.complete
        assert answer_lines("x/y/int32x3/10K", back, "3.9.15", "3.11.0", "changed", "2 sessions") == answer_lines(
            "x/y/int32x3/10K", result, "3.9.15", "3.11.0", "changed", "2 sessions")


def test_a_file_that_is_no_bisection_is_refused_in_one_line():
    with pytest.raises(UsageError, match=r"^sweep.json is not a bisection's --json file \(KeyError: 'previous'\); "
                                         r"give the files that 'bisect --json FILE' wrote$"):
        bisection.bisect_from_json(json.dumps({"sides": ["1.0", "2.0"], "benchmarks": []}), "sweep.json")


def test_bisect_json_keys_as_exact_text():
    steps = [Step("2.40.0", "2.45.0", 0.002, -0.004, 0.008, vocabulary.NO_CHANGE, 16, 0.02),
             Step("2.45.0", "2.50.0", -0.46, -0.47, -0.45, vocabulary.FASTER, 16, 0.02),
             Step("2.40.0", "2.50.0", -0.459, -0.47, -0.449, vocabulary.FASTER, 16, 0.02)]
    answer = Step("2.45.0", "2.46.0", -0.461, -0.472, -0.45, vocabulary.FASTER, 16, 0.02)
    sessions = [{"sides": ["2.40.0", "2.45.0", "2.50.0"], "rounds": 16, "minutes": 1.2, "steps": steps},
                {"sides": ["2.45.0", "2.46.0", "2.47.0", "2.50.0"], "rounds": 16, "minutes": 0.8, "steps": [answer]}]
    left = Step("2.47.0", "2.50.0", 0.021, 0.018, 0.024, vocabulary.AT_THRESHOLD, 16)
    result = Result([answer], steps[-1], unsearched=[(Bracket("2.47.0", "2.50.0", left), "--max-sessions 2 ran out")])
    keys = bisect_keys("triton-binary/tritonclient/int32x3/1M", "2.40.0", "2.50.0", result, sessions)
    check_golden("bisect.json", Document([], keys=keys).json())


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["lib/*", "no/such/thing/1K"])
def test_bisect_takes_exactly_one_benchmark(toy, pattern):
    done = run_serialbench("bisect", "toylib", "1.0", "4.0", "-b", pattern, "--cases", toy["cases"], env=toy["env"])
    assert done.returncode == 2 and "bisect takes one" in done.stderr.strip().splitlines()[-1]
