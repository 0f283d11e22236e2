"""compare's deterministic modes: a count per op on both sides, and a verdict beyond a stated tolerance.

- instructions: instructions per op under callgrind (measure/instructions.py);
- cycles: estimated cycles per op from callgrind's cache simulation, the same regions, so that a copy
  or a cache-hostile layout shows beside the work;
- memory: bytes and allocation calls per op (inside/allocations.py), counted by memray with native
  allocations.
Counts, not timings: no rounds, no statistics. Two runs of one side agree to within a known
spread, so a change is a difference beyond a tolerance: --min-effect where the user gives it, each
mode's own default where not (TOLERANCE). A row whose HEAD counts more is what `--fail-on slower`
fails; any change fails `--fail-on changed`, as the timed verdicts do (verdicts/paired.failing).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from serialbench.sides.sides import Side

MODES = ("instructions", "cycles", "memory")
SAME = "same"
# Each mode's tolerance when --min-effect is not given: a relative change of HEAD's count over BASE's.
# Instructions and cycles: two runs of one revision agree exactly, and code the op never runs moves
# a 1K op's count by up to 1.6% (measure/instructions.py).
# Memory: two runs agree to the allocation on most benchmarks; CPython's free lists and numpy's cache
# make a few fractional, hence also an absolute floor (ABSOLUTE) under which no difference counts.
TOLERANCE = {"instructions": 0.02, "cycles": 0.02, "memory": 0.001}
ABSOLUTE = {"allocs_per_op": 0.5, "bytes_per_op": 16.0}
UNITS = {"instructions": "instructions per op", "cycles": "estimated cycles per op", "memory": "bytes per op"}


@dataclass(frozen=True)
class Counted:
    """One benchmark counted on both sides. base, head: the mode's count per op (instructions,
    cycles, bytes); for --memory also the allocation calls, for --cycles callgrind's events per op."""

    name: str
    base: float
    head: float
    verdict: str  # "same", "more instructions", "fewer cycles", "more allocations, fewer bytes", ...
    base_allocs: float | None = None
    head_allocs: float | None = None
    base_events: dict[str, float] | None = None
    head_events: dict[str, float] | None = None
    profiles: tuple | None = None  # (BASE's, HEAD's) measure.profiles.Profile, with --explain

    @property
    def change(self) -> float:
        """HEAD's count over BASE's, minus 1 (nan when BASE counts nothing)."""
        return self.head / self.base - 1 if self.base else math.nan

    @property
    def allocs_change(self) -> float:
        return self.head_allocs / self.base_allocs - 1 if self.base_allocs else math.nan

    @property
    def more(self) -> bool:
        """HEAD does more work than BASE beyond the tolerance: what --fail-on slower fails."""
        return "more" in self.verdict

    @property
    def changed(self) -> bool:
        return self.verdict != SAME


def beyond(before: float, after: float, relative: float, absolute: float = 0.0) -> int:
    """+1 when `after` exceeds `before` by more than both tolerances, -1 when it falls short so, else 0."""
    difference = after - before
    if abs(difference) <= max(absolute, relative * abs(before)):
        return 0
    return 1 if difference > 0 else -1


def word(direction: int, noun: str) -> str:
    return {1: f"more {noun}", -1: f"fewer {noun}"}.get(direction, SAME)


def memory_verdict(before: dict, after: dict, relative: float = TOLERANCE["memory"]) -> str:
    """'same', or what changed beyond the tolerance: 'more allocations, more bytes'."""
    words = [word(beyond(before[key], after[key], relative, ABSOLUTE[key]), noun)
             for key, noun in (("allocs_per_op", "allocations"), ("bytes_per_op", "bytes"))]
    return ", ".join(w for w in words if w != SAME) or SAME


def count(mode: str, base: Side, head: Side, names: Sequence[str], say: Callable[[str], None],
          tolerance: float, functions: bool = False) -> tuple[list[Counted], dict[str, str]]:
    """Every benchmark counted on both sides: the rows, and {name: why} for those not counted; with
    `functions` (instructions and cycles), each row's per-function profiles."""
    workers = os.cpu_count() or 1
    if mode == "memory":
        from serialbench.measure.allocations import count_sides

        before_all, after_all = count_sides((base, head), names, workers, say)
        return memory_rows(names, before_all, after_all, tolerance)
    from serialbench.measure.instructions import count_pairs

    return count_rows(mode, names, count_pairs((base, head), names, workers, say, cycles=mode == "cycles",
                                               functions=functions), tolerance)


def count_rows(mode: str, names: Sequence[str], pairs, tolerance: float) -> tuple[list[Counted], dict[str, str]]:
    """--instructions and --cycles: callgrind's Count of each benchmark on both sides, judged."""
    rows, failed = [], {}
    noun = "instructions" if mode == "instructions" else "cycles"
    for name, (before, after) in zip(names, pairs):
        if before.per_op is None or after.per_op is None:
            failed[name] = before.error or after.error
            continue
        rows.append(Counted(name, before.per_op, after.per_op, word(beyond(before.per_op, after.per_op, tolerance),
                                                                    noun),
                            base_events=before.events, head_events=after.events,
                            profiles=(before.profile, after.profile) if before.profile and after.profile else None))
    return rows, failed


def memory_rows(names: Sequence[str], before_all: dict, after_all: dict,
                tolerance: float) -> tuple[list[Counted], dict[str, str]]:
    rows, failed = [], {}
    for name in names:
        before, after = before_all.get(name, {"error": "not counted"}), after_all.get(name, {"error": "not counted"})
        if "error" in before or "error" in after:
            failed[name] = before.get("error") or after.get("error")
            continue
        rows.append(Counted(name, before["bytes_per_op"], after["bytes_per_op"],
                            memory_verdict(before, after, tolerance),
                            base_allocs=before["allocs_per_op"], head_allocs=after["allocs_per_op"]))
    return rows, failed


def failing(rows: Sequence[Counted], fail_on: str | None) -> list[str]:
    """What fails a --fail-on gate: 'slower' fails a row that counts more, 'changed' any change."""
    if not fail_on:
        return []
    return [row.name for row in rows if (row.more if fail_on == "slower" else row.changed)]
