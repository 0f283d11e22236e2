"""The memory pass's answer as `go test -benchmem` prints it: one line per benchmark, its median
time per op beside B/op and allocs/op, then peak and retained; one table per input kind and
direction. `memory` prints it when done (and as Markdown and JSON: the same columns), and the run's
summary adds it when the file has a memory companion."""

from __future__ import annotations

from collections.abc import Sequence

from serialbench.catalog.inputs import tier_order
from serialbench.core.formatting import format_bytes, format_time
from serialbench.results.files import Result
from serialbench.views.grid import groups
from serialbench.views.grid import rows as grid_rows
from serialbench.views.table import COUNT_DIGITS, Document, Table, column, number

LEGEND = ("B/op, allocs/op: bytes and allocation calls per op, Python's and native allocators (memray), "
          "the harness's own (baseline/noop) taken off; peak, retained: tracemalloc (Python's allocators "
          "and numpy), above the level before the op, and still held by its result.")


def _counted(result: Result) -> bool:
    return result.memory.bytes_per_op is not None


COLUMNS = [
    column("name", "benchmark", lambda r: r.name, left=True, code=True),
    column("median", "time/op", lambda r: format_time(r.median) if r.median is not None else "not timed",
           lambda r: number(r.median)),
    column("bytes_per_op", "B/op", lambda r: f"{round(r.memory.bytes_per_op):,}" if _counted(r) else "-",
           lambda r: number(r.memory.bytes_per_op, COUNT_DIGITS)),
    column("allocs_per_op", "allocs/op", lambda r: f"{round(r.memory.allocs_per_op):,}" if _counted(r) else "-",
           lambda r: number(r.memory.allocs_per_op, COUNT_DIGITS)),
    column("peak_bytes", "peak", lambda r: format_bytes(r.memory.peak_bytes), lambda r: r.memory.peak_bytes),
    column("retained_bytes", "retained", lambda r: format_bytes(r.memory.retained_bytes),
           lambda r: r.memory.retained_bytes),
]


def benchmem_document(selected: Sequence[Result], memory_file: str = "") -> Document:
    """A table per input kind and direction of the selected results that have memory figures (the floor's
    rows first; none when none has), the legend under them; its JSON, every such result in file order."""
    tables = []
    for kind, direction, group in groups([r for r in selected if r.memory is not None]):
        tiers = tier_order(r.tier for r in group)
        rows = [by_tier[tier] for by_tier in grid_rows(group).values() for tier in tiers if tier in by_tier]
        tables.append(Table.of(COLUMNS, rows, group=lambda r: r.format, title=f"{kind}, {direction}: per op"))
    return Document(tables, legend=LEGEND, keys={
        "memory_file": memory_file, "benchmarks": Table.of(COLUMNS, [r for r in selected if r.memory is not None])})


def benchmem(selected: Sequence[Result]) -> str:
    """The tables as the run's summary adds them; '' when no result has memory figures."""
    tables = benchmem_document(selected).text()
    return tables + "\n" if tables else ""
