"""profile's table: where one benchmark's time goes, per op, the top functions by own or total time."""

from __future__ import annotations

from collections.abc import Sequence

from serialbench.core.formatting import format_time
from serialbench.views.table import Document, Table, column, number


def _calls(row: dict) -> str:
    return f"{row['calls']:,.0f}" if row["calls"] >= 10 else f"{row['calls']:.3g}"


def profile_columns(everything: float) -> list:
    return [
        column("own", "own", lambda row: format_time(row["own"]), lambda row: number(row["own"])),
        column("own_share", "own %", lambda row: f"{100 * row['own'] / everything:.1f}%",
               lambda row: number(row["own"] / everything)),
        column("total", "total", lambda row: format_time(row["total"]), lambda row: number(row["total"])),
        column("calls", "calls", _calls, lambda row: number(row["calls"])),
        column("function", "function", lambda row: row["function"], left=True),
    ]


def top(rows: Sequence[dict], count: int, sort: str) -> list[dict]:
    return sorted(rows, key=lambda row: row[sort], reverse=True)[:count]


def profile_document(name: str, calls: int, per_op: float, profiled: float, rows: Sequence[dict], count: int,
                     sort: str) -> Document:
    """The op's cost with and without the profiler, then the top `count` functions by `sort` time."""
    everything = sum(row["own"] for row in rows) or 1.0
    shown = Table.of(profile_columns(everything), top(rows, count, sort))
    return Document([shown], head=[f"{name}: {calls:,} calls; {format_time(per_op)} per op without the profiler, "
                                   f"{format_time(profiled)} under cProfile",
                                   f"top {len(shown.rows)} of {len(rows)} functions by {sort} time, per op:"], keys={
        "benchmark": name, "calls": calls, "per_op": number(per_op), "per_op_profiled": number(profiled),
        "sort": sort, "functions": len(rows), "top": shown})
