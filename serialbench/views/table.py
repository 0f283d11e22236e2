"""The one table model of every output: a command builds a Table once, and text, Markdown, JSON and the
site's data only render it.

benchstat's `benchtab` is the model: one table, writers that lay it out. A `Table` has a title, a legend
(a paragraph above it) and notes (lines under it), its `Column`s, and `Row`s in groups (a blank line
between two groups in the text, a rule on the page); a row may carry a label (FORMAT/IMPL, under the
table's `corner` header), its `Cell`s, its JSON keys (`data`) and a `block`: a small table of its own
drawn under the row (compare --explain's functions). A `Cell` is the lines it prints, a mark (`*` the
fastest, separated from the next by a test; `=` a tie) and the `Figure`s behind its text: each a number
with its kind, its interval and the text it prints, so that the JSON carries the very number the
terminal and the page show. Numbers are formatted in core/formatting.py and nowhere else.

A table of objects is declared by its columns (`Column`: header, the cell's text, the JSON keys, a line
of legend) and built with `Table.of(columns, objects)`; a grid (report's FORMAT/IMPL by tier) is built
cell by cell.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from serialbench.core import formatting
from serialbench.core.tables import markdown_table, text_table

COUNT_DIGITS = 12  # a count (bytes, allocations, instructions) keeps every digit
FORMATS: dict[str, Callable[[float], str]] = {
    "time": formatting.format_time, "ratio": formatting.format_ratio, "bytes": formatting.format_bytes,
    "change": formatting.format_change, "percent": formatting.format_percent,
    "throughput": formatting.format_throughput,
}


def number(value: float | None, digits: int = 6) -> float | None:
    """A number for JSON: `digits` significant digits (a measurement: 6; a count: COUNT_DIGITS);
    None for a missing or non-finite one."""
    if value is None or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(f"{value:.{digits}g}")


@dataclass(frozen=True)
class Figure:
    """A number of a cell: its value, its kind (a key of FORMATS), its interval where the run gave one,
    and the text the cell prints for it (the value, and its half-width where the view shows it)."""

    value: float | None
    kind: str
    low: float | None = None
    high: float | None = None
    text: str = ""

    def json(self) -> dict[str, float | None]:
        """The numbers, with the digits that keep the text: a script that formats the JSON's value with
        core/formatting.py prints what the terminal did (6 digits turn 77.74999 us into 77.8, not 77.7)."""
        return {key: number(value, COUNT_DIGITS) for key, value in
                (("value", self.value), ("low", self.low), ("high", self.high))}


def figure(value: float | None, kind: str, low: float | None = None, high: float | None = None,
           suffix: str = "") -> Figure:
    """A Figure whose text is core/formatting's for its kind ('-' for no value), then `suffix`."""
    text = "-" if value is None else FORMATS[kind](value)
    return Figure(value, kind, low, high, text + suffix)


@dataclass
class Cell:
    """lines: what the cell prints, the first the main one; mark: '*', '=' or ''; figures: the numbers
    behind the text by name (JSON and the site read them); notes: words a figure stands aside for
    ('no copy', 'two speeds')."""

    lines: list[str]
    mark: str = ""
    figures: dict[str, Figure] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Column:
    """A column: its header; for a table of objects (Table.of) the cell's `text` (None: the column is in
    the JSON only) and the JSON keys it gives the row; its line of legend ('' when the header says it
    all); `left` for names, `code` for a name in backticks in Markdown."""

    header: str
    text: Callable[[Any], str] | None = None
    json: Callable[[Any], Mapping[str, Any]] = field(default=lambda row: {})
    legend: str = ""
    left: bool = False
    code: bool = False


def column(key: str, header: str, text: Callable[[Any], str] | None, value: Callable[[Any], Any] | None = None,
           legend: str = "", left: bool = False, code: bool = False) -> Column:
    """A column whose JSON is one key: `value(row)`, or the cell's text."""
    def json(row) -> dict[str, Any]:
        return {key: value(row) if value is not None else text(row)}

    return Column(header, text, json, legend, left, code)


@dataclass
class Row:
    """A row: its label (None in a table without a label column), its cells, its JSON keys, its group
    (a new group starts where the key changes) and a block of lines under it (a Table, or None)."""

    label: str | None
    cells: list[Cell | None]
    data: dict[str, Any] = field(default_factory=dict)
    group: Any = None
    block: Table | None = None


