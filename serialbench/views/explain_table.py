"""--explain's blocks: under each decided row (or step), the functions whose cost per op moved most.

A row's explanation is one table of the table model (views/table.py), which text, Markdown and JSON
render: the top K functions by the size of their change, then the other functions' change together,
the unexplained change, and the measured one, so that the block adds up to the verdict's change as
the data does (verdicts/explain.py). It hangs under its row of the verdict table (`Row.block`): the
terminal indents it under the row, Markdown gives it as a table after the verdicts', the JSON as the
row's `block` beside its `explain` object, the site in a row of its own under the row. A sweep's
explained steps hang under their benchmark's row of its grid (views/sweep_table.py), a bisection's under
the step's line (views/bisect_steps.py); their JSON has the `explain` object in the step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from serialbench.core.formatting import format_time
from serialbench.verdicts.explain import Explanation
from serialbench.views import table
from serialbench.views.table import COUNT_DIGITS, Column, Table, column, number

UNEXPLAINED = {"s": "the loop around the op, and the error of taking cProfile's own cost out of each call",
               "instructions": "outside every function callgrind names", "cycles": "outside every function"}


@dataclass(frozen=True)
class Line:
    """A line of the block read back from an `explain` object: a function, or a total (the rest,
    unexplained, measured). It has the fields of verdicts/explain.py's Moved, which `record` lays out."""

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
    if unit != "s":  # a whole count: rounded first, so that a rounding error of -1e-9 prints 0, not -0
        return f"{round(value):+,}" if signed else f"{round(value):,}"
    text = format_time(abs(value)) if value else "0"
    return ("-" if value < 0 else "+" if signed else "") + text


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


def record(explanation: Explanation, top: int) -> dict:
    """A benchmark's `explain` object: the top functions, the rest, the unexplained and measured change,
    each side's cost that no function holds. Every output's block is drawn from it (`block_table`), and
    the side files keep it, so that `report` draws the very block compare did."""
    unit = explanation.unit
    return {"unit": unit, "base": _json(unit, explanation.base), "head": _json(unit, explanation.head),
            "change": _json(unit, explanation.change), "unexplained": _json(unit, explanation.unexplained),
            "unattributed": [_json(unit, value) for value in explanation.unattributed],
            "rest": _json(unit, explanation.rest(top)), "functions_total": len(explanation.moved),
            "scales": [number(scale) for scale in explanation.scales], "calls": list(explanation.calls),
            "top": table.records(Table.of(explain_columns(unit), explanation.top(top)))}


def lines(found: dict) -> list[Line]:
    """The block's lines from an `explain` object: the top functions, the others together, the
    unexplained (each side's cost outside every function) and the measured change."""
    shown = [Line(f["function"], f["base_own"], f["head_own"], f["change"], f["base_inclusive"],
                  f["head_inclusive"], f["mark"]) for f in found["top"]]
    others = found["functions_total"] - len(shown)
    totals = [Line(f"the other {others} functions", change=found["rest"])] if others else []
    unattributed = found.get("unattributed") or [None, None]  # files written before it was kept: '-'
    return [*shown, *totals, Line("unexplained", *unattributed, found["unexplained"]),
            Line("measured", found["base"], found["head"], found["change"])]


def heading(found: dict) -> str:
    what = "time" if found["unit"] == "s" else found["unit"]
    return (f"where the {what} per op moved: the top {len(found['top'])} of {found['functions_total']} functions "
            f"by change of own {what}")


def notes(found: dict) -> list[str]:
    """What the figures are, under the block: two short lines rather than one a page wide."""
    calls, scales = found["calls"], found["scales"]
    if found["unit"] != "s":
        return [f"counted by callgrind in {calls[0]:,} calls a side; own: in the function itself, "
                "incl.: with what it calls"]
    return [f"cProfile of {calls[0]:,} and {calls[1]:,} calls, its own cost per call taken out, scaled to each "
            f"side's median (x{scales[0]:.2f}, x{scales[1]:.2f}); own: in the function itself, incl.: with what "
            "it calls", f"unexplained: {UNEXPLAINED['s']}"]


def block_table(found: dict, name: str = "") -> Table:
    """A row's block (Row.block): its heading (after the benchmark's name, where the row is not the
    benchmark's own), the lines of its `explain` object, and its notes."""
    return Table.of(explain_columns(found["unit"]), lines(found), legend=f"{name}: " * bool(name) + heading(found),
                    notes=notes(found))


def grid_block(found: Mapping[str, dict]) -> Table:
    """The block of a report grid's row (FORMAT/IMPL, a cell a tier): its explained benchmark's block,
    headed by its name; or, where several tiers were explained, their names, each one's block under it."""
    if len(found) == 1:
        (name, item), = found.items()
        return block_table(item, name)
    named = Table.of([column("name", "explained", lambda name: name, left=True, code=True)], list(found))
    for row, item in zip(named.rows, found.values()):
        row.block = block_table(item)
    return named


def hanging(found: Mapping[str, dict]) -> Callable[[Table], None]:
    """What hangs the explanations on a verdict table's rows (by their `name`): each explained row's block,
    and its `explain` object (`record`, or read back from the side files) in its JSON keys."""

    def hang(verdicts: Table) -> None:
        for row in verdicts.rows:
            if row.data.get("name") in found:
                row.data["explain"] = found[row.data["name"]]
                row.block = block_table(found[row.data["name"]])
    return hang


def failures(not_explained: Mapping[str, str]) -> Sequence[str]:
    return [f"--explain: {name}: {why}" for name, why in not_explained.items()]
