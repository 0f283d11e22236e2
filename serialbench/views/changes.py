"""report's two-file grids: each cell the change from BASE to NEW, with compare's verdict."""

from __future__ import annotations

from serialbench.catalog.inputs import tier_order
from serialbench.core.formatting import format_change, format_time
from serialbench.results.files import Result
from serialbench.verdicts import vocabulary
from serialbench.verdicts.file_changes import Change
from serialbench.views.grid import Cell, Table, groups, rows
from serialbench.views.verdict_table import change_cell, legend


def change_tables(changes: list[Change], min_effect: float, paired: bool) -> list[Table]:
    by_name = {change.name: change for change in changes}
    tables = []
    for kind, direction, group in groups([change.new for change in changes]):
        columns = tier_order(r.tier for r in group)
        table = Table(
            f"{kind}, {direction}: BASE -> NEW, median time per op",
            f"Each cell: median BASE -> NEW, then the verdict and the estimated change (minimum effect "
            f"{min_effect * 100:g}%). Marked: slower or faster. "
            + "; ".join(legend(paired, min_effect)) + ".",
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
    if change.verdict == vocabulary.SLOWER:
        return f"{1 + change.change:.2f}x slower"
    if change.verdict == vocabulary.FASTER:
        return f"{1 / (1 + change.change):.2f}x faster"
    return f"{change.verdict} {format_change(change.change)}"


def change_notes(changes: list[Change], selected: list[Result], base_selected: list[Result],
                 selection: vocabulary.Verdict | None = None) -> list[str]:
    notes = []
    for verdict in ("slower", "faster"):
        flagged = sorted((c for c in changes if c.verdict == verdict), key=lambda c: c.ratio,
                         reverse=verdict == "slower")
        if flagged:
            notes.append(f"{verdict} in NEW ({len(flagged)}): " + ", ".join(
                f"{c.name} {describe_change(c).split()[0]}" for c in flagged))
    counts = {word: sum(1 for c in changes if c.verdict == word)
              for word in (vocabulary.NO_CHANGE, vocabulary.AT_THRESHOLD, vocabulary.TOO_NOISY, vocabulary.TWO_SPEEDS)}
    untimed = sum(1 for c in changes if c.verdict == "not timed")
    notes.append(f"of {len(changes)} benchmarks: {counts[vocabulary.NO_CHANGE]} no change, "
                 + (f"{counts[vocabulary.AT_THRESHOLD]} at the threshold, " if counts[vocabulary.AT_THRESHOLD] else "")
                 + f"{counts[vocabulary.TOO_NOISY]} too noisy to tell"
                 + (f", {counts[vocabulary.TWO_SPEEDS]} two speeds" if counts[vocabulary.TWO_SPEEDS] else "")
                 + (f", {untimed} not timed" if untimed else ""))
    if selection is not None:
        change, level = change_cell(selection)
        notes.append(f"the whole selection (median of {len(changes) - untimed}): {selection.word}, {change} at {level}")
    compared = {c.name for c in changes}
    only_new = [r.name for r in selected if r.name not in compared]
    only_base = [r.name for r in base_selected if r.name not in compared]
    if only_new:
        notes.append(f"only in NEW: {', '.join(only_new)}")
    if only_base:
        notes.append(f"only in BASE: {', '.join(only_base)}")
    return notes
