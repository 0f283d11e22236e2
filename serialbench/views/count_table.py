"""The tables of compare --instructions, --cycles and --memory: each side's count per op, the change,
the verdict; as text, Markdown and JSON from one document per mode (views/table.py).

--cycles adds HEAD's instructions, L1 misses and last-level misses per op, each with its change, so
that a copy shows as its misses; --memory gives bytes and allocation calls per op side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from serialbench.core.formatting import format_change
from serialbench.verdicts.counts import UNITS, Counted
from serialbench.views.table import COUNT_DIGITS, Column, Document, Table, column, number

EVENTS = {"instructions": ("Ir",), "L1 misses": ("I1mr", "D1mr", "D1mw"), "LL misses": ("ILmr", "DLmr", "DLmw")}


def _difference(old: float, new: float) -> str:
    return f"{new - old:+,.1f}" if abs(old) < 1 else format_change(new / old - 1)


def _events(row: Counted, events: tuple[str, ...]) -> tuple[float, float]:
    return tuple(sum(side[event] for event in events) for side in (row.base_events, row.head_events))


def _event_text(row: Counted, events: tuple[str, ...]) -> str:
    """HEAD's total of `events` per op, and its change from BASE's."""
    old, new = _events(row, events)
    return f"{new:,.0f}" + (f" ({format_change(new / old - 1)})" if old > 0 else "")


def _count(value: float | None) -> float | None:
    return number(value, COUNT_DIGITS)


def _event_column(header: str, events: tuple[str, ...]) -> Column:
    key = header.replace(" ", "_").lower()
    return Column(header, lambda row: _event_text(row, events),
                  lambda row: dict(zip((f"base_{key}", f"head_{key}"), map(_count, _events(row, events)))))


def count_columns(mode: str, base: str, head: str) -> list[Column]:
    name = column("name", "benchmark", lambda row: row.name, left=True, code=True)
    verdict = column("verdict", "verdict", lambda row: row.verdict, left=True)
    if mode == "memory":
        return [name,
                column("base", "BASE B/op", lambda row: f"{row.base:,.0f}", lambda row: _count(row.base)),
                column("head", "HEAD B/op", lambda row: f"{row.head:,.0f}", lambda row: _count(row.head)),
                column("change", "change", lambda row: _difference(row.base, row.head), lambda row: number(row.change)),
                column("base_allocs", "BASE allocs/op", lambda row: f"{row.base_allocs:,.1f}",
                       lambda row: _count(row.base_allocs)),
                column("head_allocs", "HEAD allocs/op", lambda row: f"{row.head_allocs:,.1f}",
                       lambda row: _count(row.head_allocs)),
                column("allocs_change", "change", lambda row: _difference(row.base_allocs, row.head_allocs),
                       lambda row: number(row.allocs_change)),
                verdict]
    counts = [name,
              column("base", f"BASE {base}", lambda row: f"{row.base:,.0f}", lambda row: _count(row.base)),
              column("head", f"HEAD {head}", lambda row: f"{row.head:,.0f}", lambda row: _count(row.head)),
              column("change", "change", lambda row: f"{row.change * 100:+.2f}%", lambda row: number(row.change))]
    if mode == "cycles":
        counts += [_event_column(header, events) for header, events in EVENTS.items()]
    return [*counts, verdict]


def note(mode: str, tolerance: float) -> str:
    """What the counts are and what they miss: the table's legend."""
    if mode == "instructions":
        return (f"instructions per op under callgrind (PYTHONHASHSEED=0); a change beyond {tolerance * 100:g}% "
                "is reported. Instruction counts miss memory stalls, kernel time and SIMD width: a 1M copy "
                "can cost time that no count shows.")
    if mode == "cycles":
        return ("estimated cycles per op under callgrind's cache simulation (32 KB L1s, 32 MB last level, "
                "PYTHONHASHSEED=0): an L1 hit costs 1, a last-level hit 5, memory 35, as iai-callgrind "
                f"weighs them; a change beyond {tolerance * 100:g}% is reported. A model: page faults, the kernel "
                "and other processes' use of memory are not in it.")
    return ("bytes and allocation calls per op, freed or not: Python's and native allocators (memray), the "
            "harness's own (baseline/noop) taken off. A change is a difference of more than 0.5 allocations "
            f"(or 16 bytes) and more than {tolerance * 100:g}% of BASE's.")


Hang = Callable[[Table], None]  # hangs the rows' blocks (compare --explain's) on the table


def counts_document(mode: str, rows: Sequence[Counted], base: str, head: str, tolerance: float,
                    failed: Mapping[str, str] | None = None, fail_on: str | None = None, gate: Sequence[str] = (),
                    hang: Hang = lambda _: None, explain_failed: Mapping[str, str] | None = None) -> Document:
    """The table of a count, what the counts are under it, and the JSON's keys (with --explain,
    `explain_failed`: the rows it could not explain, and why)."""
    counted = Table.of(count_columns(mode, base, head), rows)
    hang(counted)
    return Document([counted], notes=[note(mode, tolerance)], keys={
        "base": base, "head": head, "mode": mode, "unit": UNITS[mode], "tolerance": tolerance,
        "benchmarks": counted, "failed": dict(failed or {}),
        "gate": {"fail_on": fail_on, "failing": list(gate)} if fail_on else None,
        **({"explain_failed": dict(explain_failed)} if explain_failed is not None else {})})
