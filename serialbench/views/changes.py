"""report's two-file grids: each cell the change from BASE to NEW, with compare's verdict.

For two runs taken apart (verdicts/apart.py) a cell gives the time and, where the row was judged on
it, the multiple of the floor BASE -> NEW, then the verdict; the notes say how far the floor moved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from serialbench.core.formatting import format_change, format_ratio, format_time
from serialbench.results.files import Result
from serialbench.verdicts import apart, vocabulary
from serialbench.verdicts.file_changes import Change, FileChanges
from serialbench.views.explain_table import grid_block
from serialbench.views.grid import grid, groups, rows
from serialbench.views.table import Cell, Table
from serialbench.views.verdict_table import change_cell, legend


def change_tables(found: FileChanges, min_effect: float, explained: Mapping[str, dict] | None = None) -> list[Table]:
    """A grid per input kind and direction; under a row, the blocks of its benchmarks that compare
    --explain explained (`explain` objects by name, as the side files keep them)."""
    by_name = {change.name: change for change in found.changes}
    runs_apart = found.drift is not None
    tables = []
    for kind, direction, group in groups([change.new for change in found.changes]):
        what = ("median time BASE -> NEW, its multiple of the floor BASE -> NEW where the row is judged on it, "
                "then the verdict and the estimated change of the multiple ('time:' of the time)"
                if runs_apart else "median BASE -> NEW, then the verdict and the estimated change")
        tables.append(grid(f"{kind}, {direction}: BASE -> NEW, median time per op",
                           f"Each cell: {what} (minimum effect {min_effect * 100:g}%). Marked: slower or faster. "
                           + "; ".join(legend(found.paired, min_effect, apart=runs_apart)) + ".",
                           group, lambda result: _change_cell(by_name[result.name], runs_apart)))
        for row, by_tier in zip(tables[-1].rows, rows(group).values()):
            mine = {r.name: explained[r.name] for r in by_tier.values() if r.name in (explained or {})}
            row.block = grid_block(mine) if mine else None
    return tables


def _change_cell(change: Change, runs_apart: bool = False) -> Cell:
    base, new = change.base.median, change.new.median
    if base is None or new is None:
        return Cell(["not timed", "in BASE" if base is None else "in NEW"])
    lines = [f"{format_time(base)} -> {format_time(new)}"]
    if change.base_multiple is not None and change.new_multiple is not None:
        lines.append(f"{format_ratio(change.base_multiple)} -> {format_ratio(change.new_multiple)}")
    described = describe_change(change)
    if runs_apart and change.basis == apart.TIME and change.judged is not None:
        described = f"time: {described}"
    return Cell([*lines, described], "*" if change.verdict in ("slower", "faster") else "")


def describe_change(change: Change) -> str:
    if change.verdict == apart.FLOOR_MOVED:
        return apart.FLOOR_MOVED
    if change.ratio is None or change.change is None:
        return "not timed"
    if change.verdict == vocabulary.SLOWER:
        return f"{1 + change.change:.2f}x slower"
    if change.verdict == vocabulary.FASTER:
        return f"{1 / (1 + change.change):.2f}x faster"
    return f"{change.verdict} {format_change(change.change)}"


def drift_notes(found: FileChanges) -> list[str]:
    """For two runs apart: how far the floor moved, and what each row was judged on."""
    drift = found.drift
    if drift is None:
        return []
    if drift.verdict is None:
        notes = ["no floor (baseline/tobytes) timed in both files: how far the machine drifted between them is "
                 "unknown, and a verdict on time carries that drift as if it were a change"]
    else:
        change, level = change_cell(drift.verdict)
        speed = abs(drift.verdict.change) * 100
        way = "slower" if drift.verdict.change > 0 else "faster"
        ran = f": the machine ran {speed:.0f}% {way} in NEW" if speed >= 0.5 else ""
        steady = ("within the minimum effect, so a row without a multiple is judged on its time"
                  if drift.allows_time() else "not shown within the minimum effect, so no verdict on a time")
        notes = [f"the floor (baseline/tobytes, {drift.floors} rows) moved {change} at {level} from BASE to NEW{ran}; "
                 f"{steady}"]
    on = {kind: [c for c in found.changes if c.basis == kind and c.judged is not None]
          for kind in (apart.MULTIPLE, apart.TIME)}
    moved = [c for c in found.changes if c.verdict == apart.FLOOR_MOVED]
    notes.append(f"judged on the multiple of the floor: {len(on[apart.MULTIPLE])}; on the time: {len(on[apart.TIME])}"
                 + (f"; {apart.FLOOR_MOVED} (the floor's own rows, an op that copies no tensor, or a file without "
                    f"multiples): {len(moved)}" if moved else ""))
    return notes


def change_notes(found: FileChanges, selected: list[Result], base_selected: list[Result]) -> list[str]:
    changes, selection = found.changes, found.selection
    notes = drift_notes(found)
    for verdict in ("slower", "faster"):
        flagged = sorted((c for c in changes if c.verdict == verdict), key=lambda c: c.ratio,
                         reverse=verdict == "slower")
        if flagged:
            notes.append(f"{verdict} in NEW ({len(flagged)}): " + ", ".join(
                f"{c.name} {describe_change(c).split()[0]}" for c in flagged))
    # the words after slower and faster, in the legend's order; the rarer ones only where some row has them
    counts = Counter(c.verdict for c in changes)
    words = (*vocabulary.ORDER[2:], apart.FLOOR_MOVED, "not timed")
    always = (vocabulary.NO_CHANGE, vocabulary.TOO_NOISY)
    notes.append(f"of {len(changes)} benchmarks: "
                 + ", ".join(f"{counts[word]} {word}" for word in words if counts[word] or word in always))
    if selection is not None:
        change, level = change_cell(selection)
        judged = sum(1 for c in changes if c.judged is not None)
        notes.append(f"the whole selection (median of {judged}): {selection.word}, {change} at {level}")
    compared = {c.name for c in changes}
    only_new = [r.name for r in selected if r.name not in compared]
    only_base = [r.name for r in base_selected if r.name not in compared]
    if only_new:
        notes.append(f"only in NEW: {', '.join(only_new)}")
    if only_base:
        notes.append(f"only in BASE: {', '.join(only_base)}")
    return notes
