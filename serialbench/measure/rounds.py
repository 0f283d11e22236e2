"""The run's rounds: one fresh worker per round times every benchmark still short of its precision.

compare's schedule (measure/schedule.py) with one side. A round starts one worker process
(measure/lockstep_worker.py), pinned to one CPU, another CPU each round, with a randomised heap;
it times each benchmark still running, in an order shuffled per round, and exits. So each benchmark
gets one process per round, and its processes are spread over the whole run instead of sitting in a
window of seconds: the machine's drift over minutes falls on every row alike, and start-up (Python,
numpy, the cases' libraries) is paid once per round, not once per benchmark and process.

In a round, a benchmark and its memcpy floor (baseline/tobytes of its input and tier) are prepared
in the same process, warmed up by a first cycle that is not recorded, and their values alternate,
a value of one then a value of the other, each after a few untimed calls that bring back its data
(the other op evicted it): the round's multiple of the floor is the median over its cycles of
log(op / floor), two values milliseconds apart, as compare's HEAD/BASE. The floor is also timed as
a benchmark of its own. An op slower than timeloop.SLOW_CALL a call takes one value a round, warmed
by prepare's own call, between two values of its floor; an op of timeloop.TIMED_FIRST_CALL or more
(seconds a call) is not called again: prepare's own call, timed, is its value, and its floor's follows.

After each round, `settle` decides which benchmarks stop (commands/run.py: those within the
precision, from the fewest rounds that give an interval on); the cap, `--max-time` and Ctrl-C end
the others.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from serialbench.measure import schedule, timeloop
from serialbench.measure.schedule import Process, Run, Session, WorkerFailed, check_hello
from serialbench.measure.sides import Side

FLOOR_RATIO = "serialbench_floor_ratio"  # a run's exp(median over its cycles of log(op / floor))


@dataclass(frozen=True)
class OpPlan:
    """How one op is timed in every round: its loops calibrated in the first."""

    loops: int
    inner_loops: int
    slow: bool  # slower than timeloop.SLOW_CALL a call: one value a round, no warm-up beyond prepare's call
    rewarm_calls: int  # untimed calls before each value (timeloop.rewarm_calls)
    first_call: bool = False  # timeloop.TIMED_FIRST_CALL or slower: prepare's own call is the round's value


@dataclass(frozen=True)
class Settings:
    """How a run times: the rule's rounds, and what each round takes of each benchmark."""

    min_rounds: int  # before any benchmark may stop
    max_rounds: int  # the cap
    cycles: int  # values of a benchmark (each beside one of its floor) per round
    min_time: float = schedule.LOCKSTEP_MIN_TIME  # seconds per value
    loops: int | None = None  # given: no calibration
    max_seconds: float | None = None


@dataclass
class Progress:
    """What the caller hears after each round."""

    round: int
    seconds: float  # the round's wall time
    running: int  # benchmarks timed in it
    spent: float  # wall time so far


def run_rounds(side: Side, names: Sequence[str], floors: Mapping[str, str | None], settings: Settings,
               settle: Callable[[Session, list[str], bool], set[str]], say: Callable[[str], None],
               progress: Callable[[Progress], None] = lambda progress: None,
               rng: random.Random | None = None,
               checkpoint: Callable[[Session], None] = lambda session: None) -> Session:
    """Rounds over the benchmarks not yet settled, until none is left, the cap, or the time is up.

    floors: name -> the floor timed beside it (None: the floor itself, or no floor in the selection).
    After each round from settings.min_rounds on, `settle(session, running, final)` returns the names
    that stop; `final` (the cap, the time limit, an interrupt) settles every one. A floor keeps running
    while a benchmark it serves does. `checkpoint(session)` is called after every round, so that the
    caller can keep what is measured on disk while the session goes on.
    """
    session = Session([side], list(names))
    rng = rng or random.Random(schedule.seed())
    running = list(names)
    started = time.monotonic()
    try:
        while running:
            round_started = time.monotonic()
            order = list(running)
            rng.shuffle(order)
            _time_round(session, order, floors, settings, say)
            running = [name for name in running if name not in session.failed]
            took = time.monotonic() - round_started
            spent = time.monotonic() - started
            progress(Progress(session.rounds, took, len(order), spent))
            out_of_time = settings.max_seconds is not None and spent + took > settings.max_seconds
            final = session.rounds >= settings.max_rounds or out_of_time
            if out_of_time and session.rounds < settings.max_rounds:
                say(f"time is up ({settings.max_seconds / 60:g} min): {len(running)} benchmarks end with the "
                    "processes they have")
            if session.rounds >= settings.min_rounds or final:
                running = _still_running(running, settle(session, list(running), final), floors)
            if running:
                checkpoint(session)
    except KeyboardInterrupt:
        session.interrupted = True
        timed = [name for name in running if session.rounds_of(name)]
        if timed:
            settle(session, timed, True)
    session.seconds = time.monotonic() - started
    return session


def _still_running(running: list[str], settled: set[str], floors: Mapping[str, str | None]) -> list[str]:
    """The benchmarks that go on: those not settled, and the floors that one of them still needs."""
    going = [name for name in running if name not in settled]
    needed = {floors.get(name) for name in going}
    return [name for name in running if name in going or name in needed]


