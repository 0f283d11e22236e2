"""The session engine's requests to its workers, for compare's lanes (one a side) and the run's (a benchmark
beside its floor in one process): structural tests with stand-in workers, no timing."""

import dataclasses
import threading
import time
from pathlib import Path

import pytest

from serialbench.inside import timeloop
from serialbench.measure import engine, lanes, plan
from serialbench.measure.process import WorkerFailed
from serialbench.measure.session import COMPARE, FLOOR_RATIO, RUN_FAST, Session
from serialbench.sides.sides import Side

SECONDS_PER_OP = {"fast/op/float32/1K": 1e-6, "slow/op/float32/1M": 0.2, "mid/op/float32/100K": 0.01,
                  "copy/op/float32/1M": 160e-6, "decoder/op/float32/1M": 1.5, "baseline/tobytes/float32/1M": 160e-6}
FLOORS = {name: "baseline/tobytes/float32/1M" for name in SECONDS_PER_OP if not name.startswith("baseline/")}
LOG = []  # (side, request, name): every request of every fake worker, in the order sent
# A value without re-warm calls right after prepare is this many times slower (another lane's prepare
# evicted the op's data): a 4 MB copy's first calls took 770 us where warm they take 160 us.
COLD = {"copy/op/float32/1M": 5.0}


class FakeProcess:
    """A worker that answers at once, speaks the protocol's keys exactly, and records what it was asked."""

    def __init__(self, side, cpu=None):
        self.side, self.cpu = side, cpu
        self.hello = {"protocol": 1, "serialbench": "elsewhere"}
        self.requests = []
        self.pending = []
        self.slots = {}  # slot -> name
        LOG.append((side.label, "start", None))

    def send(self, request):
        self.requests.append(request)
        name = request.get("name") or ",".join(self.slots.get(slot, "?") for slot in request.get("slots", ()))
        LOG.append((self.side.label, request["do"], name))
        do = request["do"]
        if do == "prepare":
            assert set(request) == {"do", "name", "slot", "loops", "inner_loops", "min_time", "check", "time_call"}
            seconds = SECONDS_PER_OP[request["name"]]
            self.slots[request["slot"]] = request["name"]
            loops = request["loops"] or max(1, int(request["min_time"] / seconds))
            answer = {"loops": loops, "inner_loops": request["inner_loops"] or 1, "metadata": {}}
            if request["time_call"]:
                answer["first_call"] = seconds
            self.pending.append(answer)
        elif do == "cycles":
            assert set(request) == {"do", "count", "slots", "rewarm_calls"}
            values = [[SECONDS_PER_OP[self.slots[slot]] * (1.0 if rewarm else COLD.get(self.slots[slot], 1.0))
                       for _ in range(request["count"])]
                      for slot, rewarm in zip(request["slots"], request["rewarm_calls"])]
            self.pending.append({"values": values})
        else:
            assert set(request) == {"do"}
            if do == "release":
                self.slots.clear()
            self.pending.append({})

    def read(self):
        LOG.append((self.side.label, "read", None))
        return self.pending.pop(0)

    def ask(self, request):
        self.send(request)
        return self.read()

    def close(self):
        pass


class InOrder:
    def shuffle(self, items):
        pass


IN_ORDER = InOrder()


@pytest.fixture
def sessions(monkeypatch):
    """run(count, lanes): a session of `count` rounds of every benchmark, compare's (two sides) or the run's."""
    made = []

    def process(side, cpu=None):
        made.append(FakeProcess(side, cpu))
        return made[-1]

    monkeypatch.setattr(engine, "Process", process)
    LOG.clear()

    def run(count, kind="compare", cpus=1):
        made.clear()
        names = list(SECONDS_PER_OP)
        if kind == "compare":
            sides = [Side(label, Path("."), own_serialbench=False) for label in ("BASE", "HEAD")]
            floors, settings = {}, COMPARE
        else:
            sides, floors, settings = [Side("run", Path("."), own_serialbench=False)], FLOORS, RUN_FAST
        settings = dataclasses.replace(settings, cpus=cpus)
        session = Session(sides, names)
        while session.rounds < count:  # the benchmarks in the order given, so that the requests can be read
            engine.time_rounds(session, names, floors, settings, print, min(cpus, count - session.rounds), IN_ORDER)
        return session, list(made)

    return run


def asked(process, name, what):
    """The requests `what` that the process got while it held benchmark `name` in slot 0."""
    start = next(i for i, r in enumerate(process.requests) if r.get("name") == name and r.get("slot") == 0)
    end = next((i for i, r in enumerate(process.requests[start + 1:], start + 1)
                if r.get("slot") == 0 and r.get("name") != name), len(process.requests))
    return [r for r in process.requests[start:end] if r["do"] == what]


