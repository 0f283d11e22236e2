"""report's answer as JSON (`report --json FILE`): what its tables show, as numbers, one object per row.

One file: every selected benchmark (its median and multiple of the floor, each with its interval, its
mark, throughput, sizes and, with a memory companion, its memory per op), each FORMAT/IMPL's fitted
costs, and the round trip's sums. The median, the multiple and the mark are the cells of report's
tables (views/timing.timing_cells), so the JSON carries the numbers the terminal and the page print.
Two files: the verdicts of BASE -> NEW with compare's keys (views/verdict_table.compare_document), and
the `explain` objects that the side files of one compare --explain session keep. Times are seconds per
op, changes fractions; a number that is missing or not finite is null. Both are laid out by the
Document's JSON (views/table.py), as every command's --json file is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter

from serialbench.results.files import Result, ResultFile
from serialbench.verdicts.costmodel import fits
from serialbench.verdicts.file_changes import FileChanges
from serialbench.verdicts.paired import Compared
from serialbench.views import benchmem, table
from serialbench.views.explain_table import hanging
from serialbench.views.roundtrip_table import round_trips_json
from serialbench.views.table import Cell, Column, Document, Table, column, number
from serialbench.views.timing import FIGURES, timing_cells
from serialbench.views.verdict_table import compare_document, verdict_record

# A result's memory figures: memory --json's keys (B/op, allocs/op, peak, retained), without its name and time.
MEMORY_COLUMNS = [c for c in benchmem.COLUMNS if c.header not in ("benchmark", "time/op")]


def result_columns(cells: dict[str, Cell]) -> list[Column]:
    """Each result's keys; a figure of its cell (views/timing.FIGURES) gives three: NAME, NAME_low, NAME_high."""
    def figure(name: str, part: str):
        def value(result: Result) -> float | None:
            found = cells[result.name].figures.get(name)
            return found.json()[part] if found is not None else None
        return value

    figures = [(name + suffix, figure(name, part)) for name in FIGURES
               for suffix, part in (("", "value"), ("_low", "low"), ("_high", "high"))]
    return [column(key, "", None, value) for key, value in (
        *[(key, attrgetter(key)) for key in ("name", "format", "impl", "input", "tier", "direction", "copies")],
        *figures, ("mark", lambda r: cells[r.name].mark),
        ("notes", lambda r: list(cells[r.name].notes)),
        ("mb_per_s", lambda r: number(r.throughput_mb_s)), ("input_bytes", lambda r: r.input_bytes),
        ("payload_bytes", lambda r: r.payload_bytes), ("values", lambda r: len(r.values)),
        ("memory", lambda r: None if r.memory is None else table.records(Table.of(MEMORY_COLUMNS, [r]))[0]),
    )]


def one_file_json(results: ResultFile, selected: Sequence[Result], notes: Sequence[str]) -> str:
    costs = fits(list(selected))
    return Document([], keys={
        "file": results.path, "commits": results.commits, "dirty": results.dirty,
        "benchmarks": table.records(Table.of(result_columns(timing_cells(results, list(selected))), selected)),
        "costs": [{"input": kind, "direction": direction, "row": row, "fixed": number(fit.fixed_s),
                   "per_byte": number(fit.per_byte_s), "worst_error": number(fit.worst_error),
                   "worst_tier": fit.worst_tier, "exponent": number(fit.exponent), "linear": fit.linear}
                  for (kind, direction, row), fit in costs.items()],
        "round_trip": round_trips_json(list(selected)),
        "notes": list(notes),
    }).json()


def two_files_json(base: ResultFile, new: ResultFile, found: FileChanges, min_effect: float,
                   notes: Sequence[str], explained: Mapping[str, dict] | None = None) -> str:
    """The verdicts with the keys of compare's document (views/verdict_table.compare_document), compare
    --explain's `explain` objects (`explained`, by name) in their rows."""
    changes = found.changes
    rows = [Compared(c.name, c.base.median, c.new.median, c.judged) for c in changes if c.judged is not None]
    keys = compare_document(rows, base.path, new.path, min_effect, selection=found.selection, paired=found.paired,
                            failed={c.name: c.verdict for c in changes if c.judged is None},
                            hang=hanging(explained or {})).keys
    if found.drift is not None:  # two runs apart: what each row was judged on, and the floor's drift
        by_name = {c.name: c for c in changes}
        keys["benchmarks"] = table.records(keys["benchmarks"])
        for row in keys["benchmarks"]:
            change = by_name[row["name"]]
            row.update(judged_on=change.basis, base_multiple=number(change.base_multiple),
                       new_multiple=number(change.new_multiple))
        drift = found.drift.verdict
        keys["floor_drift"] = None if drift is None else {**verdict_record(drift, False), "floors": found.drift.floors}
    return Document([], keys={**keys, "notes": list(notes)}).json()
