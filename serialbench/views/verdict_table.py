"""compare's table: one row per benchmark, the two sides' medians, the change with its interval at the
level its verdict used, the verdict; the whole selection's row last.

The columns are declared once (`verdict_columns`): header, cell, JSON keys and legend sentence each,
and the text table (the terminal), the Markdown table (a pull-request comment), the JSON and the legend
all read them, from one document (`compare_document`, views/table.py). A new statistic of a verdict is
a field of vocabulary.Verdict and one Column here. The legend is the one rule that explains every row's
word from its interval; report's two-file grids show it too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from serialbench.core import stats
from serialbench.core.formatting import format_change, format_time
from serialbench.verdicts import vocabulary
from serialbench.verdicts.paired import Compared
from serialbench.views import table
from serialbench.views.table import WIDTH, Column, Document, Table, column, number


@dataclass(frozen=True)
class Line:
    """A line of the table: a benchmark, or the whole selection (no medians of its own)."""

    name: str
    base: float | None
    head: float | None
    verdict: vocabulary.Verdict
    selection: bool = False


def verdict_text(verdict: vocabulary.Verdict) -> str:
    """The word, and where a side's processes ran at two speeds, its two modes: what the mix hides,
    or, beside a verdict that every speed agrees with, what it was judged over."""
    if not verdict.modes:
        return verdict.word
    parts = []
    for label, modes in zip(("BASE", "HEAD"), verdict.modes):
        if modes is not None:
            parts.append(f"{label} {format_time(modes.fast)} or {format_time(modes.slow)}, "
                         f"{len(modes.slow_rounds)} rounds slow")
    return f"{verdict.word} ({'; '.join(parts)})" if parts else verdict.word


def has_interval(verdict: vocabulary.Verdict) -> bool:
    return verdict.low > -1 and verdict.high < float("inf")


def change_text(verdict: vocabulary.Verdict) -> str:
    """'+3.1% [+1.2%, +5.0%]', or the change alone when no interval exists."""
    if has_interval(verdict):
        return f"{format_change(verdict.change)} [{format_change(verdict.low)}, {format_change(verdict.high)}]"
    return f"{format_change(verdict.change)} [no interval]"


def level_text(verdict: vocabulary.Verdict) -> str:
    return f"{verdict.level * 100:.4g}%" if has_interval(verdict) else "-"


def change_cell(verdict: vocabulary.Verdict) -> tuple[str, str]:
    """The change with its interval, and its level ('99.9%'): two cells of the table."""
    return change_text(verdict), level_text(verdict)


def detectable_cell(verdict: vocabulary.Verdict) -> str:
    return "-" if verdict.detectable is None else f"{verdict.detectable * 100:.1f}%"


def _change_json(verdict: vocabulary.Verdict) -> dict:
    interval = verdict.low > -1  # -1 (-100%) stands for no interval
    return {"change": number(verdict.change), "low": number(verdict.low) if interval else None,
            "high": number(verdict.high) if interval else None}


def how(paired: bool, apart: bool = False) -> str:
    """How a row's change and interval are made: paired rounds, two independent runs, or two runs apart
    judged by their multiples of the floor (verdicts/apart.py)."""
    if apart:
        return ("HEAD/BASE of one multiple of the floor per process (of one median time where the cell says "
                "'time:'), unpaired [interval]")
    return ("HEAD/BASE, paired round by round [interval]" if paired else
            "HEAD/BASE of one median per process, unpaired [interval]")


def verdict_columns(paired: bool = True, of: Callable = lambda row: row.verdict, apart: bool = False) -> list[Column]:
    """The columns of a verdict, whatever its row: change [interval], level, detectable, verdict (and
    its rounds, in the JSON). `of` finds the row's vocabulary.Verdict. Each column's legend is one footnote
    line; the verdict's words have theirs in `word_notes`."""
    return [
        Column("change [interval]", lambda row: change_text(of(row)), lambda row: _change_json(of(row)),
               f"change: {how(paired, apart)}"),
        column("level", "level", lambda row: level_text(of(row)), lambda row: number(of(row).level),
               f"level: the interval's confidence: {stats.ALPHA:.0%} of error split among rows"
               f"{' and looks' if paired else ''} (BH), ~99.9% if few change"),
        column("detectable", "detectable", lambda row: detectable_cell(of(row)),
               lambda row: number(of(row).detectable),
               "detectable: the change this run would flag 4 times in 5 alone in its table; '-': none"),
        column("verdict", "verdict", lambda row: verdict_text(of(row)), lambda row: of(row).word, left=True),
        column("rounds", "", None, lambda row: of(row).rounds),
    ]


STATISTICS_PAGE = "docs/reference/statistics.md"
MAX_WIDTH = 160  # the widest table line compare prints: a terminal of 160 columns shows it unwrapped


def word_notes(min_effect: float = stats.MIN_EFFECT, words: Collection[str] | None = None) -> list[str]:
    """The rule of each verdict word in `words` (all of them by default), in short; the whole rule is on
    the statistics page."""
    theta, sure = f"+-{min_effect * 100:g}%", f"+-{stats.SURE_FRACTION * min_effect * 100:g}%"
    rules = {
        vocabulary.SLOWER: f"slower/faster: change past {theta}, interval past {sure}",
        vocabulary.NO_CHANGE: f"no change: interval within {theta}",
        vocabulary.TWO_SPEEDS: f"two speeds: speeds that straddle {theta}, no verdict",
        vocabulary.AT_THRESHOLD: f"at the threshold: a narrow interval holding {theta}",
        vocabulary.TOO_NOISY: "too noisy to tell: none of these",
    }
    present = set(vocabulary.ORDER if words is None else words)
    if vocabulary.FASTER in present:
        present.add(vocabulary.SLOWER)
    return [rule for word, rule in rules.items() if word in present]


