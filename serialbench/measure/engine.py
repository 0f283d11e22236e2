"""The session engine: rounds of fresh worker processes timing every benchmark in lanes, for every command.

A lane is a worker process and a slot in it. A round starts one process per side (inside/worker.py),
all alive at once and pinned to one CPU, each with a randomised heap so that process layout is sampled
as noise over the rounds, not frozen into a bias; they time every running benchmark, in an order
shuffled for the round, and exit. Start-up (imports, numpy, a case's libraries) is paid once a side a
round, not once a benchmark. With Settings.cpus of 2 or more, a batch runs that many rounds at once,
one a CPU. Each benchmark's lanes prepare it and take values in turn, a cycle at a time, milliseconds
apart, on their round's CPU: the machine's speed, which here changes within a second, is nearly the
same for the values of a cycle.
- compare, sweep, bisect, calibrate and check-harness's compare way: a lane per side, every side
  timing the same benchmark; a side's values of a round are a Run of that side.
- the run: one side, two lanes in its one process, the benchmark (slot 0) and its memcpy floor
  (slot 1); the benchmark's Run records exp(median over its cycles of log(op / floor)) as FLOOR_RATIO,
  two values milliseconds apart, as compare's HEAD/BASE. The floor is also timed as a benchmark of its
  own, and keeps running while a benchmark it serves does.
One benchmark's round in its lanes is measure/lanes.py; how each op is timed (loops, re-warm calls,
slow, timed by its first call) is its plan, made once by measure/plan.py. After the rounds of each
look, `settle` (the command's verdicts or precision rule) says which benchmarks stop.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from serialbench.measure import plan as plan_rule
from serialbench.measure.lanes import CaseError, lanes_of, time_benchmark
from serialbench.measure.process import Process, WorkerFailed
from serialbench.measure.session import RoundDone, Session, Settings, serves
from serialbench.sides.sides import Side


def run_session(sides: Sequence[Side], names: Sequence[str], settings: Settings,
                settle: Callable[[Session, list[str], int, set[str]], set[str]], say: Callable[[str], None],
                floors: Mapping[str, str | None] | None = None,
                progress: Callable[[RoundDone], None] = lambda done: None,
                checkpoint: Callable[[Session], None] = lambda session: None,
                rng: random.Random | None = None) -> Session:
    """Rounds over the benchmarks still running until none is left, the last look, or the time is up.

    After the rounds of each look, `settle(session, running, look_index, final)` returns the names
    that stop; `final` names those whose look is their last and who stop whatever it finds: every one
    when time runs out or at the last look, else those whose budget ends here (Settings.budget). floors (the
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
            batch_started = time.monotonic()
            count, before_batch = rounds_at_once(settings.cpus, looks[look_index] - session.rounds), len(running)
            time_rounds(session, running, floors, settings, say, count, rng)
            running = [name for name in running if name not in session.failed]
            took, spent = time.monotonic() - batch_started, time.monotonic() - started
            time_up = settings.max_seconds is not None and spent + took > settings.max_seconds
            before = len(running)
            if session.rounds >= looks[look_index] or time_up:
                if time_up or look_index == len(looks) - 1:
                    final = set(running)
                    if time_up and look_index < len(looks) - 1:
                        session.final_rounds = session.rounds
                else:
                    final = {name for name in running if last_look(session, name, settings) == look_index}
                    session.budget_rounds.update((name, session.rounds) for name in final)
                running = still_running(running, settle(session, list(running), look_index, final), floors)
                look_index += 1
            progress(RoundDone(session.rounds, took, before_batch, spent, before, len(running),
                               rounds_left(session, running, settings, look_index), time_up, count))
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
            settle(session, timed, look_index, set(timed))
    session.seconds = time.monotonic() - started
    return session


def last_look(session: Session, name: str, settings: Settings) -> int:
    """The index of the benchmark's last look: where its budget ends it (plan.last_look), or the last."""
    plan = session.plans.get(name)
    return len(settings.looks) - 1 if plan is None else plan_rule.last_look(plan, settings, len(session.sides))


def rounds_left(session: Session, running: Sequence[str], settings: Settings, look_index: int) -> int:
    """At most this many rounds more: to the last look of the benchmark that goes on longest."""
    if look_index >= len(settings.looks) or not running:
        return 0
    last = max(settings.looks[last_look(session, name, settings)] for name in running)
    return max(last - session.rounds, 0)


def still_running(running: list[str], settled: set[str], floors: Mapping[str, str | None]) -> list[str]:
    """The benchmarks that go on: those not settled, and the floors that one of them still needs."""
    going = [name for name in running if name not in settled]
    return [name for name in running if name in going or serves(name, going, floors)]


def rounds_at_once(cpus: int, until_look: int) -> int:
    """Rounds run at once, one a CPU: as many as the CPUs allowed (Settings.cpus, at most the machine's),
    never past the next look, so that every look sees the rounds it was planned for."""
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    return max(1, min(cpus, available, until_look))


def round_cpu(first_round: int, position: int, count: int, cpus: list[int]) -> int:
    """The CPU of the round at `position` in a batch of `count` rounds from `first_round`: a batch's
    rounds take one CPU each, and the CPUs move on by one every batch, so that over the batches each CPU
    carries rounds of either parity (the parity sets which side starts a cycle: lanes.cycle_order)
    and a CPU's own speed is spread over the rounds, not given to some.

    A benchmark's sides share their round's CPU: two processes on two CPUs of a VM time at the speeds
    of two CPUs, which differ for seconds at a time (here the two CPUs' speeds are uncorrelated,
    docs/findings/two-cpus.md); in an A/A comparison at 1M, pinning both sides to one CPU took the
    spread of the round estimates from 4-16% down to 2-9%."""
    return cpus[(first_round // count + position) % len(cpus)]


def time_rounds(session: Session, names: Sequence[str], floors: Mapping[str, str | None], settings: Settings,
                say: Callable[[str], None], count: int = 1, rng: random.Random | None = None) -> None:
    """A batch: `count` rounds of `names` at once, each on a CPU of its own, with its own workers and its
    own shuffled order (a round alone keeps the coordinating thread off its workers' CPU)."""
    rng = rng or random.Random()
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    batch = Batch(session, floors, settings, say, PlanLocks(), threading.Lock(), threading.Event())
    rounds = []
    for index in range(session.rounds, session.rounds + count):
        order = list(names)
        rng.shuffle(order)
        rounds.append(Round(batch, index, deque(order)))
    placed = [(round_, round_cpu(session.rounds, position, count, cpus) if cpus else None)
              for position, round_ in enumerate(rounds)]
    others = [threading.Thread(target=time_round, args=(round_, cpu, False), daemon=True) for round_, cpu in placed[1:]]
    for thread in others:
        thread.start()
    try:
        time_round(*placed[0], alone=not others)
    except BaseException:
        batch.stopping.set()  # Ctrl-C: the other rounds' workers got it too; no benchmark of theirs fails for it
        for round_ in rounds:  # and the other rounds take no further benchmark
            round_.order.clear()
        raise
    finally:
        for thread in others:
            thread.join()
        session.rounds += count
        for per_side in session.runs.values():  # the batch's rounds finished in any order: keep round order
            for runs in per_side.values():
                runs.sort(key=lambda run: run.round)


@dataclass
class Batch:
    """What a batch's rounds share: the session and its settings, a lock for planning an op, one for
    recording, and the stop."""

    session: Session
    floors: Mapping[str, str | None]
    settings: Settings
    say: Callable[[str], None]
    planning: PlanLocks
    recording: threading.Lock
    stopping: threading.Event


@dataclass
class Round:
    """One round of a batch: its index, and the benchmarks it has not yet taken."""

    batch: Batch
    index: int
    order: deque


class PlanLocks:
    """A lock an op: two rounds never plan the same op at once (a batch's rounds time the same ops)."""

    def __init__(self):
        self.locks: dict[str, threading.Lock] = {}
        self.lock = threading.Lock()

    def __call__(self, name: str) -> threading.Lock:
        with self.lock:
            return self.locks.setdefault(name, threading.Lock())


def time_round(round_: Round, cpu: int | None, alone: bool) -> None:
    """One round: its processes on `cpu`, timing the round's benchmarks in its order.

    Alone, the thread that coordinates them stays off their CPU; beside other rounds it is pinned to
    its own round's CPU, where it runs only while its workers wait for it, never while they time."""
    batch, session = round_.batch, round_.batch.session
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
            except IndexError:  # the batch was stopped (Ctrl-C)
                break
            if name in session.failed:
                continue
            try:
                runs = time_benchmark(session, processes, lanes_of(name, len(processes), batch.floors),
                                      batch.settings, round_.index, batch.planning)
            except CaseError as exc:
                with batch.recording:
                    fail(session, name, str(exc), batch.say)
                continue
            with batch.recording:  # a benchmark another round failed meanwhile keeps no runs
                if name not in session.failed:
                    for side, run in zip(session.sides, runs):
                        session.runs[side.label].setdefault(name, []).append(run)
            current = None
    except WorkerFailed as exc:
        # A worker died (a crash in a case's C code): the benchmark it was on is dropped, the round's
        # finished benchmarks are kept, and the next round starts new workers.
        if current and not (exc.interrupted or batch.stopping.is_set()):
            with batch.recording:
                fail(session, current, str(exc), batch.say)
    finally:
        for process in processes:
            process.close()
        if len(own_cpus) > 1:
            os.sched_setaffinity(0, own_cpus)


def fail(session: Session, name: str, why: str, say: Callable[[str], None]) -> None:
    session.failed[name] = why
    for per_side in session.runs.values():
        per_side.pop(name, None)
    say(f"{name}: not timed ({why})")
