"""The plan rule: how one op is timed in every round of every command, from its first prepare and a warm value.

An op is planned once per session, the first time it is timed, from two things: the answer of the
prepare that calibrated its loops (the worker doubles them until a value takes --min-time, and
unrolls ten calls an iteration at the cheap tiers: inside/timeloop.py), and the seconds of one call
measured warm (the worker's value taken after REWARM_CALLS untimed calls: a fresh process's first
value is cold, a 4 MB copy's 770 us where warm it takes 160 us, and a re-warm planned from the cold
figure came out too short). The run and compare both plan here, so an op is timed the same way by
every command, and a rule changed here changes for all of them.
"""

from __future__ import annotations

import math

from serialbench.inside import timeloop
from serialbench.measure.session import Plan, Settings

# compare's values a round: as many cycles as fit in BENCHMARK_SECONDS for all its lanes together, at
# most MAX_CYCLES; an op that fills fewer than MIN_CYCLES gets no warm cycle (prepare's call warmed it).
# Twelve, not the fifty that fit: a round's estimate varies mostly with its pair of processes, not with
# its cycles, so more cycles buy little precision for their cost (docs/findings/two-cpus.md).
BENCHMARK_SECONDS = 0.3
MIN_CYCLES, MAX_CYCLES = 3, 12


def rewarm_calls(per_call: float) -> int:
    """Untimed calls before each value of an op of `per_call` seconds a call.

    In a cycle another op runs between two values of this one on the same CPU (the other side's, or
    the run's memcpy floor) and evicts its data: a 4 MB copy's first six calls after it took 770,
    568, 343, 211, 169 and 150 us, where alone it took 160-176 us. The calls stop once they cover
    REWARM_SECONDS (the refill of the caches, about 2 ms over those first five calls), at least one,
    at most REWARM_CALLS; an op slower than SLOW_CALL a call is not re-warmed: the transient is a
    small share of it, and a call more would double its cost."""
    if per_call >= timeloop.SLOW_CALL:
        return 0
    return max(1, min(timeloop.REWARM_CALLS, math.ceil(timeloop.REWARM_SECONDS / max(per_call, 1e-12))))


def timed_by_its_first_call(answer: dict) -> bool:
    """Whether the calibrating prepare's own call (its answer's "first_call") took TIMED_FIRST_CALL or
    more: such an op is not called again, to plan it or for a value."""
    return timeloop.timed_by_its_first_call(answer.get("first_call"))


def plan_op(answer: dict, warm_per_call: float | None = None) -> Plan:
    """The op's plan from its calibrating prepare's answer ({"loops", "inner_loops", "first_call"}) and
    a warm call's seconds (needed unless the op is timed by its first call)."""
    if timed_by_its_first_call(answer):
        per_call = answer["first_call"]
    elif warm_per_call is None:
        raise ValueError("planning an op that is not timed by its first call takes a warm value")
    else:
        per_call = warm_per_call
    return Plan(answer["loops"], answer["inner_loops"], rewarm_calls(per_call), slow=per_call >= timeloop.SLOW_CALL,
                first_call=timeloop.timed_by_its_first_call(per_call), per_call=per_call)


def values_a_round(plan: Plan, settings: Settings, lanes: int) -> int:
    """Values of the op each lane takes a round: one for a slow op; else the settings' count, or as
    many as fit in BENCHMARK_SECONDS for all `lanes` (a value and its re-warm calls each)."""
    if plan.slow:
        return 1
    if settings.values is not None:
        return settings.values
    value_seconds = plan.per_call * (plan.loops * plan.inner_loops + plan.rewarm_calls)
    return max(1, min(MAX_CYCLES, int(BENCHMARK_SECONDS / (lanes * max(value_seconds, 1e-9)))))


def round_seconds(plan: Plan, settings: Settings, lanes: int) -> float:
    """Seconds of the op's calls a lane takes a round: the call that prepares it (every round's prepare
    calls it once), and its values with their re-warm calls and its warm cycle unless that call was
    its value."""
    if plan.first_call:
        return plan.per_call
    values = values_a_round(plan, settings, lanes)
    cycles = values + (1 if warm_cycle(values) else 0)
    return plan.per_call * (1 + cycles * (plan.loops * plan.inner_loops + plan.rewarm_calls))


def last_look(plan: Plan, settings: Settings, lanes: int) -> int:
    """The index in settings.looks of the op's last look: the last whose rounds take at most
    settings.budget seconds of its calls on each side (at least the first look), or the session's
    last with no budget. It depends on the op's planned cost, not on its round estimates, so a look
    that is final for this row alone may spend the shares of the looks it will not take
    (verdicts/judge.py)."""
    if settings.budget is None:
        return len(settings.looks) - 1
    seconds = round_seconds(plan, settings, lanes)
    fits = [index for index, rounds in enumerate(settings.looks) if rounds * seconds <= settings.budget]
    return max(fits, default=0)


def warm_cycle(values: int) -> bool:
    """Whether a round takes one cycle, not recorded, before its values: an op that fits MIN_CYCLES or
    more a round is cheap enough to warm so; a slower one was warmed by prepare's own call."""
    return values >= MIN_CYCLES
