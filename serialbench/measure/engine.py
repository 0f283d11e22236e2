"""The session engine: rounds of fresh worker processes timing every benchmark in lanes, for every command.

A lane is a worker process and a slot in it. Each round starts, on each of its tracks, one process per
side (measure/worker.py), all alive at once, with a randomised heap, so that process layout is sampled
as noise over the rounds, not frozen into a bias; start-up (imports, numpy, a case's libraries) is
paid once a side a track a round, not once a benchmark. A track's processes share one CPU; with
Settings.cpus of 2 or more, that many tracks (one a CPU) take the round's benchmarks from one order,
shuffled per round, each the next when done with one. Each benchmark's lanes prepare it and take
values in turn, a cycle at a time, milliseconds apart, on their track's CPU: the machine's speed,
which here changes within a second, is nearly the same for the values of a cycle.
- compare, sweep, bisect, calibrate and check-harness's compare way: a lane per side, every side
  timing the same benchmark; a side's values of a round are a Run of that side.
- the run: one side, two lanes in its one process, the benchmark (slot 0) and its memcpy floor
  (slot 1); the benchmark's Run records exp(median over its cycles of log(op / floor)) as FLOOR_RATIO,
  two values milliseconds apart, as compare's HEAD/BASE. The floor is also timed as a benchmark of its
  own, and keeps running while a benchmark it serves does.
How each op is timed (loops, re-warm calls, slow, timed by its first call) is its plan, made once
by measure/plan.py. After the rounds of each look, `settle` (the command's verdicts or precision rule)
says which benchmarks stop.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from serialbench.measure import plan as plan_rule
from serialbench.measure import timeloop
from serialbench.measure.process import Process, WorkerFailed
from serialbench.measure.session import FLOOR_RATIO, RoundDone, Run, Session, Settings
from serialbench.measure.sides import Side


@dataclass(frozen=True)
class Lane:
    process: int  # the round's process, by its side's index
    slot: int
    name: str


class CaseError(Exception):
    """A benchmark that cannot be timed this round (a prepare failed, a value was not a time)."""


def run_session(sides: Sequence[Side], names: Sequence[str], settings: Settings,
                settle: Callable[[Session, list[str], int, bool], set[str]], say: Callable[[str], None],
                floors: Mapping[str, str | None] | None = None,
                progress: Callable[[RoundDone], None] = lambda done: None,
                checkpoint: Callable[[Session], None] = lambda session: None,
                rng: random.Random | None = None) -> Session:
    """Rounds over the benchmarks still running until none is left, the last look, or the time is up.

    After the rounds of each look, `settle(session, running, look_index, final)` returns the names
    that stop; running out of time, or the last look, makes it `final` (every one stops). floors (the
    run, one side): name -> the floor timed beside it, None for none; a floor keeps running while a
    benchmark it serves does. `checkpoint(session)` follows every round that leaves work to do.
    """
    session = Session(sides, list(names))
    floors = floors or {}
    rng = rng or random.Random()  # seeded from os.urandom
    running, look_index, started = list(names), 0, time.monotonic()
    looks = settings.looks
    try:
        while running and look_index < len(looks):
            round_started = time.monotonic()
            order = list(running)
            rng.shuffle(order)
            time_round(session, order, floors, settings, say)
            running = [name for name in running if name not in session.failed]
            took, spent = time.monotonic() - round_started, time.monotonic() - started
            time_up = settings.max_seconds is not None and spent + took > settings.max_seconds
            before = len(running)
            if session.rounds >= looks[look_index] or time_up:
                final = time_up or look_index == len(looks) - 1
                if time_up and look_index < len(looks) - 1:
                    session.final_rounds = session.rounds
                running = still_running(running, settle(session, list(running), look_index, final), floors)
                look_index += 1
            progress(RoundDone(session.rounds, took, len(order), spent, before, len(running),
                               max(looks[-1] - session.rounds, 0) if look_index < len(looks) else 0, time_up))
            if time_up:
                break
            if running:
                checkpoint(session)
    except KeyboardInterrupt:
        session.interrupted = True
        say(f"interrupted after {session.rounds} rounds: the benchmarks still running are judged on those")
        timed = [name for name in running if session.rounds_of(name)]
        if timed and look_index < len(looks):
            session.final_rounds = min(session.rounds_of(name) for name in timed)
            settle(session, timed, look_index, True)
    session.seconds = time.monotonic() - started
    return session


def still_running(running: list[str], settled: set[str], floors: Mapping[str, str | None]) -> list[str]:
    """The benchmarks that go on: those not settled, and the floors that one of them still needs."""
    going = [name for name in running if name not in settled]
    needed = {floors.get(name) for name in going}
    return [name for name in running if name in going or name in needed]


def round_cpus(round_index: int, tracks: int) -> list[int | None]:
    """The CPU of each of a round's tracks: a track is one process a side, all on its one CPU, timing
    the round's benchmarks one at a time; `tracks` of them (at most one a CPU) share the round's
    order, each taking the next benchmark when it is done with one. Every track moves on by a CPU
    each round, so that a CPU's own speed is spread over the benchmarks, not given to some of them.

    A benchmark's sides share their track's CPU: two processes on two CPUs of a VM time at the speeds
    of two CPUs, which differ for seconds at a time (here the two CPUs' speeds are uncorrelated,
    docs/findings/two-cpus.md); in an A/A comparison at 1M, pinning both sides to one CPU took the
    spread of the round estimates from 4-16% down to 2-9%."""
    if not hasattr(os, "sched_getaffinity"):
        return [None]
    cpus = sorted(os.sched_getaffinity(0))
    return [cpus[(round_index + track) % len(cpus)] for track in range(max(1, min(tracks, len(cpus))))]


def time_round(session: Session, order: Sequence[str], floors: Mapping[str, str | None], settings: Settings,
               say: Callable[[str], None]) -> None:
    """One round over `order`: new workers, every benchmark in its lanes, on settings.cpus tracks at once."""
    cpus = round_cpus(session.rounds, settings.cpus)
    round_ = Round(session, deque(order), floors, settings, say, PlanLocks(), threading.Event())
    others = [threading.Thread(target=time_track, args=(round_, cpu, False), daemon=True) for cpu in cpus[1:]]
    for thread in others:
        thread.start()
    try:
        time_track(round_, cpus[0], alone=not others)
    except BaseException:
        round_.stopping.set()  # Ctrl-C: the other tracks' workers got it too; no benchmark of theirs fails for it
        raise
    finally:
        round_.order.clear()
        for thread in others:
            thread.join()
        session.rounds += 1


@dataclass
class Round:
    """What a round's tracks share: the benchmarks not yet taken, and a lock for planning an op."""

    session: Session
    order: deque
    floors: Mapping[str, str | None]
    settings: Settings
    say: Callable[[str], None]
    planning: PlanLocks
    stopping: threading.Event


