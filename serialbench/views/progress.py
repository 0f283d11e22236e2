"""What a session prints while it runs: a line per round; for the run, a line per benchmark as it settles
and one closing line. The run's round line counts what a user can act on: the benchmarks known to the
precision so far, and how many rounds (and about how long) the rest may take.

A benchmark settles by the run's stopping rule (verdicts/stopping.py). Its line says whether it
reached the precision, with the interval's half-width: a row at the cap shows how wide it is, not a
bare "unstable", and a row whose processes ran at two speeds names both.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from serialbench.core import medians
from serialbench.core.formatting import format_duration, format_percent, format_ratio, format_time
from serialbench.measure.session import RoundDone, Session, Settings
from serialbench.verdicts.stopping import run_stops
from serialbench.verdicts.timings import Timing


def timing_words(timing: Timing, target: float) -> str:
    """`6.45 us +-1.2%, 3.21x of the floor +-0.8% (6 processes)`, the two speeds of a row that has them, and
    `short of +-3.0%` where the precision was not reached."""
    words = f"{format_time(timing.median)} {_width(timing.width)}"
    if timing.multiple is not None:
        words += f", {format_ratio(timing.multiple)} of the floor {_width(timing.multiple_width)}"
    if timing.modes:
        words += (f"; two speeds: {format_time(timing.modes.fast)} and {format_time(timing.modes.slow)} "
                  f"({len(timing.modes.slow_rounds)} of {timing.rounds} processes slow)")
    short = "" if timing.reached(target) else f", short of +-{format_percent(target)}"
    return f"{words}{short} ({timing.rounds} process{'' if timing.rounds == 1 else 'es'})"


def precision_words(found: Timing | None, target: float | None) -> str:
    """A benchmark's precision in a few words, for a file of any run: `95% interval +-1.2% of the median
    (8 processes)`, `short of +-3.0%` where the run asked for more, or why there is no interval."""
    if found is None:
        return "not timed"
    processes = f"{found.rounds} process" + ("" if found.rounds == 1 else "es")
    if found.low is None:
        return f"{processes}: too few for a {medians.CONFIDENCE:.0%} interval ({medians.least_rounds()} give one)"
    words = f"{medians.CONFIDENCE:.0%} interval +-{format_percent(found.width)} of the median ({processes})"
    if target is not None and not found.reached(target):
        words += f", short of +-{format_percent(target)}"
    if found.modes:
        words += f"; two speeds: {format_time(found.modes.fast)} and {format_time(found.modes.slow)}"
    return words


def _width(width: float | None) -> str:
    return "(no interval)" if width is None or width == float("inf") else f"+-{format_percent(width)}"


class RoundProgress:
    """The settling of one run: which benchmarks stop after each round, and the lines that say so."""

    def __init__(self, names: Sequence[str], floors: Mapping[str, str | None], settings: Settings,
                 say: Callable[[str], None] = lambda line: None):
        self.names, self.floors, self.settings, self.say = list(names), floors, settings, say
        self.target = settings.precision
        self.settled: dict[str, Timing | None] = {}
        self.reached = 0

    def opening(self) -> str:
        """The rule in one sentence, the same words for every preset (--fast, the default, --rigorous, --rounds)."""
        settings = self.settings
        return (f"{len(self.names)} benchmarks, in rounds of one fresh process each: a benchmark stops once its "
                f"median and its multiple of the floor are known within +-{format_percent(self.target)}, looked at "
                f"from round {settings.min_rounds}, or at the cap of {settings.max_rounds} processes "
                f"({settings.values} values a process)")

    def round_line(self, step: RoundDone) -> str:
        """The round, and what a user can act on: how many benchmarks are known to the precision (from the
        first look on) and how long the rest may take."""
        settings, total = self.settings, len(self.names)
        line = (f"{step.name} of at most {settings.max_rounds}: {format_duration(step.seconds)}, "
                f"{step.timed} benchmarks, {format_duration(step.spent)} so far; ")
        left, rounds_left = total - len(self.settled), settings.max_rounds - step.round
        if step.round < settings.min_rounds:
            line += f"precision looked at from round {settings.min_rounds}"
        else:
            line += f"{self.reached} of {total} known within +-{format_percent(self.target)}"
            if left and rounds_left:
                line += f", {left} go on"
            elif not left and self.reached < total:
                line += f", {total - self.reached} end short of it"
        if left and rounds_left:
            line += f"; at most {rounds_left} round{'' if rounds_left == 1 else 's'} left (~" \
                    f"{format_duration(step.seconds_for(rounds_left))})"
        return line

    def round_done(self, step: RoundDone) -> None:
        """After each round and its look: the round's line, and why the run ends early if it does."""
        self.say(self.round_line(step))
        if step.time_up and step.round < self.settings.max_rounds:
            self.say(f"time is up ({self.settings.max_seconds / 60:g} min): {step.running} benchmarks end with the "
                "processes they have")

    def settle(self, session: Session, running: Sequence[str], look_index: int, final: Collection[str]) -> set[str]:
        """The benchmarks of `running` that stop now (the rule: verdicts/stopping.py); a line for each."""
        stopped = run_stops(session.runs[session.sides[0].label], running, self.floors, final, self.target)
        for name, found in stopped.items():
            self.settled[name] = found
            if found is None:
                continue
            self.reached += found.reached(self.target)
            self.say(f"[{len(self.settled)}/{len(self.names)}] {name}  {timing_words(found, self.target)}")
        return set(stopped)

    def closing(self) -> str | None:
        """How many rows reached the precision and how many stopped short (the cap, the time limit)."""
        timed = [found for found in self.settled.values() if found is not None]
        if not timed:
            return None
        short = len(timed) - self.reached
        line = f"{self.reached} of {len(timed)} benchmarks reached +-{format_percent(self.target)}"
        if short:
            line += (f"; {short} stopped short at {max(found.rounds for found in timed)} processes or fewer: the "
                     "table shows how wide they are; to tell whether a change helped, use 'python -m serialbench "
                     "compare' (both sides at once), or 'report OLD.json NEW.json' of two runs (their multiples of "
                     "the floor), not two runs by eye")
        return line


def budget_line(budget_rounds: Mapping[str, int], budget: float) -> str:
    """Which benchmarks their budget ended (Settings.budget), and at how many rounds: their rows say
    what is known of them."""
    ended = "; ".join(f"{name} at {rounds}" for name, rounds in budget_rounds.items())
    return (f"{len(budget_rounds)} benchmarks judged at the last look that {budget:g} s of calls a side pay for "
            f"(--benchmark-budget), in rounds: {ended}")


def session_round_line(count: int, settings: Settings, say: Callable[[str], None]) -> Callable[[RoundDone], None]:
    """compare's (sweep's, bisect's, calibrate's) line after each round: how many benchmarks are still
    undecided and how long it may go on, or that the time limit ended it."""
    def done(step: RoundDone) -> None:
        if step.time_up:
            if step.still:
                say(f"time is up ({settings.max_seconds / 60:g} min): {step.still} benchmarks stay undecided")
        elif step.still and step.rounds_left:
            say(f"{step.name}: {step.seconds:.0f} s, {step.still} of {count} benchmarks undecided, "
                f"{step.spent / 60:.1f} min so far, at most {step.rounds_left} rounds left")

    return done
