"""report's grids: rows of FORMAT/IMPL, a column per tier, each cell a few lines; as text or Markdown
through core/tables.py, the one renderer of each."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from serialbench.catalog.case import DIRECTIONS
from serialbench.catalog.registry import FLOOR
from serialbench.core.tables import markdown_table, text_table
from serialbench.results.files import Result


@dataclass
class Cell:
    lines: list[str]
    marked: bool = False  # fastest of its format (one file) or a flagged change (two files)
    tie: bool = False  # the fastest of its format and the next, which no test separates


@dataclass
class Table:
    title: str
    legend: str
    columns: list[str]
    rows: list[tuple[str, list[Cell | None]]] = field(default_factory=list)
    group_starts: set[int] = field(default_factory=set)  # row indexes where a new format begins
    corner: str = "FORMAT/IMPL"  # the header of the row labels
    notes: list[str] = field(default_factory=list)  # lines under the table


def groups(selected: list[Result]):
    """(input kind, direction, results) in the order the file has them, the directions in the order
    of one inference (encode, decode, encode-response, decode-response)."""
    kinds = list(dict.fromkeys(r.input for r in selected))
    for kind in kinds:
        for direction in DIRECTIONS:
            group = [r for r in selected if r.input == kind and r.direction == direction]
            if group:
                yield kind, direction, group


def rows(group: list[Result], table: Table):
    """(FORMAT/IMPL, {tier: result}) with the formats in file order, baseline first."""
    rows: dict[str, dict[str, Result]] = {}
    for result in sorted(group, key=lambda r: r.format != FLOOR[0]):  # stable: file order otherwise
        rows.setdefault(result.row, {})[result.tier] = result
    previous_format = None
    for index, (row, by_tier) in enumerate(rows.items()):
        row_format = row.split("/")[0]
        if previous_format is not None and row_format != previous_format:
            table.group_starts.add(index)
        previous_format = row_format
        yield row, by_tier


def _cell_lines(cell: Cell | None) -> list[str]:
    if cell is None:
        return ["-"]
    mark = "* " if cell.marked else "= " if cell.tie else ""
    return [f"{mark}{cell.lines[0]}", *cell.lines[1:]]


def render_text(table: Table, legend: bool = True) -> str:
    rows: list = [[table.corner, *table.columns]]
    for index, (row, cells) in enumerate(table.rows):
        if index in table.group_starts:
            rows.append(None)
        rows.append([row, *(_cell_lines(cell) for cell in cells)])
    lines = text_table(rows, rule=True) + table.notes
    head = [table.title] + ([textwrap.fill(table.legend, max(len(lines[0]), 100))] if legend else [])
    return "\n".join(head + lines) + "\n"


def render_markdown(table: Table) -> str:
    rows = [[table.corner, *table.columns]]
    for row, cells in table.rows:
        texts = []
        for cell in cells:
            parts = [part.replace("  ", " · ") for part in (cell.lines if cell else ["-"])]
            if cell is not None and cell.marked:
                parts[0] = f"**{parts[0]}**"
            elif cell is not None and cell.tie:
                parts[0] = f"= {parts[0]}"
            texts.append(parts)
        rows.append([row, *texts])
    notes = ["", *table.notes] if table.notes else []
    return "\n".join([f"### {table.title}", "", table.legend, "", *markdown_table(rows), *notes]) + "\n"
