"""The run's answer, under its tables: per input kind and direction, the fastest implementation of each
format and by how much it beats the next, or a tie, as hyperfine ends with "X ran 1.52 times faster
than Y".

It says nothing the tables do not: each group's test is the one that puts `*` or `=` in the table
(verdicts/rankings.table_rankings), and "by how much" is that test's paired estimate of the next over the
fastest. A line per input kind, direction and format that has two implementations or more; the tiers
at which the same two come first and second share a clause.
"""

from __future__ import annotations

from serialbench.catalog.inputs import tier_order
from serialbench.core.formatting import format_ratio
from serialbench.results.files import Result
from serialbench.verdicts.rankings import Ranking, table_rankings
from serialbench.verdicts.timings import timing
from serialbench.views.grid import groups
from serialbench.views.table import Table

HEAD = "The answer: the fastest of each format, by how much it beats the next (= a tie):"
ROUNDTRIP_HEAD = "The answer: the cheapest protocol for the whole inference (paired test):"


def answer_lines(selected: list[Result]) -> list[str]:
    """The head and a line per input kind, direction and format with a ranking; [] when none has one."""
    found = table_rankings(selected, {result.name: timing(result.benchmark) for result in selected})
    if not found:
        return []
    formats = list(dict.fromkeys(key[2] for key in found))
    impl = {result.name: result.impl for result in selected}
    lines = []
    for kind, direction, _ in groups(selected):
        for fmt in formats:
            tiers = {key[3]: value for key, value in found.items() if key[:3] == (kind, direction, fmt)}
            if tiers:
                label = f"{kind} {direction}" + (f", {fmt}" if len(formats) > 1 else "")
                lines.append(f"  {label}: {_clauses(tiers, impl)}")
    head = HEAD if len(formats) > 1 else HEAD.replace("each format", formats[0])
    return [head, *lines]


def roundtrip_answer(trips: list[Table]) -> list[str]:
    """The round trip's answer, one line per input kind and tier with two protocols or more: the notes under
    its tables (views/roundtrip_table.py), which name the cheapest protocol or say that no test separates two."""
    return [f"  {table.title.split(',')[0]} round trip: {note}" for table in trips for note in table.notes]


def _clauses(tiers: dict[str, tuple[Ranking, bool]], impl: dict[str, str]) -> str:
    """'zero-copy = join at 1K; zero-copy beats join by 1.43x at 10K, 6.71x at 100K', tiers in size order."""
    clauses: dict[tuple[str, str, bool], list[str]] = {}
    for tier in tier_order(tiers):
        ranking, starred = tiers[tier]
        pair = (impl[ranking.fastest], impl[ranking.next])
        if not starred and (pair[1], pair[0], False) in clauses:  # a tie reads the same either way round
            pair = (pair[1], pair[0])
        clauses.setdefault((*pair, starred), []).append(f"{_times(ranking.ratio)} at {tier}" if starred else tier)
    return "; ".join(f"{first} beats {second} by {', '.join(words)}" if starred
                     else f"{first} = {second} at {', '.join(words)}"
                     for (first, second, starred), words in clauses.items())


def _times(ratio: float) -> str:
    """How many times faster: two decimals below 10x (1.04x), the multiple's own form above."""
    return f"{ratio:.2f}x" if ratio < 10 else format_ratio(ratio)

