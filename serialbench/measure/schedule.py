"""The interleaved schedule: rounds of lockstep workers, one per side, timing values in alternation.

A round starts one worker process per side (measure/lockstep_worker.py), all alive at once.
For each benchmark, in an order shuffled per round (the same for every side), every side prepares
it, then the sides take one value each in turn, a cycle at a time, in the same order every cycle
of the round: values of one cycle are milliseconds apart, so the machine's speed, which here
changes within seconds (caches and memory bandwidth shared with other tenants), is nearly the
same for all of them. Each round uses new processes with a randomised heap, so that process layout is
sampled as noise over the rounds, not frozen into a bias. The loop count is calibrated once, on
the first side in the first round, and used by every side in every round.

A round's workers time every benchmark that is still undecided, so start-up (imports, numpy,
TensorFlow's tensor_util) is paid once per side per round, not once per benchmark.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from serialbench.core.errors import UsageError
from serialbench.measure import timeloop
from serialbench.measure.sides import Side, worker_environment

WORKER = Path(__file__).with_name("lockstep_worker.py")
LOCKSTEP_MIN_TIME = 0.002  # seconds per value: short, so that the values of a cycle are close in time
BENCHMARK_SECONDS = 0.3  # per benchmark per round, all sides together: how many cycles fit
# Cycles per benchmark per round: as many as fit in BENCHMARK_SECONDS, at most MAX_CYCLES. An op
# too slow for MIN_CYCLES (50 ms or more a call, with two sides) gets the cycles that fit, at least
# one, and no warm cycle: at 1M a KServe decoder call takes 3 s, and its rounds would last minutes.
MIN_CYCLES, MAX_CYCLES = 3, 50
REPLY_TIMEOUT = 900
# Rounds at which undecided benchmarks are looked at (adaptive rounds). The look at 64 is for the
# noisiest, mostly at 1M (3-4% a round here): 32 rounds confirmed "no change" for about 4 in 10
# of those in simulation, 64 for 8 in 10; --max-time bounds what it costs.
LOOKS = (8, 16, 32, 64)
MAX_MINUTES = 20.0  # a session's default --max-time


class WorkerFailed(Exception):
    """The worker process died or stopped answering; the round cannot go on with it."""


class Process:
    """One side's lockstep worker: JSON requests on its stdin, replies on its stdout."""

    def __init__(self, side: Side, cpu: int | None = None):
        self.side = side
        self.stderr = tempfile.TemporaryFile(mode="w+")
        config = {"case_dirs": list(side.case_dirs), "payloads": list(side.payloads),
                  "distributions": list(side.distributions)}
        self.popen = subprocess.Popen([side.python, "-P", str(WORKER), json.dumps(config)], cwd=side.root,
                                      env=worker_environment(side), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self.stderr, text=True, bufsize=1)
        if cpu is not None:
            os.sched_setaffinity(self.popen.pid, {cpu})
        self.hello = self.read()

    def send(self, request: dict) -> None:
        try:
            self.popen.stdin.write(json.dumps(request) + "\n")
            self.popen.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerFailed(self._why_dead()) from None

    def read(self) -> dict:
        line = self.popen.stdout.readline()
        if not line:
            raise WorkerFailed(self._why_dead())
        return json.loads(line)

    def ask(self, request: dict) -> dict:
        self.send(request)
        return self.read()

    def _why_dead(self) -> str:
        try:
            status = self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            status = None
        self.stderr.seek(0)
        lines = [line.strip() for line in self.stderr.read().splitlines() if line.strip()]
        return f"{self.side.label}: " + (lines[-1] if lines else f"worker exited with status {status}")

    def close(self) -> None:
        try:
            if self.popen.poll() is None:
                self.send({"do": "exit"})
                self.popen.wait(timeout=10)
        except (WorkerFailed, subprocess.TimeoutExpired):
            self.popen.kill()
            self.popen.wait()
        finally:
            self.stderr.close()


@dataclass
class Plan:
    """How one benchmark is timed in every round: calibrated in the first."""

    loops: int
    inner_loops: int
    cycles: int
    rewarm_calls: int = 0  # untimed calls before each value (timeloop.rewarm_calls; none for a slow op)
    first_call: bool = False  # timeloop.TIMED_FIRST_CALL or slower a call: the value is prepare's own call


@dataclass
class Run:
    """One side's values of one benchmark in one round, in cycle order (value i of every side of a
    round was taken in the same cycle)."""

    round: int
    values: list[float]
    metadata: dict


