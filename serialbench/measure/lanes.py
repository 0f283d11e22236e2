"""One benchmark's round in its lanes: its plan (made the first time), its prepares and its values.

A lane is a worker process and a slot in it: compare's sides each time the benchmark in a process of
their own; the run times it beside its memcpy floor, two slots of one process. The engine
(measure/engine.py) calls `time_benchmark` for each benchmark of a round, on the processes of the
round that takes it; the plan rule is measure/plan.py.
"""

from __future__ import annotations

import contextlib
import math
import random
import statistics
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from serialbench.inside import timeloop
from serialbench.measure import plan as plan_rule
from serialbench.measure.process import Process
from serialbench.measure.session import FLOOR_RATIO, Run, Session, Settings


@dataclass(frozen=True)
class Lane:
    process: int  # the round's process, by its side's index
    slot: int
    name: str


class CaseError(Exception):
    """A benchmark that cannot be timed this round (a prepare failed, a value was not a time)."""


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
                   round_index: int, planning: Callable[[str], threading.Lock] | None = None) -> list[Run]:
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
                   settings: Settings, planning: Callable[[str], threading.Lock] | None = None) -> dict[int, dict]:
    """Plan each op of the lanes that has no plan yet, on the first lane that times it: a calibrating
    prepare (its round trip checked), then, unless its own call was its value, a cold value and a warm
    one. Returns the prepares kept for timing, by lane: a lane alone with its op keeps its own; lanes
    that share an op drop it and prepare together (`prepare` says why)."""
    kept: dict[int, dict] = {}
    for index, lane in enumerate(lanes):
        if lane.name in session.plans or any(other.name == lane.name for other in lanes[:index]):
            continue
        with planning(lane.name) if planning else contextlib.nullcontext():
            if lane.name in session.plans:  # another round of the batch planned it meanwhile
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