class PlanLocks:
    """A lock an op: two tracks never plan the same op at once (the run's floors are shared)."""

    def __init__(self):
        self.locks: dict[str, threading.Lock] = {}
        self.lock = threading.Lock()

    def __call__(self, name: str) -> threading.Lock:
        with self.lock:
            return self.locks.setdefault(name, threading.Lock())


def time_track(round_: Round, cpu: int | None, alone: bool) -> None:
    """One track: its processes on `cpu`, timing the round's next benchmark until none is left.

    Alone, the thread that coordinates them stays off their CPU; beside other tracks it is pinned to
    its own track's CPU, where it runs only while its workers wait for it, never while they time."""
    session = round_.session
    own_cpus = os.sched_getaffinity(0) if cpu is not None else set()
    if len(own_cpus) > 1:
        os.sched_setaffinity(0, own_cpus - {cpu} if alone else {cpu})  # 0: this thread (Linux)
    processes: list[Process] = []
    current = None
    try:
        for side in session.sides:
            processes.append(Process(side, cpu))
            session.hello.setdefault(side.label, processes[-1].hello)
        while round_.order:
            try:
                name = current = round_.order.popleft()
            except IndexError:  # another track took the last one
                break
            if name in session.failed:
                continue
            try:
                runs = time_benchmark(session, processes, lanes_of(name, len(processes), round_.floors),
                                      round_.settings, session.rounds, round_.planning)
            except CaseError as exc:
                fail(session, name, str(exc), round_.say)
                continue
            for side, run in zip(session.sides, runs):
                session.runs[side.label].setdefault(name, []).append(run)
            current = None
    except WorkerFailed as exc:
        # A worker died (a crash in a case's C code): the benchmark it was on is dropped, the round's
        # finished benchmarks are kept, and the next round starts new workers.
        if current and not round_.stopping.is_set():
            fail(session, current, str(exc), round_.say)
    finally:
        for process in processes:
            process.close()
        if len(own_cpus) > 1:
            os.sched_setaffinity(0, own_cpus)


def lanes_of(name: str, processes: int, floors: Mapping[str, str | None]) -> list[Lane]:
    """A benchmark's lanes: beside its floor in the one process (the run), or one a side."""
    floor = floors.get(name)
    if floor is not None:
        return [Lane(0, 0, name), Lane(0, 1, floor)]
    return [Lane(index, 0, name) for index in range(processes)]