def test_the_run_and_compare_plan_every_op_alike(sessions):
    # One plan rule: the same op gets the same loops, inner loops, re-warm calls, slow-op rule and
    # first-call rule whichever command times it, beside its floor or beside another side.
    compared, _ = sessions(1, "compare")
    ran, _ = sessions(1, "run")
    assert set(compared.plans) == set(ran.plans) == set(SECONDS_PER_OP)
    for name, planned in compared.plans.items():
        assert ran.plans[name] == planned, name
    assert {planned.first_call for planned in ran.plans.values()} == {True, False}
    assert {planned.slow for planned in ran.plans.values()} == {True, False}


def test_the_round_trip_is_checked_once_a_side(sessions):
    session, made = sessions(2)
    first_base, first_head, second_base, second_head = made
    for name in SECONDS_PER_OP:
        # BASE calibrates (a checked prepare), then both sides prepare for timing; HEAD's first is checked.
        assert [r["check"] for r in asked(first_base, name, "prepare")][0] is True
        assert [r["loops"] for r in asked(first_base, name, "prepare")][0] == 0
        assert [r["check"] for r in asked(first_head, name, "prepare")] == [True]
        assert [r["check"] for r in asked(second_base, name, "prepare")] == [False]
        assert [r["check"] for r in asked(second_head, name, "prepare")] == [False]


def test_a_slow_op_takes_one_value_a_round_and_no_warm_cycle(sessions):
    session, made = sessions(2)
    slow, fast = "slow/op/float32/1M", "fast/op/float32/1K"
    assert session.plans[slow].slow and not session.plans[fast].slow
    second_base = made[2]
    assert len(asked(second_base, slow, "cycles")) == 1  # no warm cycle
    assert len(asked(second_base, fast, "cycles")) == 1 + plan.MAX_CYCLES  # a warm cycle, then the cycles
    # Each value of a cheap op starts warm (the other side's op ran in between); a slow one does not.
    assert {tuple(r["rewarm_calls"]) for r in asked(second_base, fast, "cycles")} == {(timeloop.REWARM_CALLS,)}
    assert {tuple(r["rewarm_calls"]) for r in asked(second_base, slow, "cycles")} == {(0,)}
    for label in ("BASE", "HEAD"):
        assert [len(run.values) for run in session.runs[label][slow]] == [1, 1]
        assert [len(run.values) for run in session.runs[label][fast]] == [plan.MAX_CYCLES] * 2


def test_the_re_warm_and_the_values_a_round_are_planned_from_a_warm_value(sessions):
    session, made = sessions(2)
    # A 4 MB copy whose first value is cold (5x) still gets five re-warm calls: planned from the
    # value taken after five calls, not from the first.
    assert session.plans["copy/op/float32/1M"].rewarm_calls == timeloop.REWARM_CALLS
    # An op of 10 ms a call covers the cache refill in one call: one re-warm call, so that a value
    # costs two calls and seven pairs fit in 0.3 s (with five calls it was two pairs).
    mid = session.plans["mid/op/float32/100K"]
    assert mid.rewarm_calls == 1
    assert plan.values_a_round(mid, COMPARE, 2) == int(plan.BENCHMARK_SECONDS / (2 * 0.01 * (mid.loops + 1)))
    first_base = made[0]
    assert [r["rewarm_calls"] for r in asked(first_base, "copy/op/float32/1M", "cycles")][:2] == \
        [[0], [timeloop.REWARM_CALLS]]
    # Every later prepare times the loop the plan calibrated: its loops and its calls an iteration.
    second_base = made[2]
    for name, planned in session.plans.items():
        if not planned.first_call:
            assert [(r["loops"], r["inner_loops"]) for r in asked(second_base, name, "prepare")] == \
                [(planned.loops, planned.inner_loops)]
    # A slow op is not sampled a second time to plan it.
    assert len(asked(first_base, "slow/op/float32/1M", "cycles")) == 1 + 1


def test_an_op_of_seconds_a_call_is_timed_by_the_call_that_prepares_it(sessions):
    session, made = sessions(2)
    decoder = "decoder/op/float32/1M"
    assert session.plans[decoder].first_call
    for process in made[2:]:  # the second round: one timed prepare a side, no value after it
        assert [r["time_call"] for r in asked(process, decoder, "prepare")] == [True]
        assert asked(process, decoder, "cycles") == []
    for label in ("BASE", "HEAD"):
        assert [run.values for run in session.runs[label][decoder]] == [[1.5], [1.5]]
    # One side after the other: each prepare is answered before the other side's is sent.
    prepares = [i for i, (label, do, name) in enumerate(LOG) if do == "prepare" and name == decoder]
    assert all(LOG[i + 1][1] == "read" for i in prepares)


