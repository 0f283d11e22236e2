"""Two runs taken at different moments: each benchmark judged by what the machine's drift cannot move.

On a shared machine the speed of everything moves between two runs minutes or days apart, and a test
on their times finds that drift as often as a change (docs/findings/runs-apart.md). What it moves
much less is a benchmark's multiple of the memcpy floor: each of the run's processes timed the op and
the floor alternately, milliseconds apart, and recorded their ratio (verdicts/timings.py). So a row
that has those ratios on both sides is judged on them, one per process, with the same unpaired test,
BH correction and words as the times (judge.judge_unpaired): the interval carries both runs'
process-to-process spread of the multiple.

The floor's own rows (baseline/tobytes) give the drift itself: the typical change of their times,
with its interval ("the machine ran 12% slower in NEW"). A row without a multiple (an op that copies
no tensor, whose ratio to a copy is not the same kind of work, or a file without the ratios) can only
be judged on its time, and only where the floor is shown to have moved less than the minimum effect
(its own verdict is no change); elsewhere it gets none, FLOOR_MOVED. Files with no floor timed in
both keep their time verdicts, and the report says what those are worth.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from serialbench.catalog.registry import FLOOR
from serialbench.core import stats
from serialbench.results.files import Result, ResultFile
from serialbench.verdicts import vocabulary
from serialbench.verdicts.judge import Judged, judge_unpaired
from serialbench.verdicts.timings import floor_ratios, run_medians

FLOOR_MOVED = "no time verdict"  # a row with only its time, where the floor is not shown to have stayed put
MULTIPLE, TIME = "multiple", "time"  # what a row was judged on


@dataclass(frozen=True)
class Drift:
    """How far the floor moved from BASE to NEW: the typical change of the floor rows' times."""

    verdict: vocabulary.Verdict | None  # None: no floor row timed in both files
    floors: int  # the floor rows timed in both

    def allows_time(self) -> bool:
        """Whether a time may be judged: the floor is shown to have moved less than the minimum effect
        (its own verdict is no change), or the files time no floor at all (the report says so)."""
        return self.verdict is None or self.verdict.word == vocabulary.NO_CHANGE


@dataclass(frozen=True)
class Basis:
    """What one benchmark is judged on, and its values: one per process of each side."""

    name: str
    kind: str  # MULTIPLE or TIME
    base: list[float]
    new: list[float]


def process_multiples(result: Result) -> list[float] | None:
    """Each process's multiple of the floor timed beside it; None for an op that copies no tensor (its
    ratio to a copy is not a multiple of one: views/timing.py shows 'no copy') or a file without them."""
    if not result.copies or result.benchmark is None:
        return None
    runs = [run for run in result.benchmark.get_runs() if run.values]
    logs = floor_ratios([run.get_metadata() for run in runs])
    return None if logs is None else [math.exp(x) for x in logs]


def basis_of(base: Result, new: Result) -> Basis:
    base_multiples, new_multiples = process_multiples(base), process_multiples(new)
    if base_multiples and new_multiples:
        return Basis(new.name, MULTIPLE, base_multiples, new_multiples)
    return Basis(new.name, TIME, run_medians(base.benchmark), run_medians(new.benchmark))


def floor_drift(base: ResultFile, new: ResultFile, min_effect: float = stats.MIN_EFFECT) -> Drift:
    """The floor rows' times judged as any two runs' (judge_unpaired): their selection row (the sign test
    across them) where it has an interval, else all of them at once (rows_at_once)."""
    pairs = [(b, n) for n in new.results if n.format == FLOOR[0] and n.impl == FLOOR[1]
             and (b := base.get(n.name)) is not None and b.median is not None and n.median is not None]
    if not pairs:
        return Drift(None, 0)
    rows, selection = judge_unpaired({n.name: run_medians(b.benchmark) for b, n in pairs},
                                     {n.name: run_medians(n.benchmark) for _, n in pairs}, min_effect)
    if selection is not None and selection.low > -1 and math.isfinite(selection.high):
        return Drift(selection, len(pairs))
    return Drift(rows_at_once([row.verdict for row in rows]), len(pairs))


def rows_at_once(verdicts: Sequence[vocabulary.Verdict]) -> vocabulary.Verdict:
    """A few floor rows, too few for a test across them (the sign test needs six for an interval at 95%),
    as one verdict: the median change within the hull of their intervals, its word theirs where they all
    agree (no change only where every floor is shown to have stayed put), else too noisy to tell."""
    words = {verdict.word for verdict in verdicts}
    return vocabulary.Verdict(change=statistics.median(v.change for v in verdicts), low=min(v.low for v in verdicts),
                         high=max(v.high for v in verdicts), level=min(v.level for v in verdicts), detectable=None,
                         word=words.pop() if len(words) == 1 else vocabulary.TOO_NOISY,
                         rounds=min(v.rounds for v in verdicts), p_value=max(v.p_value for v in verdicts))


def judge_apart(pairs: Sequence[tuple[Result, Result]], drift: Drift, min_effect: float = stats.MIN_EFFECT
                ) -> tuple[dict[str, Judged], dict[str, Basis], vocabulary.Verdict | None]:
    """The verdict of each timed pair (BASE, NEW) that may be judged, in one table (one BH correction):
    on its multiples where both sides have them, else on its times where the drift allows; the bases of
    every pair (a TIME basis absent from the verdicts is FLOOR_MOVED); and the selection row, the
    median over the judged rows of their estimates."""
    bases = {new.name: basis_of(base, new) for base, new in pairs}
    judged = {name: basis for name, basis in bases.items() if basis.kind == MULTIPLE or drift.allows_time()}
    rows, selection = judge_unpaired({name: b.base for name, b in judged.items()},
                                     {name: b.new for name, b in judged.items()}, min_effect)
    return {row.name: row for row in rows}, bases, selection