def _time_round(session: Session, order: Sequence[str], floors: Mapping[str, str | None], settings: Settings,
                say: Callable[[str], None]) -> None:
    round_index = session.rounds
    cpu = schedule._round_cpu(round_index)
    own_cpus = os.sched_getaffinity(0) if cpu is not None else set()
    if len(own_cpus) > 1:  # this process, which only waits, stays off the worker's CPU
        os.sched_setaffinity(0, own_cpus - {cpu})
    side = session.sides[0]
    process = None
    current = None
    try:
        process = Process(side, cpu)
        check_hello(side, process.hello)
        session.hello.setdefault(side.label, process.hello)
        for name in order:
            if name in session.failed:
                continue
            current = name
            try:
                run = _time_benchmark(session, process, name, floors.get(name), settings, round_index)
            except schedule._CaseError as exc:
                schedule._fail(session, name, str(exc), lambda line: say(line.replace("not compared", "not timed")))
                continue
            session.runs[side.label].setdefault(name, []).append(run)
            current = None
    except WorkerFailed as exc:
        # The worker died (a crash in a case's C code): the benchmark it was on is dropped, the round's
        # finished benchmarks are kept, and the next round starts a new worker.
        if current:
            schedule._fail(session, current, str(exc), lambda line: say(line.replace("not compared", "not timed")))
    finally:
        if process is not None:
            process.close()
        if len(own_cpus) > 1:
            os.sched_setaffinity(0, own_cpus)
    session.rounds = round_index + 1


def _prepare(process: Process, name: str, plan: OpPlan | None, settings: Settings, check: bool, slot: int = 0,
             time_call: bool = False) -> dict:
    """Prepare `name` in `slot`: with its plan's loops, or calibrating them (or with --loops)."""
    loops, inner = (plan.loops, plan.inner_loops) if plan else (settings.loops or 0, None)
    answer = process.ask({"do": "prepare", "name": name, "loops": loops, "inner_loops": inner,
                          "min_time": settings.min_time, "check": check, "slot": slot, "time_call": time_call})
    if "error" in answer:
        process.ask({"do": "release"})
        raise schedule._CaseError(answer["error"])
    return answer


def _plan(session: Session, process: Process, name: str, answer: dict, settings: Settings) -> OpPlan:
    """The op's plan, made the first time it is timed: prepare's own call, when it was timed and lasted
    timeloop.TIMED_FIRST_CALL or more, or else one value, not recorded, gives the cost of a call (at 1M
    a JSON decoder takes seconds a call)."""
    plan = session.plans.get(name)
    if plan is None:
        first_call = answer.get("first_call")
        if first_call is not None and first_call >= timeloop.TIMED_FIRST_CALL:
            per_call = first_call
        else:
            per_call = process.ask({"do": "sample", "slot": answer["slot"]})["seconds"]
        plan = session.plans[name] = OpPlan(answer["loops"], answer["inner_loops"], per_call >= timeloop.SLOW_CALL,
                                            timeloop.rewarm_calls(per_call), per_call >= timeloop.TIMED_FIRST_CALL)
    return plan


def _time_benchmark(session: Session, process: Process, name: str, floor: str | None, settings: Settings,
                    round_index: int) -> Run:
    known = session.plans.get(name)
    # Prepare's own call is timed in the first round (to plan the op) and for an op of seconds a call.
    time_call = known is None or known.first_call
    answer = _prepare(process, name, known, settings, check=known is None, time_call=time_call)
    plan = _plan(session, process, name, {**answer, "slot": 0}, settings)
    first_call = answer.get("first_call") if plan.first_call else None
    # The first cycle of a fast op warms it up and is not recorded, as compare's warm cycle: prepare's
    # own calls and a value of each op, each value after its re-warm calls. (The plain loop's 20 ms of
    # warm-up, timeloop.WARM_UP_SECONDS, for each op would be a third of a --fast round.)
    warm_cycles = 0 if plan.slow else 1
    cycles = 1 if plan.slow else settings.cycles
    slots, rewarm = [0], [plan.rewarm_calls]
    if floor is not None:
        known_floor = session.plans.get(floor)
        floor_answer = _prepare(process, floor, known_floor, settings, check=False, slot=1)
        floor_plan = _plan(session, process, floor, {**floor_answer, "slot": 1}, settings)
        # A slow op's value sits between two of the floor's; a fast op's alternates with one.
        slots = [1, 0, 1] if plan.slow else [0, 1]
        rewarm = [plan.rewarm_calls, floor_plan.rewarm_calls]
    if first_call is not None:  # the op's value was taken: the floor's follows it
        slots, values = [0], [[first_call]]
        if floor is not None:
            slots.append(1)
            values += process.ask({"do": "cycles", "count": 1, "slots": [1], "rewarm_calls": rewarm})["values"]
    else:
        values = process.ask({"do": "cycles", "count": warm_cycles + cycles, "slots": slots,
                              "rewarm_calls": rewarm})["values"]
        values = [found[warm_cycles:] for found in values]
    process.ask({"do": "release"})
    if not all(math.isfinite(v) and v > 0 for found in values for v in found):
        raise schedule._CaseError(f"a value was not a positive time ({values})")
    own = [value for slot, found in zip(slots, values) if slot == 0 for value in found]
    metadata = {**answer["metadata"], "loops": plan.loops, "serialbench_round": round_index}
    if plan.inner_loops > 1:
        metadata["inner_loops"] = plan.inner_loops
    startup = process.hello.get("startup_s")
    if startup is not None:
        metadata["serialbench_worker_startup_s"] = startup
    if floor is not None:
        metadata[FLOOR_RATIO] = floor_ratio(slots, values)
    return Run(round_index, own, metadata)


def floor_ratio(slots: Sequence[int], values: Sequence[Sequence[float]]) -> float:
    """exp(median over the cycles of log(op / floor)), the floor's values of a cycle by their median."""
    logs = []
    for cycle in range(len(values[0])):
        op = [found[cycle] for slot, found in zip(slots, values) if slot == 0]
        floor = [found[cycle] for slot, found in zip(slots, values) if slot == 1]
        logs.append(math.log(statistics.median(op) / statistics.median(floor)))
    return math.exp(statistics.median(logs))
