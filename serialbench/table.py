"""Plain-text tables for the terminal: columns two spaces apart, each padded to its widest cell."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def text_table(rows: Sequence[Sequence[object]], left: Collection[int] = (0,)) -> list[str]:
    """The rows (the header first) as lines; columns in `left` align left, the others right (numbers)."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return ["  ".join(cell.ljust(width) if i in left else cell.rjust(width)
                      for i, (cell, width) in enumerate(zip(row, widths))).rstrip()
            for row in cells]
