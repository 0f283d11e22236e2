"""From timings to verdicts, one row per benchmark: for a compare session, or for two result files.

A compare session's two files are paired (value i of run r in one was taken in the same cycle of the
same round as value i of run r in the other); two independent runs are not, and are judged
unpaired. Both go through serialbench/core/stats.py; views/verdict_table.py prints the rows.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import pyperf

from serialbench.core import stats
from serialbench.measure.schedule import Run, Session
from serialbench.results.session_files import runs_of


@dataclass(frozen=True)
class Row:
    name: str
    base: float  # seconds per op: median over rounds (or runs) of each one's median value
    head: float
    verdict: stats.Verdict


@dataclass
class PairedComparison:
    """The looks taken so far at one pair of sides of a session, benchmark by benchmark."""

    base: str
    head: str
    min_effect: float = stats.MIN_EFFECT
    table_size: int = 1
    shares: tuple[float, ...] = (1.0,)
    histories: dict[str, list[stats.Look]] = field(default_factory=dict)

    def look(self, session: Session, name: str, look_index: int, final: bool) -> bool:
        """Record a look at `name`; whether it is settled (changed for sure, or no change)."""
        estimates = round_estimates(session.runs[self.base].get(name, []), session.runs[self.head].get(name, []))
        look = stats.Look(stats.paired_evidence(estimates), stats.share_at(self.shares, look_index, final))
        history = self.histories.setdefault(name, [])
        history.append(look)
        threshold = stats.threshold(self.min_effect)
        return (stats.is_changed_early(history, self.table_size, threshold)
                or stats.is_equivalent(look, threshold))

    def rows(self, session: Session) -> list[Row]:
        names = [name for name in session.names if name in self.histories and name not in session.failed]
        verdicts = stats.verdicts([self.histories[name] for name in names], self.min_effect)
        return [Row(name, _median_of_medians(session.runs[self.base][name]),
                    _median_of_medians(session.runs[self.head][name]), verdict)
                for name, verdict in zip(names, verdicts)]


def round_estimates(base_runs: Sequence[Run], head_runs: Sequence[Run]) -> list[float]:
    by_round = {run.round: run for run in head_runs}
    return [stats.round_estimate(run.values, by_round[run.round].values)
            for run in base_runs if run.round in by_round]


def _median_of_medians(runs: Sequence[Run]) -> float:
    return statistics.median(statistics.median(run.values) for run in runs)


def compare_benchmarks(base: dict[str, pyperf.Benchmark], head: dict[str, pyperf.Benchmark], paired: bool,
                       min_effect: float = stats.MIN_EFFECT) -> list[Row]:
    """Rows of the benchmarks in both: paired by round (one compare session) or unpaired."""
    names = [name for name in base if name in head]
    rows_data = []
    for name in names:
        base_runs, head_runs = runs_of(base[name]), runs_of(head[name])
        if paired:
            evidence = stats.paired_evidence(round_estimates(base_runs, head_runs))
        else:
            evidence = stats.unpaired_evidence([statistics.median(r.values) for r in base_runs],
                                               [statistics.median(r.values) for r in head_runs])
        rows_data.append((name, base_runs, head_runs, [stats.Look(evidence)]))
    verdicts = stats.verdicts([looks for *_, looks in rows_data], min_effect)
    return [Row(name, _median_of_medians(b), _median_of_medians(h), verdict)
            for (name, b, h, _), verdict in zip(rows_data, verdicts)]


def failing(rows: Sequence[Row], fail_on: str | None) -> list[Row]:
    """The rows that fail a --fail-on gate: 'slower', or 'changed' (slower or faster)."""
    words = {"slower": {stats.SLOWER}, "changed": {stats.SLOWER, stats.FASTER}}.get(fail_on or "", set())
    return [row for row in rows if row.verdict.verdict in words]