def beside_floor(lanes: Sequence[Lane]) -> bool:
    """Whether the lanes are the run's benchmark and its floor (else they are sides of one benchmark)."""
    return len(lanes) == 2 and lanes[0].name != lanes[1].name


def cycle_order(lanes: Sequence[Lane], slow: bool, round_index: int) -> list[int]:
    """The lanes' turns in a cycle, as indices of `lanes`.

    Beside a floor: the benchmark, then its floor; a slow op's one value sits between two of its
    floor's. Sides take their values in a fixed order, A B A B ..., so that every value follows a
    value of another process: a process asked twice in a row was measured here 15-20% slower or faster
    on its second value (at 1M), a bias that a rotating order turns into noise of that size. Two sides
    swap who starts each round (the looks fall on even rounds: balanced). Three or more (calibrate)
    take a new order each round: in a fixed rotation each side always follows the same neighbour, and
    the A/A pair came out 0.5-1.4% apart, A following the slowed-down variant."""
    if beside_floor(lanes):
        return [1, 0, 1] if slow else [0, 1]
    order = list(range(len(lanes)))
    if len(lanes) == 2:
        return order[round_index % 2:] + order[:round_index % 2]
    random.Random(f"{round_index}/{lanes[0].name}").shuffle(order)
    return order


def time_benchmark(session: Session, processes: Sequence[Process], lanes: Sequence[Lane], settings: Settings,
                   round_index: int, planning: PlanLocks | None = None) -> list[Run]:
    """One round of one benchmark in its lanes: a Run for each lane that records (every side's; the
    run's benchmark, not its floor)."""
    try:
        answers = plan_unplanned(session, processes, lanes, settings, planning)
        plans = [session.plans[lane.name] for lane in lanes]
        order = cycle_order(lanes, plans[0].slow, round_index)
        if plans[0].first_call:
            entries, values = time_first_calls(session, processes, lanes, order, answers, settings)
        else:
            answers.update(prepare(session, processes, lanes, [i for i in order if i not in answers], settings))
            entries, values = time_cycles(processes, lanes, order, plans, settings)
    finally:
        for index in sorted({lane.process for lane in lanes}):
            processes[index].ask({"do": "release"})
    if not all(math.isfinite(v) and v > 0 for found in values for v in found):
        raise CaseError(f"a value was not a positive time ({values})")
    recorded = [0] if beside_floor(lanes) else list(range(len(lanes)))
    runs = []
    for index in recorded:
        own = [value for entry, found in zip(entries, values) if entry == index for value in found]
        metadata = run_metadata(answers[index], plans[index], processes[lanes[index].process], round_index)
        if beside_floor(lanes):
            metadata[FLOOR_RATIO] = floor_ratio(entries, values)
        runs.append(Run(round_index, own, metadata))
    return runs


def plan_unplanned(session: Session, processes: Sequence[Process], lanes: Sequence[Lane],
                   settings: Settings, planning: PlanLocks | None = None) -> dict[int, dict]:
    """Plan each op of the lanes that has no plan yet, on the first lane that times it: a calibrating
    prepare (its round trip checked), then, unless its own call was its value, a cold value and a warm
    one. Returns the prepares kept for timing, by lane: a lane alone with its op keeps its own; lanes
    that share an op drop it and prepare together (`prepare` says why)."""
    kept: dict[int, dict] = {}
    for index, lane in enumerate(lanes):
        if lane.name in session.plans or any(other.name == lane.name for other in lanes[:index]):
            continue
        with planning(lane.name) if planning else contextlib.nullcontext():
            if lane.name in session.plans:  # another track planned it meanwhile
                continue
            process = processes[lane.process]
            answer = prepare(session, processes, lanes, [index], settings, time_call=True)[index]
            warm = None
            if not plan_rule.timed_by_its_first_call(answer):
                cold = value(process, lane.slot, 0)
                warm = cold if cold >= timeloop.SLOW_CALL else value(process, lane.slot, timeloop.REWARM_CALLS)
            session.plans[lane.name] = plan_rule.plan_op(answer, warm)
        if sum(other.name == lane.name for other in lanes) == 1:
            kept[index] = answer
        else:
            process.ask({"do": "release"})
    return kept


