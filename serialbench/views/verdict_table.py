"""compare's table: one row per benchmark, the two sides' medians, the change with its interval, the verdict.

The same rows print as text (the terminal) and Markdown (a pull-request comment), with one legend.
"""

from __future__ import annotations

from collections.abc import Sequence

from serialbench.core import stats
from serialbench.core.formatting import format_change, format_time
from serialbench.core.tables import markdown_table as render_markdown
from serialbench.core.tables import text_table
from serialbench.verdicts.paired import Row

HEADER = ("benchmark", "change [95% CI]", "detectable", "verdict")


def table_cells(rows: Sequence[Row], base: str, head: str) -> list[tuple[str, ...]]:
    cells = [(HEADER[0], base, head, *HEADER[1:])]
    for row in rows:
        v = row.verdict
        interval = f"[{format_change(v.low)}, {format_change(v.high)}]" if v.low > -1 else "[no interval]"
        detectable = f"{v.detectable * 100:.1f}%" if v.detectable != float("inf") else "-"
        cells.append((row.name, format_time(row.base), format_time(row.head),
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
    header, *body = table_cells(rows, base, head)
    lines = render_markdown([header, *[(f"`{row[0]}`", *row[1:]) for row in body]], left=(0, 5))
    return "\n".join([*lines, "", summary_line(rows, min_effect), "", legend(paired), ""])
