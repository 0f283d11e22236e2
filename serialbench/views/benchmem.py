"""The memory pass's answer as `go test -benchmem` prints it: one line per benchmark, its median
time per op beside B/op and allocs/op, then peak and retained; one table per input kind and
direction. `memory` prints it when done, and the run's summary adds it when the file has a memory
companion."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from serialbench.catalog.inputs import tier_order
from serialbench.catalog.registry import FLOOR
from serialbench.core.formatting import format_bytes, format_time
from serialbench.core.tables import text_table
from serialbench.results.files import Result
from serialbench.views.grid import groups

HEADER = ("benchmark", "time/op", "B/op", "allocs/op", "peak", "retained")
LEGEND = ("B/op, allocs/op: bytes and allocation calls per op, Python's and native allocators (memray), "
          "the harness's own (baseline/noop) taken off; peak, retained: tracemalloc (Python's allocators "
          "and numpy), above the level before the op, and still held by its result.")


def benchmem(selected: Sequence[Result]) -> str:
    """The tables of the selected results that have memory figures; '' when none has."""
    parts = []
    for kind, direction, group in groups([r for r in selected if r.memory is not None]):
        rows: list = [HEADER]
        tiers = tier_order(r.tier for r in group)
        by_row: dict[str, list[Result]] = {}
        for result in sorted(group, key=lambda r: r.format != FLOOR[0]):  # baseline first, else file order
            by_row.setdefault(result.row, []).append(result)
        previous = None
        for row, results in by_row.items():
            if previous is not None and row.split("/")[0] != previous:
                rows.append(None)
            previous = row.split("/")[0]
            rows.extend(_line(r) for r in sorted(results, key=lambda r: tiers.index(r.tier)))
        parts.append(f"{kind}, {direction}: per op\n" + "\n".join(text_table(rows, rule=True)) + "\n")
    return "\n".join(parts) + (textwrap.fill(LEGEND, 100) + "\n" if parts else "")


def _line(result: Result) -> tuple[str, ...]:
    memory = result.memory
    counted = memory.bytes_per_op is not None
    return (result.name, format_time(result.median) if result.median is not None else "not timed",
            f"{round(memory.bytes_per_op):,}" if counted else "-",
            f"{round(memory.allocs_per_op):,}" if counted else "-",
            format_bytes(memory.peak_bytes), format_bytes(memory.retained_bytes))
