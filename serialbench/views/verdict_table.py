"""compare's table: one row per benchmark, the two sides' medians, the change with its interval at the
level its verdict used, the verdict; the whole selection's row last.

The same rows print as text (the terminal) and Markdown (a pull-request comment), with one legend:
core/stats.legend, the one rule that explains every row's word from its interval.
"""

from __future__ import annotations

from collections.abc import Sequence

from serialbench.core import stats
from serialbench.core.formatting import format_change, format_time
from serialbench.core.tables import markdown_table as render_markdown
from serialbench.core.tables import text_table
from serialbench.verdicts.paired import Row

HEADER = ("benchmark", "change [interval]", "level", "detectable", "verdict")


def verdict_text(verdict: stats.Verdict) -> str:
    """The word, and for two speeds each side's two modes: what the mix hides."""
    if verdict.word != stats.TWO_SPEEDS or not verdict.modes:
        return verdict.word
    parts = []
    for label, modes in zip(("BASE", "HEAD"), verdict.modes):
        if modes is not None:
            parts.append(f"{label} {format_time(modes.fast)} or {format_time(modes.slow)}, "
                         f"{len(modes.slow_rounds)} rounds slow")
    return f"{verdict.word} ({'; '.join(parts)})" if parts else verdict.word


def change_cell(verdict: stats.Verdict) -> tuple[str, str]:
    """'+3.1% [+1.2%, +5.0%]' and its level ('99.9%'), or the change alone when no interval exists."""
    if verdict.low > -1 and verdict.high < float("inf"):
        return (f"{format_change(verdict.change)} [{format_change(verdict.low)}, {format_change(verdict.high)}]",
                f"{verdict.level * 100:.4g}%")
    return f"{format_change(verdict.change)} [no interval]", "-"


def detectable_cell(verdict: stats.Verdict) -> str:
    return "-" if verdict.detectable is None else f"{verdict.detectable * 100:.1f}%"


def table_cells(rows: Sequence[Row], base: str, head: str,
                selection: stats.Verdict | None = None) -> list[tuple[str, ...]]:
    cells = [(HEADER[0], base, head, *HEADER[1:])]
    for row in rows:
        v = row.verdict
        cells.append((row.name, format_time(row.base) if row.base else "-", format_time(row.head) if row.head else "-",
                      *change_cell(v), detectable_cell(v), verdict_text(v)))
    if selection is not None:
        cells.append((f"selection (median of {len(rows)})", "", "", *change_cell(selection), "-", selection.word))
    return cells


def summary_line(rows: Sequence[Row], min_effect: float) -> str:
    counts = {word: sum(row.verdict.word == word for row in rows) for word in stats.ORDER}
    rounds = sorted({row.verdict.rounds for row in rows})
    span = f"{rounds[0]}-{rounds[-1]}" if len(rounds) > 1 else (str(rounds[0]) if rounds else "0")
    rare = (stats.TWO_SPEEDS, stats.AT_THRESHOLD)  # counted only when some row has them
    return (", ".join(f"{count} {word}" for word, count in counts.items() if count or word not in rare)
            + f"; {span} rounds, minimum effect {min_effect * 100:g}%")


def format_table(rows: Sequence[Row], base: str, head: str, min_effect: float, paired: bool = True,
                 selection: stats.Verdict | None = None) -> str:
    lines = text_table(table_cells(rows, base, head, selection), left=(0, 6))
    return "\n".join([*lines, "", summary_line(rows, min_effect), stats.legend(paired)])


def markdown_table(rows: Sequence[Row], base: str, head: str, min_effect: float, paired: bool = True,
                   selection: stats.Verdict | None = None) -> str:
    header, *body = table_cells(rows, base, head, selection)
    lines = render_markdown([header, *[(f"`{row[0]}`", *row[1:]) for row in body]], left=(0, 6))
    return "\n".join([*lines, "", summary_line(rows, min_effect), "", stats.legend(paired), ""])