@dataclass
class Table:
    columns: list[Column]
    rows: list[Row] = field(default_factory=list)
    title: str = ""
    legend: str = ""  # a paragraph above the table
    notes: list[str] = field(default_factory=list)  # lines under it
    corner: str | None = None  # the header of the row labels; None: the rows have no label
    code: bool = False  # the labels are names: in backticks in Markdown
    rule: bool | None = None  # ruled above and under the header and at the end in the text; None: when titled

    @classmethod
    def of(cls, columns: Sequence[Column], objects: Iterable[Any], group: Callable[[Any], Any] | None = None,
           **fields) -> Table:
        """A table of objects: a row each, a cell per column that has text, every column's JSON keys."""
        shown = [c for c in columns if c.text is not None]
        rows = [Row(None, [Cell([c.text(item)]) for c in shown],
                    {key: value for c in columns for key, value in c.json(item).items()},
                    group(item) if group else None) for item in objects]
        return cls(shown, rows, **fields)


def by_format(label: str) -> str:
    """The group of a FORMAT/IMPL row: its format."""
    return label.split("/")[0]


def _starts(table: Table) -> list[bool]:
    """Whether each row begins a new group (never the first)."""
    return [i > 0 and row.group != table.rows[i - 1].group for i, row in enumerate(table.rows)]


def _left(table: Table) -> tuple[int, ...]:
    offset = table.corner is not None
    return (0,) * offset + tuple(i + offset for i, c in enumerate(table.columns) if c.left)


def _marked(cell: Cell | None, bold: bool = False) -> list[str]:
    if cell is None:
        return ["-"]
    if cell.mark == "*" and bold:
        return [f"**{cell.lines[0]}**", *cell.lines[1:]]
    return [f"{cell.mark} {cell.lines[0]}" if cell.mark else cell.lines[0], *cell.lines[1:]]


def _header(table: Table) -> list[list[str]]:
    """The header's cells, a line each side of a newline (a sweep's side over its machine's letter)."""
    return [header.split("\n") for header in ([table.corner] if table.corner is not None else [])
            + [c.header for c in table.columns]]


def text(table: Table, legend: bool = True, indent: str = "") -> list[str]:
    """The table as the terminal shows it: its title and legend (wrapped), the columns laid out by
    core/tables.py (ruled as `table.rule` says), each row's block indented under it, the notes."""
    rule = bool(table.title) if table.rule is None else table.rule
    rows = []
    for row, start in zip(table.rows, _starts(table)):
        if start:
            rows.append(None)
        rows.append(([row.label] if table.corner is not None else []) + [_marked(cell) for cell in row.cells])
    lines = text_table([_header(table), *rows], left=_left(table), rule=rule)
    blocks = [row.block for row in table.rows]
    if any(blocks):  # each block's lines under its row's last line
        lines = _with_blocks(lines, rows, blocks, rule)
    head = [table.title] if table.title else []
    if table.legend and legend:
        head += textwrap.wrap(table.legend, max(len(lines[0]), 100))
    return [indent + line for line in head + lines + table.notes]


def _with_blocks(lines: list[str], rows: list, blocks: list[Table | None], rule: bool) -> list[str]:
    at = 1 + 2 * rule  # the header's line, and its rules
    out = lines[:at]
    blocks = iter(blocks)
    for row in rows:
        height = 1 if row is None else max(len(cell) if isinstance(cell, list) else 1 for cell in row)
        out += lines[at:at + height]
        at += height
        if row is not None and (block := next(blocks)) is not None:
            out += text(block, indent="    ")
    return out + lines[at:]


def markdown(table: Table) -> list[str]:
    """The table as GitHub Markdown: the title a heading, the legend a paragraph, the fastest in bold, a
    tie '= ', a name in backticks; each row's block a list under the table."""
    codes = [c.code for c in table.columns]
    rows = [_header(table)]
    for row in table.rows:
        cells = [[line.strip() for line in _marked(cell, bold=True)] for cell in row.cells]
        if table.corner is not None:  # a grid's cell: its figures a dot apart on one line
            cells = [[part.replace("  ", " · ") for part in lines] for lines in cells]
        cells = [[f"`{line}`" for line in lines] if code and cell is not None and cell.lines[0] else lines
                 for lines, code, cell in zip(cells, codes, row.cells)]
        label = f"`{row.label}`" if table.code else row.label
        rows.append(([label] if table.corner is not None else []) + cells)
    out = [f"### {table.title}", ""] if table.title else []
    out += [table.legend, ""] if table.legend else []
    out += markdown_table(rows, left=_left(table))
    for row in table.rows:
        if row.block is not None:
            out += ["", f"{row.label or row.data.get('name', '')}:", "", *markdown(row.block)]
    return out + (["", *table.notes] if table.notes else [])


def records(table: Table) -> list[dict[str, Any]]:
    """The rows as JSON objects: every column's keys (Table.of), or the label and each cell's figures
    (a grid), and the row's block as records of its own."""
    out = []
    for row in table.rows:
        record = dict(row.data)
        if not record:
            record = {"label": row.label, "cells": {c.header: _cell_json(cell) for c, cell in zip(table.columns,
                                                                                                  row.cells)}}
        if row.block is not None:
            record["block"] = records(row.block)
        out.append(record)
    return out