def test_the_sides_alternate_and_swap_who_goes_first_every_round(sessions):
    session, made = sessions(2)
    fast = "fast/op/float32/1K"
    second_round = LOG.index(("BASE", "start", None), 1)
    for log, first in ((LOG[:second_round], "BASE"), (LOG[second_round:], "HEAD")):
        turns = [label for label, do, name in log if do == "cycles" and name == fast][-2 * plan.MAX_CYCLES:]
        assert turns == [first, "HEAD" if first == "BASE" else "BASE"] * plan.MAX_CYCLES


def test_the_run_times_each_benchmark_beside_its_floor_in_one_process(sessions):
    session, made = sessions(2, "run")
    fast, slow, floor = "fast/op/float32/1K", "slow/op/float32/1M", "baseline/tobytes/float32/1M"
    second = made[1]
    # A fast op's round is one request: a warm cycle and the values, each beside one of its floor's.
    (cycles,) = asked(second, fast, "cycles")
    assert cycles["slots"] == [0, 1] and cycles["count"] == 1 + RUN_FAST.values
    assert cycles["rewarm_calls"] == [session.plans[fast].rewarm_calls, session.plans[floor].rewarm_calls]
    # A slow op's one value sits between two of its floor's.
    (cycles,) = asked(second, slow, "cycles")
    assert cycles["slots"] == [1, 0, 1] and cycles["count"] == 1
    run = session.runs["run"][fast][1]
    assert len(run.values) == RUN_FAST.values
    assert run.metadata[FLOOR_RATIO] == pytest.approx(SECONDS_PER_OP[fast] / SECONDS_PER_OP[floor])
    assert FLOOR_RATIO not in session.runs["run"][floor][1].metadata  # the floor, timed alone, has none


def test_the_run_takes_an_op_of_seconds_a_call_from_its_prepare_and_its_floor_after_it(sessions):
    session, made = sessions(2, "run")
    decoder = "decoder/op/float32/1M"
    first, second = made
    # The first round's calibrating prepare is kept: its timed call is the value; no other prepare of it.
    assert [r["loops"] for r in asked(first, decoder, "prepare") if r["slot"] == 0] == [0]
    assert [r["time_call"] for r in asked(second, decoder, "prepare") if r["slot"] == 0] == [True]
    assert [r["slots"] for r in asked(second, decoder, "cycles")] == [[1]]  # the floor's one value
    assert [run.values for run in session.runs["run"][decoder]] == [[1.5], [1.5]]


def test_a_floor_runs_while_a_benchmark_it_serves_does():
    floors = {"a": "f", "b": "f", "f": None}
    assert engine.still_running(["a", "b", "f"], {"a"}, floors) == ["b", "f"]
    assert engine.still_running(["a", "b", "f"], {"a", "b", "f"}, floors) == []
    assert engine.still_running(["b", "f"], {"f"}, floors) == ["b", "f"]


@pytest.mark.parametrize("per_call, calls", [
    (20e-9, timeloop.REWARM_CALLS),  # a 1K op: five calls, next to nothing
    (160e-6, timeloop.REWARM_CALLS),  # a 4 MB copy: five calls cover its cache refill
    (1e-3, 2),  # the calls stop once they cover REWARM_SECONDS
    (2e-3, 1),
    (40e-3, 1),  # one call touches all of its data: not five (a value would cost six calls)
    (timeloop.SLOW_CALL, 0),  # a slow op is not re-warmed
])
def test_the_re_warm_before_a_value_stops_at_a_few_milliseconds_of_calls(per_call, calls):
    assert plan.rewarm_calls(per_call) == calls


def test_an_op_timed_by_its_first_call_needs_no_warm_value():
    planned = plan.plan_op({"loops": 1, "inner_loops": 1, "first_call": 2.0})
    assert planned.first_call and planned.slow and planned.rewarm_calls == 0
    with pytest.raises(ValueError):
        plan.plan_op({"loops": 8, "inner_loops": 10, "first_call": 1e-6})


