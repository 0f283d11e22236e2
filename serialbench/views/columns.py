"""One column spec for every table a command prints: the text, Markdown and JSON views all read it.

A `Column` says once what a column is: its header, how a row's cell reads as text, the JSON keys it
gives the row (numbers as numbers: seconds per op, changes as fractions), and its line of the
legend. `text`, `markdown` and `records` lay out the same rows three ways (the layouts themselves
are core/tables.py's), so that a new statistic is a function of the row and one Column, and every
view has it, as benchstat's benchtab builds one table that its text and CSV writers both render.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from serialbench.core.tables import markdown_table, text_table


@dataclass(frozen=True)
class Column:
    """text: the cell (None: the column is in the JSON only); json: the keys it gives the row;
    legend: its line of the legend, a footnote under the table ('' when the header says it all)."""

    header: str
    text: Callable[[Any], str] | None
    json: Callable[[Any], Mapping[str, Any]] = field(default=lambda row: {})
    legend: str = ""
    left: bool = False
    code: bool = False  # a name: in backticks in Markdown


def column(key: str, header: str, text: Callable[[Any], str] | None, value: Callable[[Any], Any] | None = None,
           legend: str = "", left: bool = False, code: bool = False) -> Column:
    """A column whose JSON is one key: `value(row)`, or the cell's text."""
    def json(row) -> dict[str, Any]:
        return {key: value(row) if value is not None else text(row)}

    return Column(header, text, json, legend, left, code)


COUNT_DIGITS = 12  # a count (bytes, allocations, instructions) keeps every digit


def number(value: float | None, digits: int = 6) -> float | None:
    """A number for JSON: `digits` significant digits (a measurement: 6; a count: COUNT_DIGITS);
    None for a missing or non-finite one."""
    if value is None or not math.isfinite(value):
        return None
    return float(f"{value:.{digits}g}")


def shown(columns: Sequence[Column]) -> list[Column]:
    return [c for c in columns if c.text is not None]


def cells(columns: Sequence[Column], rows: Sequence[Any]) -> list[tuple[str, ...]]:
    """The header and one tuple of texts per row; a row of None stays None (a blank separator)."""
    visible = shown(columns)
    return [tuple(c.header for c in visible),
            *(None if row is None else tuple(c.text(row) for c in visible) for row in rows)]


def left_columns(columns: Sequence[Column]) -> tuple[int, ...]:
    return tuple(i for i, c in enumerate(shown(columns)) if c.left)


def text(columns: Sequence[Column], rows: Sequence[Any], rule: bool = False) -> list[str]:
    return text_table(cells(columns, rows), left=left_columns(columns), rule=rule)


def markdown(columns: Sequence[Column], rows: Sequence[Any]) -> list[str]:
    visible = shown(columns)
    header, *body = cells(columns, [row for row in rows if row is not None])
    body = [tuple(f"`{cell}`" if c.code and cell else cell for c, cell in zip(visible, line)) for line in body]
    return markdown_table([header, *body], left=left_columns(columns))


def records(columns: Sequence[Column], rows: Sequence[Any]) -> list[dict[str, Any]]:
    """The rows as JSON objects: every column's keys, in column order."""
    return [{key: value for c in columns for key, value in c.json(row).items()} for row in rows if row is not None]


def legend(columns: Sequence[Column]) -> list[str]:
    """The columns' legend lines, in column order."""
    return [c.legend for c in columns if c.legend]
