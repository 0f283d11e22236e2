"""calibrate's table: each benchmark's A/A verdict and, per injected slowdown, the work injected (as a
plain loop measured it), the change the session measured and the verdict; then the counts against
their targets (false positives, confirmations, detections; an injection that did not land counted
apart, verdicts/calibration.py). As text, Markdown and JSON from one document (views/table.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from serialbench.core.formatting import format_change
from serialbench.verdicts import vocabulary
from serialbench.verdicts.calibration import injection_failed
from serialbench.verdicts.paired import Compared
from serialbench.views.table import Column, Document, Table, column, number


@dataclass(frozen=True)
class Calibrated:
    """One benchmark: its A/A pair's row and, per slowdown in order, its row, the work its check saw
    land (None: not checked) and why the injection failed (None: it landed)."""

    name: str
    a_a: Compared
    slowed: tuple[Compared, ...]
    landed: tuple[float | None, ...]
    failed: tuple[str | None, ...]


def calibrate_columns(slowdowns: Sequence[float]) -> list[Column]:
    columns = [
        column("name", "benchmark", lambda row: row.name, left=True, code=True),
        column("rounds", "rounds", lambda row: "/".join(str(r.verdict.rounds) for r in [row.a_a, *row.slowed]),
               lambda row: [r.verdict.rounds for r in [row.a_a, *row.slowed]]),
        column("a_a_change", "A/A change", lambda row: format_change(row.a_a.verdict.change),
               lambda row: number(row.a_a.verdict.change), left=True),
        column("a_a_verdict", "A/A verdict", lambda row: row.a_a.verdict.word, left=True),
    ]
    for i, slowdown in enumerate(slowdowns):
        label, key = f"+{slowdown * 100:g}%", f"slowdown_{slowdown * 100:g}"
        columns += [
            column(f"{key}_injected", f"{label} injected",
                   lambda row, i=i: "-" if row.landed[i] is None else format_change(row.landed[i]),
                   lambda row, i=i: number(row.landed[i]), left=True),
            column(f"{key}_change", f"{label} measured", lambda row, i=i: format_change(row.slowed[i].verdict.change),
                   lambda row, i=i: number(row.slowed[i].verdict.change), left=True),
            Column(f"{label} verdict",
                   lambda row, i=i: row.slowed[i].verdict.word + (" (injection failed)" if row.failed[i] else ""),
                   lambda row, i=i, key=key: {f"{key}_verdict": row.slowed[i].verdict.word,
                                              f"{key}_injection_failed": row.failed[i]}, left=True),
        ]
    return columns


def calibrated(a_a: Sequence[Compared], a_b: Sequence[Sequence[Compared]], slowdowns: Sequence[float],
               landed: Sequence[dict[str, float]] | None, prefix: str) -> list[Calibrated]:
    """The rows: landed is, per slowdown, what its work added in a plain loop by (unprefixed) name."""
    landed = landed or [{} for _ in slowdowns]
    rows = []
    for index, row in enumerate(a_a):
        name = row.name.removeprefix(prefix)
        slowed = tuple(rows_b[index] for rows_b in a_b)
        seen = tuple(figures.get(name) for figures in landed)
        rows.append(Calibrated(name, row, slowed, seen,
                               tuple(injection_failed(b, s, f) for b, s, f in zip(slowed, slowdowns, seen))))
    return rows


def counts(rows: Sequence[Calibrated], slowdowns: Sequence[float], min_effect: float) -> list[str]:
    """The counts against their targets: the self-check's answer."""
    flagged = sum(row.a_a.verdict.word in (vocabulary.SLOWER, vocabulary.FASTER) for row in rows)
    confirmed = sum(row.a_a.verdict.word == vocabulary.NO_CHANGE for row in rows)
    size = len(rows)
    lines = [f"A/A: {flagged} of {size} flagged as changed (false positives; "
             f"target: at most {max(1, size // 20)}), "
             f"{confirmed} of {size} confirmed 'no change' (target: at least {math.ceil(0.8 * size)})"]
    for i, slowdown in enumerate(slowdowns):
        failures = {row.name: row.failed[i] for row in rows if row.failed[i]}
        counted = [row.slowed[i] for row in rows if not row.failed[i]]
        detected = sum(b.verdict.word == vocabulary.SLOWER for b in counted)
        wrong = sum(b.verdict.word == vocabulary.FASTER for b in counted)
        measured = sorted(row.slowed[i].verdict.change for row in rows)
        median = measured[len(measured) // 2] if measured else math.nan
        # The targets for 20 benchmarks (1, 16 and 19 of 20), scaled; a slowdown under twice the minimum effect
        # is called "slower" only when its estimate clears the minimum effect: no target there.
        target = (f"target: at least {math.ceil(0.95 * len(counted))}" if slowdown >= 2 * min_effect
                  else "no target under twice the minimum effect")
        lines.append(f"+{slowdown * 100:g}%: {detected} of {len(counted)} detected as slower"
                     + (f", {wrong} called faster" if wrong else "")
                     + f" (median measured change {format_change(median)}; {target})"
                     + (f"; {len(failures)} injection {'failure' if len(failures) == 1 else 'failures'}, not "
                        "counted: " + "; ".join(f"{name}: {why}" for name, why in failures.items())
                        if failures else "; every injection landed"))
    return lines


def calibrate_document(rows: Sequence[Calibrated], slowdowns: Sequence[float], min_effect: float,
                       closing: str) -> Document:
    """The table, then the counts and the closing line (the session's size and the machine's load)."""
    calibrated = Table.of(calibrate_columns(slowdowns), rows)
    found = counts(rows, slowdowns, min_effect)
    return Document([calibrated], notes=[*found, closing], keys={
        "slowdowns": list(slowdowns), "min_effect": min_effect, "benchmarks": calibrated, "counts": found,
        "closing": closing})