def prepare(session: Session, processes: Sequence[Process], lanes: Sequence[Lane], indices: Sequence[int],
            settings: Settings, time_call: bool = False) -> dict[int, dict]:
    """The lanes of `indices` prepare their ops, all at once, with their plans' loops (or calibrating
    them, or --loops); a side checks an op's round trip the first time it prepares it. At once, the
    sides' allocations interleave (they share one CPU): with the sides preparing one after the other,
    the side that prepared second was faster for the whole round, by 2-10% at 1M in an A/A comparison,
    as if it got the better physical memory."""
    for index in indices:
        lane, process = lanes[index], processes[lanes[index].process]
        plan = session.plans.get(lane.name)
        check = (process.side.label, lane.name) not in session.checked
        session.checked.add((process.side.label, lane.name))
        loops, inner = (plan.loops, plan.inner_loops) if plan else (settings.loops or 0, None)
        process.send({"do": "prepare", "name": lane.name, "slot": lane.slot, "loops": loops, "inner_loops": inner,
                      "min_time": settings.min_time, "check": check, "time_call": time_call})
    answers = {index: processes[lanes[index].process].read() for index in indices}
    errors = [(f"{processes[lanes[index].process].side.label}: " if len(session.sides) > 1 else "") + answer["error"]
              for index, answer in answers.items() if "error" in answer]
    if errors:
        raise CaseError("; ".join(errors))
    return answers


def value(process: Process, slot: int, rewarm_calls: int) -> float:
    """One value of the op in `slot`, after `rewarm_calls` untimed calls."""
    return ask_cycles(process, 1, [slot], [rewarm_calls])[0][0]


def ask_cycles(process: Process, count: int, slots: list[int], rewarm_calls: list[int]) -> list[list[float]]:
    answer = process.ask({"do": "cycles", "count": count, "slots": slots, "rewarm_calls": rewarm_calls})
    if "error" in answer:
        raise CaseError(answer["error"])
    return answer["values"]


def time_cycles(processes: Sequence[Process], lanes: Sequence[Lane], order: list[int], plans,
                settings: Settings) -> tuple[list[int], list[list[float]]]:
    """The round's values, each lane's after its re-warm calls, a warm cycle first where the plan
    takes one: (the lane of each entry of a cycle, each entry's values)."""
    values_a_round = plan_rule.values_a_round(plans[0], settings, len(lanes))
    warm = 1 if plan_rule.warm_cycle(values_a_round) else 0
    rewarm = [plans[index].rewarm_calls for index in order]
    if len({lanes[index].process for index in order}) == 1:  # one process: the whole round in one request
        found = ask_cycles(processes[lanes[order[0]].process], warm + values_a_round,
                           [lanes[index].slot for index in order], rewarm)
        return order, [values[warm:] for values in found]
    found = [[] for _ in order]
    for cycle in range(warm + values_a_round):
        for entry, index in enumerate(order):
            taken = value(processes[lanes[index].process], lanes[index].slot, rewarm[entry])
            if cycle >= warm:
                found[entry].append(taken)
    return order, found


def time_first_calls(session: Session, processes: Sequence[Process], lanes: Sequence[Lane], order: list[int],
                     answers: dict[int, dict], settings: Settings) -> tuple[list[int], list[list[float]]]:
    """An op of seconds a call (a KServe decoder at 1M: 0.8-2.6 s): each lane's value is the call that
    prepares it, timed, one lane after the other in the cycle's order (a floor beside it takes one value
    after it). Calling it again for a value had doubled its cost: two such decoders took a third of a
    round of triton-binary/*."""
    values = []
    for index in order:
        lane, process = lanes[index], processes[lanes[index].process]
        plan = session.plans[lane.name]
        if index not in answers:
            answers.update(prepare(session, processes, lanes, [index], settings, time_call=plan.first_call))
        if plan.first_call:
            values.append([answers[index]["first_call"]])
        else:
            values.append([value(process, lane.slot, plan.rewarm_calls)])
    return order, values


def run_metadata(answer: dict, plan, process: Process, round_index: int) -> dict:
    metadata = {**answer["metadata"], "loops": plan.loops, "serialbench_round": round_index,
                "serialbench_rewarm_calls": plan.rewarm_calls}
    if plan.inner_loops > 1:
        metadata["inner_loops"] = plan.inner_loops
    startup = process.hello.get("startup_s")
    if startup is not None:
        metadata["serialbench_worker_startup_s"] = startup
    return metadata


def floor_ratio(entries: Sequence[int], values: Sequence[Sequence[float]]) -> float:
    """exp(median over the cycles of log(op / floor)), the floor's values of a cycle by their median."""
    logs = []
    for cycle in range(len(values[0])):
        op = [found[cycle] for entry, found in zip(entries, values) if entry == 0]
        floor = [found[cycle] for entry, found in zip(entries, values) if entry != 0]
        logs.append(math.log(statistics.median(op) / statistics.median(floor)))
    return math.exp(statistics.median(logs))


def fail(session: Session, name: str, why: str, say: Callable[[str], None]) -> None:
    session.failed[name] = why
    for per_side in session.runs.values():
        per_side.pop(name, None)
    say(f"{name}: not timed ({why})")
