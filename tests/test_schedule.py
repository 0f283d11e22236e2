"""The requests a round sends its workers: structural tests with stand-in workers, no timing."""

import random
from pathlib import Path

import pytest

from serialbench.measure import schedule, timeloop
from serialbench.measure.sides import Side

SECONDS_PER_OP = {"fast/op/float32/1K": 1e-6, "slow/op/float32/1M": 0.2, "mid/op/float32/100K": 0.01,
                  "copy/op/float32/1M": 160e-6, "decoder/op/float32/1M": 1.5}
LOG = []  # (side, request, answered): every request of every fake worker, in the order sent
# A value without re-warm calls right after prepare is this many times slower (the other side's prepare
# evicted the op's data): a 4 MB copy's first calls took 770 us where warm they take 160 us.
COLD = {"copy/op/float32/1M": 5.0}


class FakeProcess:
    """A worker that answers at once and records what it was asked."""

    def __init__(self, side, cpu=None):
        self.side = side
        self.hello = {"serialbench": "elsewhere"}
        self.requests = []
        self.pending = []
        self.name = None
        self.loops = 1

    def send(self, request):
        self.requests.append(request)
        LOG.append((self.side.label, request["do"], request.get("name")))
        if request["do"] == "prepare":
            self.name = request["name"]
            seconds = SECONDS_PER_OP[self.name]
            self.loops = request["loops"] or max(1, int(schedule.LOCKSTEP_MIN_TIME / seconds))
            answer = {"loops": self.loops, "inner_loops": 1, "metadata": {}}
            if request.get("time_call"):
                answer["first_call"] = seconds
            self.pending.append(answer)
        elif request["do"] == "sample":
            cold = COLD.get(self.name, 1.0) if not request.get("rewarm_calls") else 1.0
            self.pending.append({"seconds": SECONDS_PER_OP[self.name] * cold})
        else:
            self.pending.append({})

    def read(self):
        LOG.append((self.side.label, "read", None))
        return self.pending.pop(0)

    def ask(self, request):
        self.send(request)
        return self.read()

    def close(self):
        pass


@pytest.fixture
def rounds(monkeypatch):
    made = []

    def process(side, cpu=None):
        made.append(FakeProcess(side, cpu))
        return made[-1]

    monkeypatch.setattr(schedule, "Process", process)
    sides = [Side(label, Path("."), own_serialbench=False) for label in ("BASE", "HEAD")]
    session = schedule.Session(sides, list(SECONDS_PER_OP))

    def run(count):
        for _ in range(count):
            schedule.time_round(session, list(SECONDS_PER_OP), schedule.LOCKSTEP_MIN_TIME, random.Random(0), print)
        return session, made

    return run


def asked(process, name, what):
    """The requests `what` that the process got for benchmark `name` (releases carry no name)."""
    start = next(i for i, r in enumerate(process.requests) if r.get("name") == name)
    end = next((i for i, r in enumerate(process.requests[start + 1:], start + 1)
                if r.get("name") not in (None, name)), len(process.requests))
    requests = process.requests[start:end]
    return [r for r in requests if r["do"] == what]


def test_the_round_trip_is_checked_in_the_first_round_only(rounds):
    session, made = rounds(2)
    first_base, first_head, second_base, second_head = made
    for name in SECONDS_PER_OP:
        # BASE calibrates the loops (a checked prepare), then both sides prepare for timing.
        assert [r["check"] for r in asked(first_base, name, "prepare") if "check" in r] == [False]
        assert [r["loops"] for r in asked(first_base, name, "prepare")][0] == 0
        assert [r["check"] for r in asked(first_head, name, "prepare")] == [True]
        assert [r["check"] for r in asked(second_base, name, "prepare")] == [False]
        assert [r["check"] for r in asked(second_head, name, "prepare")] == [False]


def test_a_slow_op_gets_the_cycles_that_fit_and_no_warm_cycle_after_the_first_round(rounds):
    session, made = rounds(2)
    slow, fast = "slow/op/float32/1M", "fast/op/float32/1K"
    assert session.plans[slow].cycles == 1  # 0.3 s for two sides of 0.2 s values: one cycle
    # a 2 ms value and its re-warm of five calls, two sides: 50 cycles, the most a benchmark takes
    fast_cycles = schedule.MAX_CYCLES
    assert session.plans[fast].cycles == fast_cycles
    second_base = made[2]
    assert len(asked(second_base, slow, "sample")) == 1  # no warm cycle
    assert len(asked(second_base, fast, "sample")) == 1 + fast_cycles  # warm cycle, then the cycles
    # Each value of a cheap op starts warm (the other side's op ran in between); a slow one does not.
    assert {r.get("rewarm_calls") for r in asked(second_base, fast, "sample")[1:]} == {timeloop.REWARM_CALLS}
    assert {r.get("rewarm_calls") for r in asked(second_base, slow, "sample")} == {0}
    for label in ("BASE", "HEAD"):
        assert [len(run.values) for run in session.runs[label][slow]] == [1, 1]


def test_the_re_warm_and_cycles_are_planned_from_a_warm_value(rounds):
    session, made = rounds(2)
    # A 4 MB copy whose first value is cold (5x) still gets five re-warm calls: planned from the
    # second value, taken after five calls, not from the first.
    assert session.plans["copy/op/float32/1M"].rewarm_calls == timeloop.REWARM_CALLS
    # An op of 10 ms a call covers the cache refill in one call: one re-warm call, so that a value
    # costs two calls and seven pairs fit in 0.3 s (with five calls it was two pairs).
    mid = session.plans["mid/op/float32/100K"]
    assert mid.rewarm_calls == 1
    assert mid.cycles == int(schedule.BENCHMARK_SECONDS / (2 * 0.01 * (mid.loops + 1)))
    first_base = made[0]
    assert [r.get("rewarm_calls") for r in asked(first_base, "copy/op/float32/1M", "sample")][:2] == \
        [None, timeloop.REWARM_CALLS]
    # Every later prepare times the loop the plan calibrated: its loops and its calls an iteration.
    second_base = made[2]
    for name, plan in session.plans.items():
        if not plan.first_call:
            assert [(r["loops"], r["inner_loops"]) for r in asked(second_base, name, "prepare")] == \
                [(plan.loops, plan.inner_loops)]
    # A slow op is not sampled a second time to plan it.
    assert len(asked(first_base, "slow/op/float32/1M", "sample")) == 1 + session.plans["slow/op/float32/1M"].cycles


def test_an_op_of_seconds_a_call_is_timed_by_the_call_that_prepares_it(rounds):
    LOG.clear()
    session, made = rounds(2)
    decoder = "decoder/op/float32/1M"
    assert session.plans[decoder].first_call
    for process in made[2:]:  # the second round: one timed prepare a side, no value after it
        assert [r["time_call"] for r in asked(process, decoder, "prepare")] == [True]
        assert asked(process, decoder, "sample") == []
    for label in ("BASE", "HEAD"):
        assert [run.values for run in session.runs[label][decoder]] == [[1.5], [1.5]]
    # One side after the other: each prepare is answered before the other side's is sent.
    prepares = [i for i, (label, do, name) in enumerate(LOG) if do == "prepare" and name == decoder]
    assert all(LOG[i + 1][1] == "read" for i in prepares)