@dataclass
class Session:
    """Timings of the same benchmarks on several sides, round by round."""

    sides: Sequence[Side]
    names: list[str]
    runs: dict[str, dict[str, list[Run]]] = field(default_factory=dict)  # label -> name -> runs
    plans: dict[str, Plan] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # name -> why
    hello: dict[str, dict] = field(default_factory=dict)  # label -> what its worker reported at start
    rounds: int = 0
    seconds: float = 0.0
    interrupted: bool = False  # Ctrl-C (or SIGTERM) ended it: the caller exits 130 after its output
    final_rounds: int | None = None  # the rounds of a look made final by the time limit or an interrupt

    def __post_init__(self):
        for side in self.sides:
            self.runs.setdefault(side.label, {})

    def rounds_of(self, name: str) -> int:
        return len(self.runs[self.sides[0].label].get(name, []))


def check_hello(side: Side, hello: dict) -> None:
    imported = Path(hello["serialbench"])
    if side.own_serialbench and side.root.resolve() not in imported.parents:
        raise UsageError(f"{side.label}'s worker imported serialbench from {imported}, not from {side.root}: "
                         "another serialbench shadows it (an install that is not editable?)")


def time_round(session: Session, names: Sequence[str], min_time: float, rng: random.Random,
               say: Callable[[str], None]) -> None:
    """One round over `names`: new workers, every benchmark in lockstep on every side."""
    round_index = session.rounds
    order = list(names)
    rng.shuffle(order)
    processes = []
    cpu = _round_cpu(round_index)
    own_cpus = os.sched_getaffinity(0) if cpu is not None else set()
    if len(own_cpus) > 1:  # this process, which only waits and forwards, stays off the workers' CPU
        os.sched_setaffinity(0, own_cpus - {cpu})
    try:
        for side in session.sides:
            processes.append(Process(side, cpu))
            check_hello(side, processes[-1].hello)
            session.hello.setdefault(side.label, processes[-1].hello)
        for name in order:
            if name in session.failed:
                continue
            try:
                runs = _time_benchmark(session, processes, name, min_time, round_index)
            except _CaseError as exc:
                _fail(session, name, str(exc), say)
                continue
            for side, run in zip(session.sides, runs):
                session.runs[side.label].setdefault(name, []).append(run)
    except WorkerFailed as exc:
        # A worker died (a crash in a case's C code): the benchmark it was on is dropped, the
        # round's finished benchmarks kept; the next round starts new workers.
        current = next((n for n in order if n not in session.failed and session.rounds_of(n) <= round_index), None)
        if current:
            _fail(session, current, str(exc), say)
    finally:
        for process in processes:
            process.close()
        if len(own_cpus) > 1:
            os.sched_setaffinity(0, own_cpus)
    session.rounds = round_index + 1


