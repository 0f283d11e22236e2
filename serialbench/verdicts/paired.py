"""From timings to verdicts, one row per benchmark: for a compare session, or for two result files.

A compare session's two files are paired (value i of run r in one was taken in the same cycle of the
same round as value i of run r in the other); two independent runs are not, and are judged
unpaired. The judging is verdicts/judge.py (its statistics the package core/stats/); this module feeds it a
session's rounds or a pair of files and keeps each side's median beside the verdict;
views/verdict_table.py prints the rows.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pyperf

from serialbench.core import stats
from serialbench.measure.session import LOOKS, Run, Session
from serialbench.results.session_files import runs_of
from serialbench.verdicts import vocabulary
from serialbench.verdicts.judge import Judge, judge_paired, judge_unpaired

K = TypeVar("K")  # what a look's pairs are keyed by: a name, or (name, pair of sides) for a sweep


@dataclass(frozen=True)
class Compared:
    """A benchmark's verdict beside each side's median."""

    name: str
    base: float | None  # seconds per op: median over rounds (or runs) of each one's median value
    head: float | None
    verdict: vocabulary.Verdict


class PairedComparison:
    """The looks taken so far at one pair of sides of a session (its `look` is run_session's settle)."""

    def __init__(self, base: str, head: str, names: Sequence[str], looks: Sequence[int],
                 min_effect: float = stats.MIN_EFFECT):
        self.base, self.head, self.min_effect = base, head, min_effect
        self.judge = Judge(list(names), looks, min_effect)

    def look(self, session: Session, names: Sequence[str], look_index: int, final: Collection[str]) -> set[str]:
        """A look at every undecided benchmark of `names`; those it settles (changed, no change, two speeds,
        and those of `final`, whose look is their last)."""
        runs = {name: (session.runs[self.base].get(name, []), session.runs[self.head].get(name, [])) for name in names}
        runs = {name: pair for name, pair in runs.items() if pair[0] and pair[1]}
        if not runs:
            return set()
        estimates, times = at_common_rounds(runs)
        return self.judge.look(estimates, look_index, final, times)

    def rows(self, session: Session) -> list[Compared]:
        return [Compared(row.name, median_of_medians(session.runs[self.base][row.name]),
                    median_of_medians(session.runs[self.head][row.name]), row.verdict)
                for row in self.judge.rows() if row.name not in session.failed]

    def selection(self) -> vocabulary.Verdict | None:
        """The typical change over the whole selection (judge.selection)."""
        return self.judge.selection_row()


def paired_rounds(base_runs: Sequence[Run], head_runs: Sequence[Run]) -> tuple[list[float], tuple[list[float],
                                                                                                  list[float]]]:
    """One side's runs against another's, round by round (the rounds both have, in BASE's order): each
    round's estimate of the change (stats.round_estimate), and each side's median of that round."""
    by_round = {run.round: run for run in head_runs}
    kept = [run for run in base_runs if run.round in by_round]
    heads = [by_round[run.round] for run in kept]
    return ([stats.round_estimate(base.values, head.values) for base, head in zip(kept, heads)],
            (medians(kept), medians(heads)))


def round_estimates(base_runs: Sequence[Run], head_runs: Sequence[Run]) -> list[float]:
    return paired_rounds(base_runs, head_runs)[0]


def at_common_rounds(runs: Mapping[K, tuple[Sequence[Run], Sequence[Run]]]
                     ) -> tuple[dict[K, list[float]], dict[K, tuple[list[float], list[float]]]]:
    """paired_rounds of every pair of a look, judged on the rounds they all have: every benchmark of a
    look has the same rounds, but for a round cut short by a worker that died."""
    paired = {key: paired_rounds(*pair) for key, pair in runs.items()}
    rounds = min((len(estimates) for estimates, _ in paired.values()), default=0)
    return ({key: estimates[:rounds] for key, (estimates, _) in paired.items()},
            {key: (times[0][:rounds], times[1][:rounds]) for key, (_, times) in paired.items()})


def medians(runs: Sequence[Run]) -> list[float]:
    """Each run's (round's, process's) median value."""
    return [statistics.median(run.values) for run in runs]


def median_of_medians(runs: Sequence[Run]) -> float | None:
    return statistics.median(medians(runs)) if runs else None


def compare_benchmarks(base: dict[str, pyperf.Benchmark], head: dict[str, pyperf.Benchmark], paired: bool,
                       min_effect: float = stats.MIN_EFFECT, final_at: int | None = None,
                       budget_at: dict[str, int] | None = None, looks: Sequence[int] | None = None
                       ) -> tuple[list[Compared], vocabulary.Verdict | None]:
    """Rows of the benchmarks in both, and the selection row: paired by round (the files of one compare
    session, its looks replayed: `looks` as the session took them, LOOKS by default; `final_at`: the
    rounds of a look that was final because time ran out; `budget_at`: name -> the rounds of the look
    its budget made its last)
    or unpaired (two independent runs: one median per worker process)."""
    names = [name for name in base if name in head]
    runs = {name: (runs_of(base[name]), runs_of(head[name])) for name in names}
    if paired:
        paired_runs = {name: paired_rounds(*pair) for name, pair in runs.items()}
        estimates = {name: found for name, (found, _) in paired_runs.items()}
        times = {name: found for name, (_, found) in paired_runs.items()}
        verdict_rows, selection = judge_paired(estimates, looks or LOOKS, min_effect, times=times, final_at=final_at,
                                                 budget_at=budget_at)
    else:
        verdict_rows, selection = judge_unpaired({name: medians(pair[0]) for name, pair in runs.items()},
                                                 {name: medians(pair[1]) for name, pair in runs.items()}, min_effect)
    return [Compared(row.name, median_of_medians(runs[row.name][0]), median_of_medians(runs[row.name][1]), row.verdict)
            for row in verdict_rows], selection


def failing(rows: Sequence[Compared], fail_on: str | None, selection: vocabulary.Verdict | None = None) -> list[str]:
    """What fails a --fail-on gate ('slower', or 'changed': slower or faster): the names of the rows, and
    'selection' when the whole selection's verdict does."""
    words = {"slower": {vocabulary.SLOWER}, "changed": {vocabulary.SLOWER, vocabulary.FASTER}}.get(fail_on or "", set())
    names = [row.name for row in rows if row.verdict.word in words]
    if selection is not None and selection.word in words:
        names.append("selection")
    return names