def _cell_json(cell: Cell | None) -> dict | None:
    if cell is None:
        return None
    return {**{name: f.json() for name, f in cell.figures.items()}, "mark": cell.mark, "notes": list(cell.notes)}


def data(table: Table) -> dict[str, Any]:
    """The table as the site draws it (assets/site.js `drawTable`): the texts as the terminal prints
    them. A cell is its lines, or {lines, mark} when marked; a row gives `start` where a group begins,
    `data` (its JSON keys) and `block` only when it has them: a run of 864 benchmarks is a large page."""
    rows = []
    for row, start in zip(table.rows, _starts(table)):
        found = {"label": row.label, "cells": [None if cell is None else {"lines": cell.lines, "mark": cell.mark}
                                               if cell.mark else cell.lines for cell in row.cells]}
        found.update({key: value for key, value in (("start", start), ("data", row.data)) if value})
        if row.block is not None:
            found["block"] = data(row.block)
        rows.append(found)
    return {"title": table.title, "legend": table.legend, "notes": table.notes, "corner": table.corner,
            "columns": [c.header for c in table.columns], "left": list(_left(table)), "rows": rows}


def render_text(table: Table, legend: bool = True) -> str:
    """text() as one string, ending in a newline: a grid as report prints it."""
    return "\n".join(text(table, legend=legend)) + "\n"


def render_markdown(table: Table) -> str:
    return "\n".join(markdown(table)) + "\n"


class Wrapped(str):
    """A note that is a paragraph of prose: wrapped at WIDTH in the text, as the legend is (a sweep's)."""


WIDTH = 100  # the text's paragraphs (a legend, a Wrapped note) are wrapped at this width
Note = str | list[str | tuple[str, str]]  # a Document's note: a line (a Wrapped paragraph), or a list of lines


@dataclass
class Document:
    """A command's whole answer: the lines above its tables, its tables, what is under them, and its JSON's
    top-level keys. `text()`, `markdown()` and `json()` lay it out, the only code that does: the terminal,
    a --markdown file and a --json file are drawn from one document.

    - head: lines above the tables, in the text only (compare's sides, named when the table is too wide);
    - terminal: the tables as the terminal shows them, where they differ (compare's headers, narrowed);
    - legend: a paragraph right under the tables, wrapped in the text (memory's);
    - notes: lines under a blank line: each a line of the text and a paragraph of the Markdown (a Wrapped
      one wrapped in the text; an empty one a blank line of the text only, between two groups of notes), or
      a list of lines, a bulleted list in Markdown (compare's footnotes); a line of such a list may be a
      (name, words) pair, 'name: words', the name in backticks in Markdown (a sweep's steps);
    - keys: the JSON's top-level keys, in order; a Table among the values is given as its records.
    """

    tables: list[Table]
    head: list[str] = field(default_factory=list)
    terminal: list[Table] | None = None
    legend: str = ""
    notes: list[Note] = field(default_factory=list)
    keys: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        """What the terminal shows, without the newline at its end: the tables a blank line apart."""
        lines = list(self.head)
        for index, shown in enumerate(self.tables if self.terminal is None else self.terminal):
            lines += [""] * bool(index) + text(shown)
        lines += textwrap.wrap(self.legend, WIDTH) if self.tables else []
        if self.notes:
            lines += ["", *(line for note in self.notes for line in _note_text(note))]
        return "\n".join(lines)

    def markdown(self) -> str:
        """The --markdown file: the tables, the legend and each note a paragraph, a blank line apart."""
        blocks = [markdown(shown) for shown in self.tables] + [[self.legend]] * bool(self.legend)
        blocks += [_note_markdown(note) for note in self.notes if note != ""]  # '': a blank line of the text
        return "\n".join(line for index, block in enumerate(blocks) for line in [""] * bool(index) + block) + "\n"

    def json(self) -> str:
        """The --json file: the keys, each table as its records."""
        return json.dumps({key: records(value) if isinstance(value, Table) else value
                           for key, value in self.keys.items()}, indent=1) + "\n"


def _note_text(note: Note) -> list[str]:
    if isinstance(note, str):
        return textwrap.wrap(note, WIDTH) if isinstance(note, Wrapped) else [note]
    return [": ".join(line) if isinstance(line, tuple) else line for line in note]


def _note_markdown(note: Note) -> list[str]:
    if isinstance(note, str):
        return [note]
    return [f"- `{line[0]}`: {line[1]}" if isinstance(line, tuple) else f"- {line}" for line in note]
