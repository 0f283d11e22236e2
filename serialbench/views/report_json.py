"""report's answer as JSON (`report --json FILE`): what its tables show, as numbers, one object per row.

One file: every selected benchmark (its median, multiple of the floor, throughput, sizes and, with
a memory companion, its memory per op), each FORMAT/IMPL's fitted costs, and the round trip's sums.
Two files: the verdicts of BASE -> NEW with compare's keys (views/verdict_json.py). Times are seconds
per op, changes fractions; a number that is missing or not finite is null.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from serialbench.results.files import Result, ResultFile
from serialbench.verdicts import vocabulary
from serialbench.verdicts.costmodel import fits
from serialbench.verdicts.file_changes import Change
from serialbench.verdicts.paired import Compared
from serialbench.views import columns as table
from serialbench.views.columns import COUNT_DIGITS, Column, column, number
from serialbench.views.roundtrip import round_trips
from serialbench.views.verdict_json import compare_json


def result_columns(results: ResultFile) -> list[Column]:
    def multiple(result: Result) -> float | None:
        floor = results.floor(result)
        return number(result.median / floor.median) if result.median and floor and floor.median else None

    return [column(key, "", None, value) for key, value in (
        ("name", lambda r: r.name), ("format", lambda r: r.format), ("impl", lambda r: r.impl),
        ("input", lambda r: r.input), ("tier", lambda r: r.tier), ("direction", lambda r: r.direction),
        ("median", lambda r: number(r.median)), ("floor_multiple", multiple),
        ("mb_per_s", lambda r: number(r.throughput_mb_s)), ("input_bytes", lambda r: r.input_bytes),
        ("payload_bytes", lambda r: r.payload_bytes), ("values", lambda r: len(r.values)),
        ("memory", lambda r: None if r.memory is None else {
            "bytes_per_op": number(r.memory.bytes_per_op, COUNT_DIGITS),
            "allocs_per_op": number(r.memory.allocs_per_op, COUNT_DIGITS),
            "peak_bytes": r.memory.peak_bytes, "retained_bytes": r.memory.retained_bytes}),
    )]


def one_file_json(results: ResultFile, selected: Sequence[Result], notes: Sequence[str]) -> str:
    costs = fits(list(selected))
    return json.dumps({
        "file": results.path, "commits": results.commits, "dirty": results.dirty,
        "benchmarks": table.records(result_columns(results), selected),
        "costs": [{"input": kind, "direction": direction, "row": row, "fixed": number(fit.fixed_s),
                   "per_byte": number(fit.per_byte_s), "worst_error": number(fit.worst_error),
                   "worst_tier": fit.worst_tier, "exponent": number(fit.exponent), "linear": fit.linear}
                  for (kind, direction, row), fit in costs.items()],
        "round_trip": round_trips(list(selected)),
        "notes": list(notes),
    }, indent=1) + "\n"


def two_files_json(base: ResultFile, new: ResultFile, changes: Sequence[Change], paired: bool, min_effect: float,
                   selection: vocabulary.Verdict | None, notes: Sequence[str]) -> str:
    rows = [Compared(c.name, c.base.median, c.new.median, c.judged) for c in changes if c.judged is not None]
    data = json.loads(compare_json(rows, base.path, new.path, min_effect, selection=selection, paired=paired,
                                   failed={c.name: "not timed" for c in changes if c.judged is None}))
    data["notes"] = list(notes)
    return json.dumps(data, indent=1) + "\n"
