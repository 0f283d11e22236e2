"""A session's data: what every timing command measures and reads back, apart from the processes.

A session times benchmarks on one or more sides, round by round: each round starts fresh worker
processes and takes values of every benchmark still running. What it keeps is plain data, read by
the verdicts, the result files and the views without knowing how the values were taken:
- a Run: one side's values of one benchmark in one round (one process), in cycle order;
- a Plan: how one op is timed in every round, made once from its first prepare and a warm value
  (measure/plan.py);
- Settings: when the session looks at its benchmarks, when it stops and what a round takes of each;
  the run's --fast, default and --rigorous, and compare's, are presets of it;
- RoundDone: what a command hears after each round.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from serialbench.core.medians import least_rounds
from serialbench.sides.sides import Side

# Seconds a value: short, so that the values of a cycle are milliseconds apart; as precise a run as
# at 2 ms, in two thirds of its time (docs/findings/two-cpus.md).
MIN_TIME = 0.001
# The rounds at which compare looks at its undecided benchmarks. The look at 64 is for the noisiest,
# mostly at 1M (3-4% a round here): 32 rounds confirmed "no change" for about 4 in 10 of those in
# simulation, 64 for 8 in 10; --max-time bounds what it costs.
LOOKS = (8, 16, 32, 64)
MAX_MINUTES = 20.0  # compare's default --max-time
# compare's default --benchmark-budget: seconds of calls a benchmark may take on each side. Only ops of
# a quarter of a second a call or more reach it (a cheap op's round takes at most plan.BENCHMARK_SECONDS
# of values): a call of 1 s gets its last look at 16 rounds, 0.5 s at 32, so that a few slow decoders
# do not hold a session for rows already known to a few percent (docs/findings/two-cpus.md).
BUDGET_SECONDS = 30.0
FLOOR_RATIO = "serialbench_floor_ratio"  # a run's exp(median over its cycles of log(op / floor))


@dataclass
class Run:
    """One side's values of one benchmark in one round, in cycle order (value i of every side of a
    round was taken in the same cycle)."""

    round: int
    values: list[float]
    metadata: dict


@dataclass(frozen=True)
class Plan:
    """How one op is timed in every round (measure/plan.py makes it)."""

    loops: int  # iterations of the timed loop a value
    inner_loops: int  # calls an iteration
    rewarm_calls: int  # untimed calls before each value (none for a slow op)
    slow: bool  # a call takes plan.SLOW_CALL or more: one value a round, warm from prepare's own call
    first_call: bool  # a call takes plan.TIMED_FIRST_CALL or more: the call that prepares it is its value
    per_call: float  # seconds a call, warm: what a value and its re-warm cost


@dataclass(frozen=True)
class Settings:
    """How a session times and when it stops: looks at `looks` rounds (the last is the cap), or when
    max_seconds of wall time are spent."""

    looks: tuple[int, ...]  # rounds after which the benchmarks still running are looked at
    max_seconds: float | None = None
    min_time: float = MIN_TIME  # seconds a value
    values: int | None = None  # values of an op a round; None: as many as fit (plan.values_a_round)
    loops: int | None = None  # iterations a value, given: no calibration
    precision: float | None = None  # the run's target: stop a benchmark once known within +-precision
    cpus: int = 1  # rounds run at once (a step), each on a CPU of its own with its own processes (engine.py)
    budget: float | None = None  # seconds of calls a benchmark may take on each side: its last look (plan.last_look)

    @property
    def min_rounds(self) -> int:
        return self.looks[0]

    @property
    def max_rounds(self) -> int:
        return self.looks[-1]


# Two CPUs, every command: on this project's 2-vCPU VM, two benchmarks timed at once (one a CPU) took an
# A/A compare of triton-binary/* from 20.0 to 12.8 min with the same verdicts, and a --fast run of it
# from 64-70 s to 37-42 s with the same medians (ratio 1.00) and row widths; two rounds at once, one a
# CPU, start each side's worker once a round instead of once a CPU (docs/findings/two-cpus.md). A
# benchmark's values in a round share one CPU.
CPUS = 2


def run_settings(precision: float, min_rounds: int, max_rounds: int, values: int, cpus: int = CPUS,
                 min_time: float = MIN_TIME, loops: int | None = None, max_minutes: float | None = None) -> Settings:
    """The run's rule: a look from min_rounds on, after every step of `cpus` rounds at once, and at the cap
    (or when max_minutes are spent)."""
    looks = tuple(range(min_rounds, max_rounds + 1, max(cpus, 1)))
    if looks[-1] != max_rounds:
        looks += (max_rounds,)
    return Settings(looks, max_minutes * 60 if max_minutes else None, min_time, values=values, loops=loops,
                    precision=precision, cpus=cpus)


def session_settings(max_rounds: int, max_minutes: float | None, min_time: float = MIN_TIME, cpus: int = CPUS,
                     budget: float | None = None, rounds: int | None = None) -> Settings:
    """compare's rule (and sweep's, bisect's, calibrate's): a look at each of LOOKS below max_rounds and at
    max_rounds, within max_minutes; or exactly `rounds` rounds, with no time limit and no budget."""
    if rounds is not None:
        return Settings((rounds,), None, min_time, cpus=cpus)
    looks = tuple(n for n in LOOKS if n < max_rounds) + (max_rounds,)
    return Settings(looks, max_minutes * 60 if max_minutes else None, min_time, cpus=cpus, budget=budget)


# The run's presets, from measurements on this project's 2-vCPU VM (docs/reference/run.md has them).
# Six processes are the fewest whose range is a 95% interval for the median (core/medians.py). On the
# VM the machine's own speed moves by 1.3-1.7x from one half second to the next, so a row's time is
# set by its processes more than by the values each takes; its multiple of the floor, a ratio of
# values milliseconds apart, is not: three values a process instead of five saved 7-10% of a --fast
# run and widened the median row's multiple from 4.8-5.4% to 5.2-6.0% (alternated runs,
# docs/findings/two-cpus.md). Five values a process, a cap of twelve. --fast takes exactly the six;
# --rigorous asks for +-1% and allows 40 processes of 30 values.
RUN_VALUES = 5
RUN_DEFAULT = run_settings(0.03, least_rounds(), 12, RUN_VALUES)
RUN_FAST = run_settings(0.05, least_rounds(), least_rounds(), RUN_VALUES)
RUN_RIGOROUS = run_settings(0.01, least_rounds(), 40, 30)
COMPARE = Settings(LOOKS, MAX_MINUTES * 60, cpus=CPUS, budget=BUDGET_SECONDS)


@dataclass(frozen=True)
class RoundDone:
    """What a command hears after each step, the rounds run at once (and its look, when it had one)."""

    round: int  # rounds so far
    seconds: float  # this step's wall time
    timed: int  # benchmarks timed in each of its rounds
    spent: float  # the session's wall time so far
    running: int  # benchmarks running before its look
    still: int  # benchmarks still running after it
    rounds_left: int  # at most this many rounds more
    time_up: bool  # the time limit ends the session here
    count: int = 1  # rounds in the step, one a CPU

    @property
    def name(self) -> str:
        """'round 4', or 'rounds 3-4' for a step of two."""
        return f"round {self.round}" if self.count == 1 else f"rounds {self.round - self.count + 1}-{self.round}"

    def seconds_for(self, rounds: int) -> float:
        """About how long that many more rounds take at this step's pace."""
        return rounds * self.seconds / self.count