def _round_cpu(round_index: int) -> int | None:
    """The one CPU that all of a round's workers run on (they never run at once), another each round.

    Two processes on two CPUs of a VM time at the speeds of two CPUs, which differ for seconds at a
    time (a neighbour on the host busy on one of them): in an A/A comparison at 1M, pinning both
    sides to one CPU took the spread of the round estimates from 4-16% down to 2-9%."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[round_index % len(cpus)]


class _CaseError(Exception):
    pass


def _time_benchmark(session: Session, processes: Sequence[Process], name: str, min_time: float,
                    round_index: int) -> list[Run]:
    plan = session.plans.get(name)
    if plan is None:  # the loops are calibrated once, on the first side alone
        answer = processes[0].ask({"do": "prepare", "name": name, "loops": 0, "min_time": min_time,
                                   "time_call": True})
        if "error" in answer:
            raise _CaseError(f"{processes[0].side.label}: {answer['error']}")
        processes[0].ask({"do": "release"})
        loops, inner = answer["loops"], answer["inner_loops"]
        first_call = answer.get("first_call")
        if first_call is not None and first_call >= timeloop.TIMED_FIRST_CALL and loops == inner == 1:
            plan = session.plans[name] = Plan(1, 1, 1, 0, first_call=True)
    else:
        loops, inner = plan.loops, plan.inner_loops
    # The sides take their values in a fixed order, A B A B ..., so that every value follows a value
    # of another process: a process asked twice in a row was measured here 15-20% slower or faster
    # on its second value (at 1M), a bias that a rotating order turns into noise of that size. Two
    # sides swap who starts each round (the looks fall on even rounds: balanced). Three or more
    # (calibrate) take a new order each round: in a fixed rotation each side always follows the same
    # neighbour, and the A/A pair came out 0.5-1.4% apart, A following the slowed-down variant.
    order = list(range(len(processes)))
    if len(processes) == 2:
        order = order[round_index % 2:] + order[:round_index % 2]
    else:
        random.Random(f"{round_index}/{name}").shuffle(order)
    if plan is not None and plan.first_call:
        return _time_first_calls(processes, order, name, min_time, round_index)
    # Every side prepares at once (they share one CPU, so their allocations interleave): with the
    # sides preparing one after the other, the side that prepared second was faster for the whole
    # round, by 2-10% at 1M in an A/A comparison, as if it got the better physical memory. Who is
    # asked first alternates with the order. The round trip is checked in the first round only:
    # later rounds run the same code on the same input (at 1M a decoder's check costs seconds).
    for index in order:
        check = round_index == 0 and not (plan is None and index == 0)  # side 0 was checked calibrating
        processes[index].send({"do": "prepare", "name": name, "loops": loops, "inner_loops": inner,
                               "min_time": min_time, "check": check})
    prepared = [process.read() for process in processes]
    errors = [f"{p.side.label}: {a['error']}" for p, a in zip(processes, prepared) if "error" in a]
    if errors:
        for process, answer in zip(processes, prepared):
            if "error" not in answer:
                process.ask({"do": "release"})
        raise _CaseError("; ".join(errors))
    if plan is None:
        per_call = _warm_per_call(processes, order)
        calls = prepared[0]["loops"] * prepared[0]["inner_loops"]
        rewarm_calls = timeloop.rewarm_calls(per_call)  # the run's rule: calls that cover the cache refill
        value_seconds = per_call * (calls + rewarm_calls)  # a value and its re-warm
        cycles = int(BENCHMARK_SECONDS / (len(processes) * max(value_seconds, 1e-9)))
        plan = session.plans[name] = Plan(prepared[0]["loops"], prepared[0]["inner_loops"],
                                          max(1, min(MAX_CYCLES, cycles)), rewarm_calls)
    elif plan.cycles >= MIN_CYCLES:  # a slower op is warm after prepare's own call
        for index in order:
            processes[index].ask({"do": "sample"})
    values: list[list[float]] = [[] for _ in processes]
    for _ in range(plan.cycles):
        for index in order:
            values[index].append(processes[index].ask({"do": "sample", "rewarm_calls": plan.rewarm_calls})["seconds"])
    for process in processes:
        process.ask({"do": "release"})
    runs = []
    for process, answer, side_values in zip(processes, prepared, values):
        if not all(math.isfinite(v) and v > 0 for v in side_values):
            raise _CaseError(f"{process.side.label}: a value was not a positive time ({side_values})")
        metadata = {**answer["metadata"], "loops": plan.loops, "serialbench_round": round_index,
                    "serialbench_rewarm_calls": plan.rewarm_calls}
        if plan.inner_loops > 1:
            metadata["inner_loops"] = plan.inner_loops
        runs.append(Run(round_index, side_values, metadata))
    return runs


def _time_first_calls(processes: Sequence[Process], order: Sequence[int], name: str, min_time: float,
                      round_index: int) -> list[Run]:
    """An op of seconds a call (a KServe decoder at 1M: 0.8-2.6 s): each side's value is the call that
    prepares it, timed, the sides one after the other in the round's order, as the run takes such an
    op (timeloop.TIMED_FIRST_CALL). Calling it again for a value had doubled its cost: two such
    decoders took a third of a round of triton-binary/*. A side whose serialbench cannot time
    prepare's call (an older revision) takes a value after it, as any slow op."""
    answers: list[dict] = [{} for _ in processes]
    for index in order:
        check = round_index == 0 and index != 0  # side 0 was checked calibrating
        answers[index] = processes[index].ask({"do": "prepare", "name": name, "loops": 1, "min_time": min_time,
                                               "inner_loops": 1, "check": check, "time_call": True})
        if "error" in answers[index]:
            for prepared in order[:order.index(index)]:
                processes[prepared].ask({"do": "release"})
            raise _CaseError(f"{processes[index].side.label}: {answers[index]['error']}")
    values = [answer.get("first_call") for answer in answers]
    if any(value is None for value in values):
        values = [None] * len(processes)
        for index in order:
            values[index] = processes[index].ask({"do": "sample"})["seconds"]
    runs = []
    for process, answer, value in zip(processes, answers, values):
        process.ask({"do": "release"})
        if not (math.isfinite(value) and value > 0):
            raise _CaseError(f"{process.side.label}: a value was not a positive time ({value})")
        runs.append(Run(round_index, [value], {**answer["metadata"], "loops": 1, "serialbench_round": round_index,
                                                "serialbench_rewarm_calls": 0}))
    return runs


def _warm_per_call(processes: Sequence[Process], order: Sequence[int]) -> float:
    """The first side's seconds per call of the op just prepared, warm, from values not recorded.

    The first value of a fresh process is cold: a 4 MB copy's first calls after the other side's op
    took 770 us where warm they take 160 us, and a re-warm and cycles planned from the cold figure
    left that copy at 1.6-1.8x a plain loop's time instead of 1.3-1.4x (check-harness, 2026-12-01).
    So an op below timeloop.SLOW_CALL takes a second cycle, each value after five re-warm calls;
    at most 0.3 s a side, in the first round only."""
    cold = [processes[index].ask({"do": "sample"})["seconds"] for index in order]
    per_call = cold[order.index(0)]
    if per_call >= timeloop.SLOW_CALL:
        return per_call
    warm = [processes[index].ask({"do": "sample", "rewarm_calls": timeloop.REWARM_CALLS})["seconds"]
            for index in order]
    return warm[order.index(0)]


def _fail(session: Session, name: str, why: str, say: Callable[[str], None]) -> None:
    session.failed[name] = why
    for per_side in session.runs.values():
        per_side.pop(name, None)
    say(f"{name}: not compared ({why})")


def seed() -> int:
    return int.from_bytes(os.urandom(4), "little")


@dataclass(frozen=True)
class Budget:
    """How many rounds a session may take: looks at `looks` rounds, up to max_seconds of wall time."""

    looks: tuple[int, ...]  # round counts at which the undecided benchmarks are looked at
    max_seconds: float | None = None
    min_time: float = LOCKSTEP_MIN_TIME


def run_session(sides: Sequence[Side], names: Sequence[str], budget: Budget,
                settle: Callable[[Session, list[str], int, bool], set[str]], say: Callable[[str], None],
                rng: random.Random | None = None) -> Session:
    """Rounds over the undecided benchmarks until none is left, the last look, or the time is up.

    At each look `settle(session, names, look_index, final)` gets every undecided benchmark at once
    (stopping compares them) and returns those it decided; they leave the next rounds. Running out of
    time makes the current round the last look (`final`, the next one's index): it may spend the
    shares of the looks that will not be taken.
    """
    session = Session(sides, list(names))
    rng = rng or random.Random(seed())
    active = list(names)
    started = time.monotonic()
    look_index = 0
    try:
        while active and look_index < len(budget.looks):
            round_started = time.monotonic()
            time_round(session, active, budget.min_time, rng, say)
            active = [name for name in active if name not in session.failed]
            took = time.monotonic() - round_started
            spent = time.monotonic() - started
            out_of_time = budget.max_seconds is not None and spent + took > budget.max_seconds
            if session.rounds >= budget.looks[look_index] or out_of_time:
                final = out_of_time or look_index == len(budget.looks) - 1
                if out_of_time and look_index < len(budget.looks) - 1:
                    session.final_rounds = session.rounds
                settled = settle(session, list(active), look_index, final)
                active = [name for name in active if name not in settled]
                look_index += 1
                if out_of_time:
                    if active:
                        say(f"time is up ({budget.max_seconds / 60:g} min): {len(active)} benchmarks stay undecided")
                    break
            if active and look_index < len(budget.looks):
                rounds_left = budget.looks[-1] - session.rounds
                say(f"round {session.rounds}: {took:.0f} s, {len(active)} of {len(names)} benchmarks undecided, "
                    f"{spent / 60:.1f} min so far, at most {rounds_left} rounds left")
    except KeyboardInterrupt:
        session.interrupted = True
        say(f"interrupted after {session.rounds} rounds: the undecided benchmarks are judged on those")
        judged = [name for name in active if session.rounds_of(name)]
        if judged and look_index < len(budget.looks):
            session.final_rounds = min(session.rounds_of(name) for name in judged)
            settle(session, judged, look_index, True)
    session.seconds = time.monotonic() - started
    return session