def packed(notes: Sequence[str], width: int = WIDTH) -> list[str]:
    """Footnotes a few to a line, `; ` between them, each line at most `width` characters."""
    lines: list[str] = []
    for note in notes:
        if lines and len(lines[-1]) + 2 + len(note) <= width:
            lines[-1] += f"; {note}"
        else:
            lines.append(note)
    return lines


def _median(side: str) -> Callable[[Line], str]:
    def text(line: Line) -> str:
        value = getattr(line, side)
        return format_time(value) if value else ("" if line.selection else "-")
    return text


def compare_columns(base: str, head: str, paired: bool = True, apart: bool = False) -> list[Column]:
    """compare's table: the benchmark, each side's median (headed by what the side was), the verdict."""
    return [
        column("name", "benchmark", lambda line: line.name, left=True, code=True),
        column("base_median", base, _median("base"), lambda line: number(line.base),
               "BASE, HEAD: median time per op"),
        column("head_median", head, _median("head"), lambda line: number(line.head)),
        *verdict_columns(paired, apart=apart),
    ]


def legend(paired: bool = True, min_effect: float = stats.MIN_EFFECT,
           words: Collection[str] | None = None, apart: bool = False) -> list[str]:
    """The footnotes under the table, at most six lines: every column's, the rule of each verdict word in
    `words` (all by default), and the page that says it all."""
    columns = [c.legend for c in compare_columns("BASE", "HEAD", paired, apart) if c.legend]
    return packed([*columns, *word_notes(min_effect, words), f"the rules in full: {STATISTICS_PAGE}"])


def lines(rows: Sequence[Compared], selection: vocabulary.Verdict | None = None) -> list[Line]:
    out = [Line(row.name, row.base, row.head, row.verdict) for row in rows]
    if selection is not None:
        out.append(Line(f"selection (median of {len(rows)})", None, None, selection, selection=True))
    return out


def summary_line(rows: Sequence[Compared], min_effect: float) -> str:
    counts = {word: sum(row.verdict.word == word for row in rows) for word in vocabulary.ORDER}
    rounds = sorted({row.verdict.rounds for row in rows})
    span = f"{rounds[0]}-{rounds[-1]}" if len(rounds) > 1 else (str(rounds[0]) if rounds else "0")
    rare = (vocabulary.TWO_SPEEDS, vocabulary.AT_THRESHOLD)  # counted only when some row has them
    return (", ".join(f"{count} {word}" for word, count in counts.items() if count or word not in rare)
            + f"; {span} rounds, minimum effect {min_effect * 100:g}%")


def compare_document(rows: Sequence[Compared], base: str, head: str, min_effect: float,
                     failed: Mapping[str, str] | None = None, selection: vocabulary.Verdict | None = None,
                     paired: bool = True, fail_on: str | None = None, gate: Sequence[str] = (),
                     hang: Callable[[Table], None] = lambda _: None,
                     explain_failed: Mapping[str, str] | None = None) -> Document:
    """compare's answer (and report BASE NEW's JSON): the table of the sides `base` and `head` (their
    descriptions), the selection's row last; the counts of each word and the footnotes of the words it
    has. Its JSON: every row (with its block where `hang` hangs one), the selection's, what was not
    compared, with --fail-on the rows that fail it (`gate`), with --explain the decided rows it could not
    explain and why (`explain_failed`).

    Sides whose names would make the terminal's table wider than MAX_WIDTH are named on a line of their
    own above it, their columns headed by their role ('BASE', 'HEAD'). `hang` hangs the rows' blocks
    (compare --explain's) once the width is settled."""
    labels = (f"BASE {base}", f"HEAD {head}")
    verdicts = Table.of(compare_columns(*labels, paired), lines(rows, selection))
    named, terminal = [], None
    if max(map(len, table.text(verdicts))) > MAX_WIDTH:
        named = [f"{role}: {clipped(name, MAX_WIDTH - len(role) - 2)}"
                 for role, name in (("BASE", base), ("HEAD", head))]
        named = ["; ".join(named)] if len("; ".join(named)) <= MAX_WIDTH else named
        terminal = [dataclasses.replace(verdicts, columns=[c for c in compare_columns("BASE", "HEAD", paired)
                                                           if c.text is not None])]
    hang(verdicts)
    words = {row.verdict.word for row in rows} | ({selection.word} if selection is not None else set())
    notes = [summary_line(rows, min_effect), legend(paired, min_effect, words)]
    return Document([verdicts], named, terminal, notes=notes, keys={
        "base": base, "head": head, "min_effect": min_effect, "paired": paired,
        "benchmarks": Table(verdicts.columns, verdicts.rows[:len(rows)]),
        "selection": verdict_record(selection, paired) if selection is not None else None,
        "failed": dict(failed or {}), "gate": {"fail_on": fail_on, "failing": list(gate)} if fail_on else None,
        **({"explain_failed": dict(explain_failed)} if explain_failed is not None else {})})


def verdict_record(verdict: vocabulary.Verdict, paired: bool = True) -> dict:
    """One verdict's keys, as every row has them."""
    return table.records(Table.of(verdict_columns(paired, of=lambda v: v), [verdict]))[0]


def clipped(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."
