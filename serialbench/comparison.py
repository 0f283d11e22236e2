"""From timings to the table: verdicts per benchmark, for one compare session or two result files.

A compare session's two files are paired (value i of run r in one was taken in the same cycle of the
same round as value i of run r in the other); two independent runs are not, and are judged
unpaired. Both go through serialbench/stats.py and print the same table with the same legend.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import pyperf

from serialbench import stats
from serialbench.errors import UsageError
from serialbench.formatting import format_change, format_seconds
from serialbench.schedule import Run, Session
from serialbench.table import text_table


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


def parse_percent(text: str | None, default: float = stats.MIN_EFFECT, option: str = "--min-effect") -> float:
    if text is None:
        return default
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise UsageError(f"{option} {text!r}: give a percentage such as 2 or 2%") from None
    if not 0 <= value < 100:
        raise UsageError(f"{option} {text!r}: give a percentage from 0 to 100")
    return value / 100


# --- result files ---------------------------------------------------------------------------------

def session_benchmarks(session: Session, label: str, metadata: dict) -> list[pyperf.Benchmark]:
    """One side's timings as pyperf benchmarks: a run per round, its values in cycle order."""
    benches = []
    for name in session.names:
        runs = session.runs[label].get(name)
        if runs:
            benches.append(pyperf.Benchmark([
                pyperf.Run(run.values, metadata={**run.metadata, **metadata, "name": name}, collect_metadata=False)
                for run in runs]))
    return benches


def runs_of(bench: pyperf.Benchmark) -> list[Run]:
    runs = []
    for index, run in enumerate(bench.get_runs()):
        if run.values:
            metadata = run.get_metadata()
            runs.append(Run(int(metadata.get("serialbench_round", index)), list(run.values), metadata))
    return runs


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


# --- the table --------------------------------------------------------------------------------------

HEADER = ("benchmark", "change [95% CI]", "detectable", "verdict")


def table_cells(rows: Sequence[Row], base: str, head: str) -> list[tuple[str, ...]]:
    cells = [(HEADER[0], base, head, *HEADER[1:])]
    for row in rows:
        v = row.verdict
        interval = f"[{format_change(v.low)}, {format_change(v.high)}]" if v.low > -1 else "[no interval]"
        detectable = f"{v.detectable * 100:.1f}%" if v.detectable != float("inf") else "-"
        cells.append((row.name, format_seconds(row.base), format_seconds(row.head),
                      f"{format_change(v.change)} {interval}", detectable, v.verdict))
    return cells


def summary_line(rows: Sequence[Row], min_effect: float) -> str:
    counts = {word: sum(row.verdict.verdict == word for row in rows) for word in stats.WORDS}
    rounds = sorted({row.verdict.rounds for row in rows})
    span = f"{rounds[0]}-{rounds[-1]}" if len(rounds) > 1 else (str(rounds[0]) if rounds else "0")
    return (", ".join(f"{count} {word}" for word, count in counts.items())
            + f"; {span} rounds, minimum effect {min_effect * 100:g}%")


def legend(paired: bool) -> str:
    how = ("median over a round's cycles of HEAD/BASE - 1 (values taken milliseconds apart), 20% trimmed "
           "mean over the rounds" if paired else
           "20% trimmed mean of the runs' medians, HEAD against BASE (two independent runs: unpaired)")
    return (f"BASE, HEAD: median time per op. change: {how}; 95% interval (Yuen). "
            "slower/faster: changed at 5% after the correction across every benchmark of the table "
            "(Benjamini-Hochberg; with adaptive rounds each look spends a share of it) and at least the "
            "minimum effect; no change: within +-minimum effect at 5% (TOST). detectable: the smallest "
            "change this run would flag 4 times in 5, were it the only one.")


def format_table(rows: Sequence[Row], base: str, head: str, min_effect: float, paired: bool = True) -> str:
    lines = text_table(table_cells(rows, base, head), left=(0, 5))
    return "\n".join([*lines, "", summary_line(rows, min_effect), legend(paired)])


def markdown_table(rows: Sequence[Row], base: str, head: str, min_effect: float, paired: bool = True) -> str:
    cells = table_cells(rows, base, head)
    escape = [[cell.replace("|", "\\|") for cell in row] for row in cells]
    lines = ["| " + " | ".join(escape[0]) + " |", "|---|---:|---:|---|---:|---|"]
    lines += ["| " + " | ".join([f"`{row[0]}`", *row[1:]]) + " |" for row in escape[1:]]
    return "\n".join([*lines, "", summary_line(rows, min_effect), "", legend(paired), ""])


def failing(rows: Sequence[Row], fail_on: str | None) -> list[Row]:
    """The rows that fail a --fail-on gate: 'slower', or 'changed' (slower or faster)."""
    words = {"slower": {stats.SLOWER}, "changed": {stats.SLOWER, stats.FASTER}}.get(fail_on or "", set())
    return [row for row in rows if row.verdict.verdict in words]
