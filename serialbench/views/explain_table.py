"""compare --explain's blocks: under each decided row, the functions whose cost per op moved most.

A row's explanation is one table of the table model (views/table.py), which text, Markdown and JSON
render: the top K functions by the size of their change, then the other functions' change together,
the unexplained change, and the measured one, so that the block adds up to the verdict's change as
the data does (verdicts/explain.py). `block_table` is the table without its heading, the shape a
row's `block` takes under the verdict table's row.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from serialbench.core.formatting import format_change, format_time
from serialbench.verdicts.explain import Explanation
from serialbench.views import table
from serialbench.views.table import Column, Table, column, number
from serialbench.views.verdict_table import change_text

UNEXPLAINED = {"s": "the loop around the op, and the error of taking cProfile's own cost out of each call",
               "instructions": "outside every function callgrind names", "cycles": "outside every function"}


@dataclass(frozen=True)
class Line:
    """A line of the block: a function, or a total (the rest, unexplained, measured)."""

    label: str
    base_own: float | None = None
    head_own: float | None = None
    change: float | None = None
    base_inclusive: float | None = None
    head_inclusive: float | None = None
    mark: str = ""


def _amount(unit: str, value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    if unit != "s":
        return f"{value:+,.0f}" if signed else f"{value:,.0f}"
    text = format_time(abs(value)) if value else "0"
    return (("-" if value < 0 else "+") + text) if signed else text


COUNT_DIGITS = 12  # a count keeps every digit


def _json(unit: str, value: float | None) -> float | None:
    return number(value, COUNT_DIGITS if unit != "s" else 6)


def explain_columns(unit: str) -> list[Column]:
    """The block's columns: per op, in seconds (a timed row) or in the count's unit."""
    def amount(key: str, header: str, signed: bool = False) -> Column:
        return column(key, header, lambda line: _amount(unit, getattr(line, key), signed),
                      lambda line: _json(unit, getattr(line, key)))

    return [column("function", "function", lambda line: line.label, left=True, code=True),
            amount("base_own", "BASE own"), amount("head_own", "HEAD own"), amount("change", "change", True),
            amount("base_inclusive", "BASE incl."), amount("head_inclusive", "HEAD incl."),
            column("mark", "", lambda line: line.mark, left=True)]


def lines(explanation: Explanation, top: int) -> list[Line]:
    shown = [Line(m.label, m.base_own, m.head_own, m.change, m.base_inclusive, m.head_inclusive, m.mark)
             for m in explanation.top(top)]
    others = len(explanation.moved) - len(shown)
    totals = [Line(f"the other {others} functions", change=explanation.rest(top))] if others else []
    return [*shown, *totals,
            Line("unexplained", *explanation.unattributed, explanation.unexplained),
            Line("measured", explanation.base, explanation.head, explanation.change)]


def heading(name: str, word: str, explanation: Explanation, top: int) -> str:
    what = "time" if explanation.unit == "s" else explanation.unit
    return (f"{name}: {word}; where the {what} per op moved (top {min(top, len(explanation.moved))} of "
            f"{len(explanation.moved)} functions by change of own {what}):")


def note(explanation: Explanation) -> str:
    if explanation.unit != "s":
        return (f"counted by callgrind in {explanation.calls[0]:,} calls a side; own: in the function itself, "
                "incl.: with what it calls")
    return (f"cProfile of {explanation.calls[0]:,} and {explanation.calls[1]:,} calls, its own cost per call taken "
            f"out, scaled to each side's median (x{explanation.scales[0]:.2f}, x{explanation.scales[1]:.2f}); "
            f"unexplained: {UNEXPLAINED['s']}; own: in the function itself, incl.: with what it calls")


def block_table(explanation: Explanation, top: int, title: str = "") -> Table:
    """A row's explanation as a table: its lines, and its note under them."""
    return Table.of(explain_columns(explanation.unit), lines(explanation, top), title=title,
                    notes=[note(explanation)])


def block(name: str, word: str, explanation: Explanation, top: int) -> str:
    found = block_table(explanation, top)
    return "\n".join([heading(name, word, explanation, top), *table.text(found, indent="  ")])


def markdown_block(name: str, word: str, explanation: Explanation, top: int) -> str:
    return "\n".join([f"**`{name}`** {heading('', word, explanation, top)[2:]}", "",
                      *table.markdown(block_table(explanation, top)), ""])


def record(explanation: Explanation, top: int) -> dict:
    """A benchmark's `explain` object: the top functions, the rest, the unexplained and measured change."""
    unit = explanation.unit
    return {"unit": unit, "base": _json(unit, explanation.base), "head": _json(unit, explanation.head),
            "change": _json(unit, explanation.change), "unexplained": _json(unit, explanation.unexplained),
            "rest": _json(unit, explanation.rest(top)), "functions_total": len(explanation.moved),
            "scales": [number(scale) for scale in explanation.scales], "calls": list(explanation.calls),
            "top": table.records(Table.of(explain_columns(unit), lines(explanation, top)[:len(explanation.top(top))]))}


def blocks(explanations: Mapping[str, Explanation], words: Mapping[str, str], top: int) -> str:
    return "\n\n".join(block(name, words[name], found, top) for name, found in explanations.items())


def markdown_blocks(explanations: Mapping[str, Explanation], words: Mapping[str, str], top: int) -> str:
    return "\n".join(markdown_block(name, words[name], found, top) for name, found in explanations.items())


def with_explanations(text: str, explanations: Mapping[str, Explanation], top: int,
                      not_explained: Mapping[str, str] | None = None) -> str:
    """A compare JSON (views/verdict_json.py, views/count_table.py) with an `explain` object in each
    explained benchmark, and `explain_failed`: {name: why} of the decided rows it could not explain."""
    data = json.loads(text)
    for benchmark in data["benchmarks"]:
        if benchmark["name"] in explanations:
            benchmark["explain"] = record(explanations[benchmark["name"]], top)
    data["explain_failed"] = dict(not_explained or {})
    return json.dumps(data, indent=1) + "\n"


def timed_word(verdict) -> str:
    """A timed row's verdict as the block's heading says it: 'slower +12.0% [+10.1%, +13.8%]'."""
    return f"{verdict.word} {change_text(verdict)}"


def counted_word(row) -> str:
    """A counted row's verdict as the block's heading says it: 'more instructions +3.1%'."""
    return f"{row.verdict} {format_change(row.change)}"


def wrapped(markdown: Callable[[], str], as_json: Callable[[], str], explained, words: Mapping[str, str],
            top: int) -> tuple[Callable[[], str], Callable[[], str]]:
    """The --markdown and --json writers of a table, each with the explanations after or inside it."""
    found, not_explained = explained
    return (lambda: markdown() + "\n" + markdown_blocks(found, words, top),
            lambda: with_explanations(as_json(), found, top, not_explained))


def failures(not_explained: Mapping[str, str]) -> Sequence[str]:
    return [f"--explain: {name}: {why}" for name, why in not_explained.items()]