@dataclass
class Session:
    """Timings of the same benchmarks on one or more sides, round by round."""

    sides: Sequence[Side]
    names: list[str]
    runs: dict[str, dict[str, list[Run]]] = field(default_factory=dict)  # label -> name -> runs
    plans: dict[str, Plan] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # name -> why
    hello: dict[str, dict] = field(default_factory=dict)  # label -> what its worker reported at start
    checked: set[tuple[str, str]] = field(default_factory=set)  # (label, name) whose round trip was checked
    rounds: int = 0
    seconds: float = 0.0
    interrupted: bool = False  # Ctrl-C (or SIGTERM) ended it: the caller exits 130 after its output
    final_rounds: int | None = None  # the rounds of a look made final by the time limit or an interrupt
    budget_rounds: dict[str, int] = field(default_factory=dict)  # name -> the rounds of the look its budget ended

    def __post_init__(self):
        for side in self.sides:
            self.runs.setdefault(side.label, {})

    def rounds_of(self, name: str) -> int:
        return len(self.runs[self.sides[0].label].get(name, []))


def serves(floor: str, going: Sequence[str], floors: Mapping[str, str | None]) -> bool:
    """Whether `floor` is the floor of one of the benchmarks that go on: a floor keeps running while it
    serves a benchmark (the run's multiple of the floor takes both in the same processes)."""
    return any(floors.get(name) == floor for name in going)


def share_of(settings: Settings, groups, index: int, spent: float) -> Settings:
    """The time left, shared among the sessions left by their size (sides x benchmarks)."""
    if settings.max_seconds is None:
        return settings
    work = [len(sides) * len(names) for sides, names in groups[index:]]
    left = max(settings.max_seconds - spent, 1.0)
    return dataclasses.replace(settings, max_seconds=left * work[0] / sum(work))
