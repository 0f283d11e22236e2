"""The tables every view prints: rows of FORMAT/IMPL, a column per tier, as text or Markdown."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from serialbench.results import FLOOR, Result


@dataclass
class Cell:
    lines: list[str]
    marked: bool = False  # fastest of its format (one file) or a flagged change (two files)


@dataclass
class Table:
    title: str
    legend: str
    columns: list[str]
    rows: list[tuple[str, list[Cell | None]]] = field(default_factory=list)
    group_starts: set[int] = field(default_factory=set)  # row indexes where a new format begins


def groups(selected: list[Result]):
    """(input kind, direction, results) in the order the file has them, encode before decode."""
    kinds = list(dict.fromkeys(r.input for r in selected))
    for kind in kinds:
        for direction in ("encode", "decode"):
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


def render_markdown(table: Table) -> str:
    lines = [f"### {table.title}", "", table.legend, "", "| FORMAT/IMPL | " + " | ".join(table.columns) + " |",
             "|---|" + "---:|" * len(table.columns)]
    for row, cells in table.rows:
        texts = []
        for cell in cells:
            if cell is None:
                texts.append("-")
                continue
            parts = [part.replace("|", "\\|").replace("  ", " · ") for part in cell.lines]
            if cell.marked:
                parts[0] = f"**{parts[0]}**"
            texts.append("<br>".join(parts))
        lines.append(f"| {row} | " + " | ".join(texts) + " |")
    return "\n".join(lines) + "\n"


def render_text(table: Table, legend: bool = True) -> str:
    grid = []
    for row, cells in table.rows:
        texts = []
        for cell in cells:
            if cell is None:
                texts.append(["-"])
            else:
                texts.append([f"* {cell.lines[0]}" if cell.marked else cell.lines[0], *cell.lines[1:]])
        grid.append((row, texts))
    label_width = max([len("FORMAT/IMPL")] + [len(row) for row, _ in grid])
    widths = [max([len(column)] + [len(line) for _, texts in grid for line in texts[i]])
              for i, column in enumerate(table.columns)]
    header = "FORMAT/IMPL".ljust(label_width) + "".join("  " + c.rjust(w) for c, w in zip(table.columns, widths))
    rule = "-" * len(header)
    out = [table.title, *([_wrap(table.legend, max(len(header), 100))] if legend else []), rule, header, rule]
    for index, (row, texts) in enumerate(grid):
        if index in table.group_starts:
            out.append("")
        height = max(len(lines) for lines in texts)
        for line_no in range(height):
            label = row if line_no == 0 else ""
            out.append(label.ljust(label_width) + "".join(
                "  " + (lines[line_no] if line_no < len(lines) else "").rjust(width)
                for lines, width in zip(texts, widths)))
    out.append(rule)
    return "\n".join(out) + "\n"


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width))

