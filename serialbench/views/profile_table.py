"""profile's table: where one benchmark's time goes, per op, the top functions by own or total time."""

from __future__ import annotations

import json
from collections.abc import Sequence

from serialbench.core.formatting import format_time
from serialbench.views import table
from serialbench.views.table import Table, column, number


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


def render(rows: Sequence[dict], count: int, sort: str) -> str:
    everything = sum(row["own"] for row in rows) or 1.0
    ordered = top(rows, count, sort)
    return "\n".join([f"top {len(ordered)} of {len(rows)} functions by {sort} time, per op:",
                      *table.text(Table.of(profile_columns(everything), ordered))])


def profile_json(name: str, calls: int, per_op: float, profiled: float, rows: Sequence[dict], count: int,
                 sort: str) -> str:
    everything = sum(row["own"] for row in rows) or 1.0
    return json.dumps({"benchmark": name, "calls": calls, "per_op": number(per_op), "per_op_profiled": number(profiled),
                       "sort": sort, "functions": len(rows),
                       "top": table.records(Table.of(profile_columns(everything), top(rows, count, sort)))},
                      indent=1) + "\n"
