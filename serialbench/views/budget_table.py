"""budget's table: each of serialbench's own commands, its wall time, per benchmark, against its target."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from serialbench.core.formatting import format_duration
from serialbench.views.table import Document, Table, column, number


@dataclass(frozen=True)
class Timed:
    what: str
    benchmarks: int
    seconds: float
    target: float | None
    estimated: bool = False
    status: int = 0


def _verdict(row: Timed) -> str:
    return "" if row.target is None else ("within" if row.seconds <= row.target else "OVER")


COLUMNS = [
    column("what", "what", lambda row: row.what, left=True),
    column("benchmarks", "benchmarks", lambda row: str(row.benchmarks), lambda row: row.benchmarks),
    column("seconds", "wall time", lambda row: ("~" if row.estimated else "") + format_duration(row.seconds),
           lambda row: number(row.seconds)),
    column("per_benchmark", "per benchmark", lambda row: f"{row.seconds / max(row.benchmarks, 1):.2f} s",
           lambda row: number(row.seconds / max(row.benchmarks, 1))),
    column("target", "target", lambda row: "-" if row.target is None else f"< {format_duration(row.target)}",
           lambda row: row.target),
    column("verdict", "", _verdict, left=True),
]


def report(rows: Sequence[Timed], machine: str) -> Document:
    """The table; under it, the machine's load, and the steps in which a benchmark failed."""
    failed = [row.what for row in rows if row.status]
    notes = [machine] + ([f"some benchmarks failed in: {', '.join(failed)} (their time is included)"] if failed else [])
    return Document([Table.of(COLUMNS, rows, notes=notes)])
