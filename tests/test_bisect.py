"""bisect: on the toy library of tests/test_sweep.py (v1 and v2 equal, v3 doing more work, v4 equal
to v3), found through pip's --find-links; the search itself on modelled sessions (no timing); the
JSON as exact text."""

import json
from types import SimpleNamespace

import pytest

from serialbench.commands import bisect
from serialbench.core import stats
from serialbench.verdicts.steps import Step
from serialbench.views.verdict_json import bisect_json
from tests.test_compare import run_serialbench
from tests.test_golden import check_golden


def test_bisection_lands_on_v3_within_three_sessions(toy, tmp_path):
    out = tmp_path / "bisect.json"
    done = run_serialbench("bisect", "toylib", "1.0", "4.0", "-b", "lib/toylib/float32/10K", "--cases", toy["cases"],
                           "--rounds", "8", "--min-effect", "10", "--json", out, env=toy["env"])
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert (data["changed_at"], data["previous"], data["verdict"]) == ("3.0", "2.0", "slower"), done.stdout
    assert len(data["sessions"]) <= 3
    assert data["low"] > 0.5  # three more copies per op: far more than the minimum effect
    assert done.stdout.splitlines()[0].startswith("session 1 (8 rounds")
    assert "lib/toylib/float32/10K: changed at 3.0 (after 2.0): slower" in done.stdout


# --- the search, on modelled sessions -------------------------------------------------------------

def modelled(costs, noisy=()):
    """A Bisection whose sessions judge from `costs` (version -> time): a step beyond 10% changed,
    unless it touches a version in `noisy`, which is too noisy to tell."""
    versions = list(costs)
    args = SimpleNamespace(direction="changed")
    search = bisect.Bisection(args, None, versions, "x/y/float32/1K")
    search.side = lambda version: object()

    def judge(before, after):
        change = costs[after] / costs[before] - 1
        word = (stats.TOO_NOISY if {before, after} & set(noisy) else
                stats.SLOWER if change > 0.1 else stats.FASTER if change < -0.1 else stats.NO_CHANGE)
        return Step(before, after, change, change - 0.01, change + 0.01, word, 8, 0.05)

    def session(chosen):
        steps = [judge(a, b) for a, b in zip(chosen, chosen[1:])] + ([judge(chosen[0], chosen[-1])]
                                                                       if len(chosen) > 2 else [])
        search.sessions.append({"sides": chosen, "rounds": 8, "minutes": 0.1, "steps": steps})
        return steps

    search.session = session
    return search


TRITON = [f"2.{minor}.0" for minor in range(40, 52)]  # twelve releases


def test_a_step_among_twelve_releases_is_found_in_about_four_sessions():
    search = modelled({v: (1.0 if v < "2.46.0" else 0.54) for v in TRITON})
    answer, uncertain = search.run()
    assert (answer.before, answer.after, answer.verdict, uncertain) == ("2.45.0", "2.46.0", "faster", None)
    assert len(search.sessions) <= 4


def test_no_change_from_good_to_bad_is_said_in_one_session():
    search = modelled({v: 1.0 for v in TRITON})
    assert search.run() == (None, None)
    assert len(search.sessions) == 1


def test_two_steps_are_said_to_be_several():
    search = modelled({"1": 1.0, "2": 1.5, "3": 2.2})
    answer, uncertain = search.run()
    assert answer.after == "2" and uncertain.startswith("several steps: 2 -> 3 also changed")


def test_a_step_too_noisy_to_tell_stops_the_search_without_guessing():
    search = modelled({"1": 1.0, "2": 1.0, "3": 2.0, "4": 2.0, "5": 2.0}, noisy=("3",))
    answer, uncertain = search.run()
    assert answer is None and uncertain.startswith("too noisy to tell whether")
    assert "the change is between" in uncertain


def test_a_direction_passes_over_a_step_the_other_way():
    search = modelled({"1": 1.0, "2": 0.5, "3": 0.5, "4": 0.8, "5": 0.8})
    search.args.direction = "slower"
    answer, _ = search.run()
    assert (answer.after, answer.verdict) == ("4", "slower")


def test_bisect_json_keys_as_exact_text():
    steps = [Step("2.40.0", "2.45.0", 0.002, -0.004, 0.008, stats.NO_CHANGE, 16, 0.02),
             Step("2.45.0", "2.50.0", -0.46, -0.47, -0.45, stats.FASTER, 16, 0.02),
             Step("2.40.0", "2.50.0", -0.459, -0.47, -0.449, stats.FASTER, 16, 0.02)]
    answer = Step("2.45.0", "2.46.0", -0.461, -0.472, -0.45, stats.FASTER, 16, 0.02)
    sessions = [{"sides": ["2.40.0", "2.45.0", "2.50.0"], "rounds": 16, "minutes": 1.2, "steps": steps},
                {"sides": ["2.45.0", "2.46.0"], "rounds": 16, "minutes": 0.8, "steps": [answer]}]
    check_golden("bisect.json", bisect_json("triton-binary/tritonclient/int32x3/1M", "2.40.0", "2.50.0", answer,
                                            None, sessions))


@pytest.mark.parametrize("pattern", ["lib/*", "no/such/thing/1K"])
def test_bisect_takes_exactly_one_benchmark(toy, pattern):  # noqa: F811
    done = run_serialbench("bisect", "toylib", "1.0", "4.0", "-b", pattern, "--cases", toy["cases"], env=toy["env"])
    assert done.returncode == 2 and "bisect takes one" in done.stderr.strip().splitlines()[-1]