def test_every_side_times_the_round_s_benchmarks_in_the_same_order(sessions):
    session, made = sessions(1)
    base, head = made
    order = [r["name"] for r in base.requests if r["do"] == "prepare" and r["loops"]]
    assert order == [r["name"] for r in head.requests if r["do"] == "prepare"]
    assert sorted(order) == sorted(SECONDS_PER_OP)


@pytest.fixture
def two_cpus(monkeypatch):
    """A machine of two CPUs, whose pinning is only recorded."""
    pinned = []
    monkeypatch.setattr(engine.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(engine.os, "sched_setaffinity", lambda pid, cpus: pinned.append(set(cpus)))
    return pinned


@pytest.mark.parametrize("kind", ["compare", "run"])
def test_two_rounds_at_once_each_on_a_cpu_of_its_own_with_every_side(sessions, two_cpus, kind):
    session, made = sessions(4, kind, cpus=2)
    sides = len(session.sides)
    assert len(made) == 4 * sides  # every round: a process a side
    names = [n for n in SECONDS_PER_OP if kind == "compare" or not n.startswith("baseline/")]
    cpus_of_rounds = []
    for step in range(2):
        processes = made[step * 2 * sides:(step + 1) * 2 * sides]
        rounds = {}
        for process in processes:
            rounds.setdefault(process.cpu, []).append(process)
        # Two rounds, on the two CPUs, each with one process of every side.
        assert sorted(rounds) == [0, 1]
        assert all(sorted(p.side.label for p in found) == sorted(s.label for s in session.sides)
                   for found in rounds.values())
        # Each round prepared every benchmark for timing, on all of its sides.
        for found in rounds.values():
            for process in found:
                prepared = {r["name"] for r in process.requests if r["do"] == "prepare" and r["slot"] == 0}
                assert set(names) <= prepared or (kind == "run" and set(names) <= prepared | set(FLOORS.values()))
        cpus_of_rounds.append([engine.round_cpu(2 * step, position, 2, [0, 1]) for position in (0, 1)])
    for runs in session.runs.values():  # every benchmark: one run a round on every side, in round order
        assert {name: [run.round for run in found] for name, found in runs.items()} == \
            {name: [0, 1, 2, 3] for name in runs}
    assert set(session.plans) == set(SECONDS_PER_OP)
    # A step's rounds take a CPU each, and the CPUs move on by one every step: each CPU carries even
    # and odd rounds (the parity says which side starts a cycle).
    assert cpus_of_rounds == [[0, 1], [1, 0]]
    # Three CPUs, two rounds a step: every CPU in turn; a step that starts on an odd round (after a
    # look one round away) still puts its rounds on two CPUs.
    assert [[engine.round_cpu(first, p, 2, [0, 1, 2]) for p in (0, 1)] for first in (0, 2, 4, 6)] == \
        [[0, 1], [1, 2], [2, 0], [0, 1]]
    assert len({engine.round_cpu(9, p, 2, [0, 1]) for p in (0, 1)}) == 2
    assert engine.rounds_at_once(5, 64) == 2 and engine.rounds_at_once(2, 1) == 1
    # Each round's coordinating thread is pinned to its own round's CPU, then set free.
    assert {0, 1} <= {min(cpus) for cpus in two_cpus if len(cpus) == 1}


def test_a_round_that_ends_first_leaves_the_other_round_of_its_step_to_finish(sessions, two_cpus, monkeypatch):
    # The step's first round (the calling thread's) finished first and cleared the other round's order:
    # that round lost its last benchmarks, and a look at 16 judged every row on 15 rounds.
    def slow_on_cpu_1(side, cpu=None):
        process = FakeProcess(side, cpu)
        if cpu == 1:
            read = process.read
            process.read = lambda: time.sleep(0.002) or read()
        return process

    monkeypatch.setattr(engine, "Process", slow_on_cpu_1)
    names = list(SECONDS_PER_OP)
    session = Session([Side(label, Path("."), own_serialbench=False) for label in ("BASE", "HEAD")], names)
    engine.time_rounds(session, names, {}, dataclasses.replace(COMPARE, cpus=2), print, 2)
    for runs in session.runs.values():
        assert {name: [run.round for run in found] for name, found in runs.items()} == {name: [0, 1] for name in names}


def test_a_round_alone_keeps_the_coordinator_off_its_workers_cpu(sessions, two_cpus):
    session, made = sessions(2, cpus=1)
    assert [process.cpu for process in made] == [0, 0, 1, 1]
    assert two_cpus == [{1}, {0, 1}, {0}, {0, 1}]


def test_a_shared_op_is_planned_once_when_two_rounds_reach_it_at_once(two_cpus, monkeypatch):
    # A step's two rounds time the same ops: a round that reaches one while the other
    # plans it waits for that plan, and times the op by it instead of planning it again.
    planned = []
    original = plan.plan_op
    monkeypatch.setattr(lanes.plan_rule, "plan_op", lambda *args: planned.append(args) or original(*args))
    locks = engine.PlanLocks()
    assert locks("a") is locks("a") and locks("a") is not locks("b")
    floor = "baseline/tobytes/float32/1M"
    session = Session([Side("run", Path("."), own_serialbench=False)], list(FLOORS))
    other_round = locks(floor)
    other_round.acquire()  # the other round is planning the floor
    planning = threading.Thread(target=lanes.plan_unplanned, args=(
        session, [FakeProcess(session.sides[0])], lanes.lanes_of("copy/op/float32/1M", 1, FLOORS), RUN_FAST, locks))
    planning.start()
    while not planned:  # this round plans its own benchmark, then waits on the floor
        time.sleep(0.001)
    session.plans[floor] = original({"loops": 1, "inner_loops": 1, "first_call": None}, 160e-6)
    other_round.release()
    planning.join()
    assert len(planned) == 1  # its benchmark's plan only: the floor's was the other round's


@pytest.mark.parametrize("interrupted", [False, True])
def test_a_worker_that_dies_fails_its_benchmark_unless_ctrl_c_stopped_it(monkeypatch, interrupted):
    # Ctrl-C reaches the workers too: one that dies of it, in a round whose coordinating thread has
    # not yet heard of the interrupt, must not report its benchmark as failed.
    class Dying(FakeProcess):
        def read(self):
            if self.requests[-1]["do"] == "cycles":
                raise WorkerFailed(f"{self.side.label}: worker exited", interrupted=interrupted)
            return super().read()

    monkeypatch.setattr(engine, "Process", Dying)
    name = "fast/op/float32/1K"
    session = Session([Side(label, Path("."), own_serialbench=False) for label in ("BASE", "HEAD")], [name])
    engine.time_rounds(session, [name], {}, dataclasses.replace(COMPARE, cpus=1), print)
    assert (name in session.failed) is not interrupted


@pytest.mark.parametrize("per_call, looked_last_at", [
    (1e-6, 64),  # a cheap op: its rounds take at most plan.BENCHMARK_SECONDS, never near the budget
    (0.2, 64),  # prepare's call and one value a round: 64 x 0.4 s = 25.6 s a side
    (0.3, 32),  # 64 x 0.6 s is over 30 s
    (0.5, 32),  # timed by its first call: 64 x 0.5 s is over 30 s, 32 x 0.5 s is not
    (1.5, 16),
    (10.0, 8),  # over the budget at the first look: judged there all the same
])
def test_a_benchmark_s_last_look_is_the_last_its_budget_pays_for(per_call, looked_last_at):
    answer = {"loops": max(1, int(0.002 / per_call)), "inner_loops": 1}
    if per_call >= timeloop.TIMED_FIRST_CALL:
        answer["first_call"] = per_call
    planned = plan.plan_op(answer, per_call)
    assert COMPARE.budget == 30
    assert COMPARE.looks[plan.last_look(planned, COMPARE, 2)] == looked_last_at
    assert plan.last_look(planned, dataclasses.replace(COMPARE, budget=None), 2) == len(COMPARE.looks) - 1
    assert plan.round_seconds(planned, COMPARE, 2) <= 2 * per_call + plan.BENCHMARK_SECONDS


def test_a_session_judges_a_benchmark_at_the_look_its_budget_ends_and_no_later(monkeypatch):
    monkeypatch.setattr(engine, "Process", FakeProcess)
    names = list(SECONDS_PER_OP)  # the decoder, 1.5 s a call: its last look is at 16 rounds
    sides = [Side(label, Path("."), own_serialbench=False) for label in ("BASE", "HEAD")]
    asked, left = [], []

    def settle(session, running, look_index, final):
        asked.append((session.rounds, sorted(final)))
        return set(final)  # nothing else settles

    session = engine.run_session(sides, names, dataclasses.replace(COMPARE, cpus=1), settle, print,
                                 progress=lambda done: left.append((done.round, done.rounds_left)), rng=IN_ORDER)
    decoder = "decoder/op/float32/1M"
    assert asked == [(8, []), (16, [decoder]), (32, []), (64, sorted(set(names) - {decoder}))]
    assert session.budget_rounds == {decoder: 16}
    assert session.rounds_of(decoder) == 16 and session.rounds == 64
    assert left[0] == (1, 63) and dict(left)[16] == 48
