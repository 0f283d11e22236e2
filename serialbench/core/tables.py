"""The one text-table renderer and the one Markdown renderer: every view's tables go through these.

A table is a header row and body rows of cells; a cell is a string, or a list of strings when it
takes several lines (report's grids: the time, under it the throughput). Columns are two spaces
apart, each as wide as its widest line; numbers align right, names left. An empty row (None) is a
blank separator line (between the formats of a grid).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

Cell = str | Sequence[str]


def _lines(cell: object) -> list[str]:
    if isinstance(cell, str):
        return [cell]
    if isinstance(cell, Sequence):
        return [str(line) for line in cell] or [""]
    return [str(cell)]


def text_table(rows: Sequence[Sequence[object] | None], left: Collection[int] = (0,), rule: bool = False) -> list[str]:
    """The rows (the header first) as lines; columns in `left` align left, the others right.

    `rule` draws a line of dashes above and below the header and at the end. A row of None is a
    blank line; a cell may be a list of lines (the row then takes as many lines as its tallest cell)."""
    grid = [None if row is None else [_lines(cell) for cell in row] for row in rows]
    body = [row for row in grid if row is not None]
    columns = max(len(row) for row in body)
    widths = [max((len(line) for row in body if i < len(row) for line in row[i]), default=0) for i in range(columns)]
    out: list[str] = []
    for row in grid:
        if row is None:
            out.append("")
            continue
        for line_no in range(max(len(cell) for cell in row)):
            texts = [cell[line_no] if line_no < len(cell) else "" for cell in row]
            out.append("  ".join(text.ljust(width) if i in left else text.rjust(width)
                                 for i, (text, width) in enumerate(zip(texts, widths))).rstrip())
    if rule:
        dashes = "-" * max(len(line) for line in out)
        header_height = max(len(cell) for cell in grid[0])
        out = [dashes, *out[:header_height], dashes, *out[header_height:], dashes]
    return out


def markdown_table(rows: Sequence[Sequence[object]], left: Collection[int] = (0,)) -> list[str]:
    """The rows (the header first) as a GitHub Markdown table; a multi-line cell is joined with <br>."""
    def text(cell: object) -> str:
        return "<br>".join(line.replace("|", "\\|") for line in _lines(cell))

    header, *body = rows
    align = "|" + "".join("---|" if i in left else "---:|" for i in range(len(header)))
    lines = ["| " + " | ".join(text(cell) for cell in row) + " |" for row in (header, *body)]
    return [lines[0], align, *lines[1:]]
