"""compare's table: one row per benchmark, the two sides' medians, the change with its interval at the
level its verdict used, the verdict; the whole selection's row last.

The columns are declared once (`verdict_columns`): header, cell, JSON keys and legend sentence each,
and the text table (the terminal), the Markdown table (a pull-request comment), the JSON
(views/verdict_json.py) and the legend all read them. A new statistic of a verdict is a field of
stats.Verdict and one Column here. The legend is the one rule that explains every row's word from
its interval; report's two-file grids show it too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from serialbench.core import stats
from serialbench.core.formatting import format_change, format_time
from serialbench.verdicts.paired import Compared
from serialbench.views import columns as table
from serialbench.views.columns import Column, column, number


@dataclass(frozen=True)
class Line:
    """A line of the table: a benchmark, or the whole selection (no medians of its own)."""

    name: str
    base: float | None
    head: float | None
    verdict: stats.Verdict
    selection: bool = False


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


def has_interval(verdict: stats.Verdict) -> bool:
    return verdict.low > -1 and verdict.high < float("inf")


def change_text(verdict: stats.Verdict) -> str:
    """'+3.1% [+1.2%, +5.0%]', or the change alone when no interval exists."""
    if has_interval(verdict):
        return f"{format_change(verdict.change)} [{format_change(verdict.low)}, {format_change(verdict.high)}]"
    return f"{format_change(verdict.change)} [no interval]"


def level_text(verdict: stats.Verdict) -> str:
    return f"{verdict.level * 100:.4g}%" if has_interval(verdict) else "-"


def change_cell(verdict: stats.Verdict) -> tuple[str, str]:
    """The change with its interval, and its level ('99.9%'): two cells of the table."""
    return change_text(verdict), level_text(verdict)


def detectable_cell(verdict: stats.Verdict) -> str:
    return "-" if verdict.detectable is None else f"{verdict.detectable * 100:.1f}%"


def _change_json(verdict: stats.Verdict) -> dict:
    interval = verdict.low > -1  # -1 (-100%) stands for no interval
    return {"change": number(verdict.change), "low": number(verdict.low) if interval else None,
            "high": number(verdict.high) if interval else None}


def how(paired: bool) -> str:
    """How a row's change and interval are made: paired rounds, or two independent runs."""
    return ("each round: median over its cycles of HEAD/BASE (values milliseconds apart); over the rounds: "
            "Hodges-Lehmann estimate and signed-rank interval (a test may set aside 1 round in 16 lying more "
            "than 2x from the change it tests: a spoiled process)" if paired else
            "each side: one median per worker process; Hodges-Lehmann estimate and Mann-Whitney interval "
            "(two independent runs: unpaired)")


def verdict_columns(paired: bool = True, of: Callable = lambda row: row.verdict) -> list[Column]:
    """The columns of a verdict, whatever its row: change [interval], level, detectable, verdict (and
    its rounds, in the JSON). `of` finds the row's stats.Verdict."""
    correction = f"Benjamini-Hochberg at {stats.ALPHA:.0%}" + (", spent over the looks" if paired else "")
    return [
        Column("change [interval]", lambda row: change_text(of(row)), lambda row: _change_json(of(row)),
               f"change: {how(paired)}."),
        column("level", "level", lambda row: level_text(of(row)), lambda row: number(of(row).level),
               "Each interval is at the level its verdict used (column 'level')."),
        column("detectable", "detectable", lambda row: detectable_cell(of(row)),
               lambda row: number(of(row).detectable),
               "detectable: the change this run would flag 4 times in 5 alone in its table; '-' where it could "
               "flag none."),
        column("verdict", "verdict", lambda row: verdict_text(of(row)), lambda row: of(row).word,
               "slower/faster: estimate beyond +-minimum effect and the whole interval beyond +-half of it, at the "
               f"level of the correction across every row of the table ({correction}). no change: the whole "
               "interval within +-minimum effect (TOST). two speeds: a side's worker processes ran at one of two "
               "speeds and the rounds mix them: no verdict from the mix. at the threshold: none of these, but the "
               "whole interval is narrower than the minimum effect and holds +minimum effect or -minimum effect: a "
               "change measured well that sits at the threshold. too noisy to tell: none of these.",
               left=True),
        column("rounds", "", None, lambda row: of(row).rounds),
    ]


def _median(side: str) -> Callable[[Line], str]:
    def text(line: Line) -> str:
        value = getattr(line, side)
        return format_time(value) if value else ("" if line.selection else "-")
    return text


def compare_columns(base: str, head: str, paired: bool = True) -> list[Column]:
    """compare's table: the benchmark, each side's median (headed by what the side was), the verdict."""
    return [
        column("name", "benchmark", lambda line: line.name, left=True, code=True),
        column("base_median", base, _median("base"), lambda line: number(line.base),
               "BASE, HEAD: median time per op."),
        column("head_median", head, _median("head"), lambda line: number(line.head)),
        *verdict_columns(paired),
    ]


def legend(paired: bool = True) -> str:
    """The table's legend: every column's sentence, then the selection row's."""
    selection = ("the median over the benchmarks of each round's change, over the rounds all of them ran"
                 if paired else "the median of the benchmarks' changes, with a sign-test interval across them")
    return (table.legend(compare_columns("BASE", "HEAD", paired)) + f" selection: {selection}, judged by the "
            f"same rule on its own at {stats.ALPHA:.0%}.")


def lines(rows: Sequence[Compared], selection: stats.Verdict | None = None) -> list[Line]:
    out = [Line(row.name, row.base, row.head, row.verdict) for row in rows]
    if selection is not None:
        out.append(Line(f"selection (median of {len(rows)})", None, None, selection, selection=True))
    return out


def summary_line(rows: Sequence[Compared], min_effect: float) -> str:
    counts = {word: sum(row.verdict.word == word for row in rows) for word in stats.ORDER}
    rounds = sorted({row.verdict.rounds for row in rows})
    span = f"{rounds[0]}-{rounds[-1]}" if len(rounds) > 1 else (str(rounds[0]) if rounds else "0")
    rare = (stats.TWO_SPEEDS, stats.AT_THRESHOLD)  # counted only when some row has them
    return (", ".join(f"{count} {word}" for word, count in counts.items() if count or word not in rare)
            + f"; {span} rounds, minimum effect {min_effect * 100:g}%")


def format_table(rows: Sequence[Compared], base: str, head: str, min_effect: float, paired: bool = True,
                 selection: stats.Verdict | None = None) -> str:
    text = table.text(compare_columns(base, head, paired), lines(rows, selection))
    return "\n".join([*text, "", summary_line(rows, min_effect), legend(paired)])


def markdown_table(rows: Sequence[Compared], base: str, head: str, min_effect: float, paired: bool = True,
                   selection: stats.Verdict | None = None) -> str:
    text = table.markdown(compare_columns(base, head, paired), lines(rows, selection))
    return "\n".join([*text, "", summary_line(rows, min_effect), "", legend(paired), ""])
