"""`report BASE.json NEW.json`: the change of each benchmark from BASE to NEW, with compare's verdict.

Paired round by round when both files are the two sides of one compare session, unpaired (two
independent runs) otherwise; the same engine, words and correction as `compare`
(serialbench/comparison.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from serialbench import comparison, stats
from serialbench.formatting import format_change, format_time
from serialbench.report_tables import Cell, Table, groups, rows
from serialbench.results import Result, ResultFile, tier_order


@dataclass
class Change:
    """One benchmark in BASE and NEW: medians, NEW/BASE ratio and the verdict of serialbench/stats.py."""

    name: str
    base: Result
    new: Result
    ratio: float | None  # median NEW / median BASE
    verdict: str  # stats.SLOWER, FASTER, NO_CHANGE, TOO_NOISY; "not timed" when a side has no values
    change: float | None = None  # the engine's estimate, NEW/BASE - 1


def compare(base: ResultFile, new: ResultFile, min_effect: float = stats.MIN_EFFECT,
            names: Sequence[str] | None = None) -> tuple[list[Change], bool]:
    """Changes for the benchmarks present in both files, in NEW's order, judged as `compare` judges:
    paired round by round when both files come from one compare session, unpaired otherwise."""
    pairs = [(base.get(r.name), r) for r in new.results
             if (names is None or r.name in names) and base.get(r.name) is not None]
    timed = [(b, n) for b, n in pairs if b.median is not None and n.median is not None]
    paired = is_one_session(base, new)
    rows = comparison.compare_benchmarks({b.name: b.benchmark for b, _ in timed},
                                         {n.name: n.benchmark for _, n in timed}, paired, min_effect)
    verdicts = {row.name: row.verdict for row in rows}
    changes = []
    for b, n in pairs:
        verdict = verdicts.get(n.name)
        changes.append(Change(n.name, b, n, n.median / b.median if verdict else None,
                              verdict.verdict if verdict else "not timed", verdict.change if verdict else None))
    return changes, paired


def is_one_session(base: ResultFile, new: ResultFile) -> bool:
    """Both files are the two sides of one compare session (their runs were taken in lockstep)."""
    sessions = [{run.get_metadata().get("serialbench_session") for r in f.results for run in r.benchmark.get_runs()}
                for f in (base, new)]
    return len(sessions[0]) == 1 and None not in sessions[0] and sessions[0] == sessions[1]


def change_tables(changes: list[Change], min_effect: float, paired: bool) -> list[Table]:
    by_name = {change.name: change for change in changes}
    tables = []
    for kind, direction, group in groups([change.new for change in changes]):
        columns = tier_order(r.tier for r in group)
        table = Table(
            f"{kind}, {direction}: BASE -> NEW, median time per op",
            f"Each cell: median BASE -> NEW, then the verdict and the estimated change (minimum effect "
            f"{min_effect * 100:g}%). Marked: slower or faster. " + comparison.legend(paired),
            columns,
        )
        for row, by_tier in rows(group, table):
            cells: list[Cell | None] = []
            for tier in columns:
                result = by_tier.get(tier)
                cells.append(_change_cell(by_name[result.name]) if result is not None else None)
            table.rows.append((row, cells))
        tables.append(table)
    return tables


def _change_cell(change: Change) -> Cell:
    base, new = change.base.median, change.new.median
    if base is None or new is None:
        return Cell(["not timed", "in BASE" if base is None else "in NEW"])
    first = f"{format_time(base)} -> {format_time(new)}"
    return Cell([first, describe_change(change)], change.verdict in ("slower", "faster"))


def describe_change(change: Change) -> str:
    if change.ratio is None or change.change is None:
        return "not timed"
    if change.verdict == stats.SLOWER:
        return f"{1 + change.change:.2f}x slower"
    if change.verdict == stats.FASTER:
        return f"{1 / (1 + change.change):.2f}x faster"
    return f"{change.verdict} {format_change(change.change)}"


def change_notes(changes: list[Change], selected: list[Result], base_selected: list[Result]) -> list[str]:
    notes = []
    for verdict in ("slower", "faster"):
        flagged = sorted((c for c in changes if c.verdict == verdict), key=lambda c: c.ratio,
                         reverse=verdict == "slower")
        if flagged:
            notes.append(f"{verdict} in NEW ({len(flagged)}): " + ", ".join(
                f"{c.name} {describe_change(c).split()[0]}" for c in flagged))
    counts = {word: sum(1 for c in changes if c.verdict == word) for word in (stats.NO_CHANGE, stats.TOO_NOISY)}
    untimed = sum(1 for c in changes if c.verdict == "not timed")
    notes.append(f"of {len(changes)} benchmarks: {counts[stats.NO_CHANGE]} no change, "
                 f"{counts[stats.TOO_NOISY]} too noisy to tell" + (f", {untimed} not timed" if untimed else ""))
    compared = {c.name for c in changes}
    only_new = [r.name for r in selected if r.name not in compared]
    only_base = [r.name for r in base_selected if r.name not in compared]
    if only_new:
        notes.append(f"only in NEW: {', '.join(only_new)}")
    if only_base:
        notes.append(f"only in BASE: {', '.join(only_base)}")
    return notes

