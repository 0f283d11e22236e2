"""compare --cycles and compare --memory: two deterministic counts of the same benchmarks on two sides.

--cycles: estimated cycles per op from callgrind's cache simulation (measure/instructions.py), the
same regions as --instructions, so that a copy or a cache-hostile layout shows beside the work.
--memory: B/op and allocs/op (measure/allocations.py), counted by memray with native allocations.
Both are counts, not timings: no rounds, no statistics, a change is a difference beyond a stated
tolerance. compare.py adds the flags and calls `run`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from serialbench.core.errors import UsageError
from serialbench.core.formatting import format_change
from serialbench.core.tables import text_table
from serialbench.measure.sides import Side

# Two runs of one side agree to the allocation on most benchmarks; CPython's free lists and numpy's
# cache make a few fractional. A change is a difference beyond both of these:
MEMORY_TOLERANCE = {"allocs_per_op": (0.5, 0.001), "bytes_per_op": (16.0, 0.001)}  # (absolute, relative)


def add_arguments(cli) -> None:
    cli.add_argument("--cycles", action="store_true",
                     help="estimated cycles per op: callgrind with its cache simulation (about twice as slow "
                          "as --instructions)")
    cli.add_argument("--memory", action="store_true",
                     help="bytes and allocations per op (B/op, allocs/op; memray, native allocations included)")


def check(args) -> None:
    """Before any side is prepared: one count at a time, and its tool installed."""
    chosen = [flag for flag in ("instructions", "cycles", "memory") if getattr(args, flag)]
    if len(chosen) > 1:
        raise UsageError(f"--{' and --'.join(chosen)}: give one of --instructions, --cycles, --memory")
    if args.cycles:
        from serialbench.measure.instructions import require_valgrind

        require_valgrind()
    if args.memory:
        from serialbench.measure.allocations import available

        missing = available()
        if missing:
            raise UsageError(f"--memory: {missing}")


def run(args, base: Side, head: Side, names: Sequence[str], say: Callable[[str], None],
        threshold: float) -> int:
    """The table of --cycles or --memory, and the exit status (1: a benchmark not counted, or --fail-on)."""
    if args.cycles:
        rows, failed = cycles_rows(base, head, names, say, threshold)
    else:
        rows, failed = memory_rows(base, head, names, say)
    print("\n".join(text_table(rows, left=(0, len(rows[0]) - 1))))
    print(CYCLES_NOTE.format(threshold=threshold * 100) if args.cycles else MEMORY_NOTE)
    status = 0
    if failed:
        print(f"{len(failed)} not counted: " + "; ".join(failed))
        status = 1
    gate = [row[0] for row in rows[1:] if row[-1] != "same" and (args.fail_on == "changed" or "more" in row[-1])]
    if args.fail_on and gate:
        print(f"--fail-on {args.fail_on}: {len(gate)} benchmarks: {', '.join(gate)}")
        status = 1
    return status


CYCLES_NOTE = ("\nestimated cycles per op under callgrind's cache simulation (32 KB L1s, 32 MB last level, "
               "PYTHONHASHSEED=0): an L1 hit costs 1, a last-level hit 5, memory 35, as iai-callgrind "
               "weighs them; a change beyond {threshold:g}% is reported. A model: page faults, the kernel and "
               "other processes' use of memory are not in it.")
MEMORY_NOTE = ("\nbytes and allocation calls per op, freed or not: Python's and native allocators (memray), "
               "the harness's own (baseline/noop) taken off. A change is a difference of more than 0.5 "
               "allocations (or 16 bytes) and more than 0.1% of BASE's.")


def cycles_rows(base: Side, head: Side, names: Sequence[str], say, threshold: float):
    from serialbench.measure.instructions import count_pairs

    counts = count_pairs((base, head), names, os.cpu_count() or 1, say, cycles=True)
    rows: list = [("benchmark", f"BASE {base.description}", f"HEAD {head.description}", "change",
                   "instructions", "L1 misses", "LL misses", "verdict")]
    failed = []
    for name, (before, after) in zip(names, counts):
        if before.per_op is None or after.per_op is None:
            failed.append(f"{name}: {before.error or after.error}")
            continue
        change = after.per_op / before.per_op - 1
        verdict = "more cycles" if change > threshold else "fewer cycles" if change < -threshold else "same"
        rows.append((name, f"{before.per_op:,.0f}", f"{after.per_op:,.0f}", f"{change * 100:+.2f}%",
                     _event_change(before.events, after.events, ("Ir",)),
                     _event_change(before.events, after.events, ("I1mr", "D1mr", "D1mw")),
                     _event_change(before.events, after.events, ("ILmr", "DLmr", "DLmw")), verdict))
    return rows, failed


def _event_change(before: dict, after: dict, events: tuple[str, ...]) -> str:
    """HEAD's total of `events` per op, and its change from BASE's."""
    old, new = (sum(side[event] for event in events) for side in (before, after))
    return f"{new:,.0f}" + (f" ({format_change(new / old - 1)})" if old > 0 else "")


def memory_rows(base: Side, head: Side, names: Sequence[str], say):
    from serialbench.measure.allocations import count_sides

    before_all, after_all = count_sides((base, head), names, os.cpu_count() or 1, say)
    rows: list = [("benchmark", "BASE B/op", "HEAD B/op", "change", "BASE allocs/op", "HEAD allocs/op", "change",
                   "verdict")]
    failed = []
    for name in names:
        before, after = before_all[name], after_all[name]
        if "error" in before or "error" in after:
            failed.append(f"{name}: {before.get('error') or after.get('error')}")
            continue
        rows.append((name, f"{before['bytes_per_op']:,.0f}", f"{after['bytes_per_op']:,.0f}",
                     _difference(before["bytes_per_op"], after["bytes_per_op"]),
                     f"{before['allocs_per_op']:,.1f}", f"{after['allocs_per_op']:,.1f}",
                     _difference(before["allocs_per_op"], after["allocs_per_op"]), memory_verdict(before, after)))
    return rows, failed


def _difference(old: float, new: float) -> str:
    return f"{new - old:+,.1f}" if abs(old) < 1 else format_change(new / old - 1)


def memory_verdict(before: dict, after: dict) -> str:
    """'same', or what changed beyond MEMORY_TOLERANCE: 'more allocations, more bytes'."""
    words = []
    for key, noun in (("allocs_per_op", "allocations"), ("bytes_per_op", "bytes")):
        absolute, relative = MEMORY_TOLERANCE[key]
        difference = after[key] - before[key]
        if abs(difference) > max(absolute, relative * abs(before[key])):
            words.append(f"{'more' if difference > 0 else 'fewer'} {noun}")
    return ", ".join(words) or "same"
