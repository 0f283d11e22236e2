"""report's one-file views: per input kind and direction, FORMAT/IMPL by tier, and the file's header.

Each cell gives the median time per op and its multiple of baseline/tobytes (the memcpy floor of the
same input and tier, same file), the throughput in MB/s of raw input and the payload size per raw
input byte. A run of serialbench's rounds gives the multiple as a paired ratio with an interval
(verdicts/timings.py), and a cell whose median or multiple is wider than the precision the run asked
for shows how wide. The fastest implementation of each format at each tier is starred only where a
paired test separates it from the next (verdicts/rankings.py); where none does, both carry `=`.
With a memory companion file (`python -m serialbench memory`), memory tables follow. Views never
re-run anything.
"""

from __future__ import annotations

import math

from serialbench.catalog.registry import FLOOR
from serialbench.core.formatting import (
    format_bytes,
    format_count,
    format_percent,
    format_ratio,
    format_throughput,
    format_time,
)
from serialbench.results.files import Result, ResultFile
from serialbench.verdicts.rankings import marks, table_rankings
from serialbench.verdicts.timings import Timing, floor_multiple, timing
from serialbench.views.grid import grid, groups
from serialbench.views.table import Cell, Figure, Table, figure, render_markdown, text

FIGURES = ("median", "floor_multiple")  # a cell's numbers, by name: report --json gives each with its interval
NO_COPY = "no copy"  # the multiple's place in the cell of an op that copies no tensor (Case.no_copy)
TIMING_LEGEND = ("Each cell: median time per op and its multiple of baseline/tobytes, the memcpy floor: one copy of "
                 "the same input and tier, whose row is in the table; 'no copy' for an op that copies no tensor (it "
                 "hands on views of them); throughput in MB/s of raw input, and payload bytes per raw input byte. "
                 "* the fastest of its format at that tier, separated from the next by a paired test over the rounds "
                 "(Benjamini-Hochberg across the table); = the fastest and the next, which no test separates: a tie.")


def timing_cells(results: ResultFile, selected: list[Result], brief: bool = False,
                 stacked: bool = False) -> dict[str, Cell]:
    """Each selected benchmark's cell, and its floor's: the median time per op with its interval, its
    multiple of the floor (verdicts/timings.floor_multiple) or `no copy`, its mark (verdicts/rankings.py),
    and under them the throughput and size. Every view of a run file reads these: report's tables, their
    Markdown, report --json, the run's summary and the site. `brief` keeps only the median and its
    multiple (the run's summary), on one line (aligned) or, `stacked`, on two (narrower)."""
    with_floors = {r.name: r for r in selected}
    for result in selected:
        floor = results.floor(result)
        if result.copies and floor is not None:
            with_floors.setdefault(floor.name, floor)
    timings = {name: timing(result.benchmark) for name, result in with_floors.items()}
    marked = marks(table_rankings(list(with_floors.values()), timings))
    target = precision_asked(results)
    return {name: _cell(results, result, timings[name], target, marked.get(name, ""), brief, stacked)
            for name, result in with_floors.items()}


def _cell(results: ResultFile, result: Result, found: Timing | None, target: float | None, mark: str,
          brief: bool, stacked: bool) -> Cell:
    if found is None:
        return Cell(["not timed"] if brief else ["not timed", "(no values)"], notes=("not timed",))
    median = Figure(found.median, "time", found.low, found.high,
                    ("~" if found.modes else "") + format_time(found.median) + _wider(found.width, target))
    figures = {"median": median}
    notes: tuple[str, ...] = ("two speeds",) if found.modes else ()
    multiple = floor_multiple(results, result, found)
    first = [median.text]
    if not result.copies:
        notes += (NO_COPY,)
        first.append(NO_COPY)
    elif multiple is not None:
        figures["floor_multiple"] = figure(multiple.value, "ratio", multiple.low, multiple.high,
                                           _wider(multiple.width, target))
        first.append(figures["floor_multiple"].text)
    if brief:
        one_line = f"{first[0]:>7}  {first[1]:>5}" if len(first) == 2 else first[0]
        return Cell(first if stacked else [one_line], mark, figures, notes)
    if not result.payload_bytes:  # produces nothing (the harness overhead): a rate would mean nothing
        second = "no payload"
    else:
        second = format_throughput(result.throughput_mb_s) if result.input_bytes else "-"
        if result.size_ratio is not None:
            second += f"  size {result.size_ratio:.2f}"
    return Cell(["  ".join(first), second], mark, figures, notes)


def timing_tables(results: ResultFile, selected: list[Result], brief: bool = False, stacked: bool = False,
                  cells: dict[str, Cell] | None = None) -> list[Table]:
    """Per input kind and direction, FORMAT/IMPL by tier, of timing_cells (`brief`, `stacked`: as there).
    `cells`: timing_cells of a larger selection whose marks these tables show (the site's page of one kind),
    built with the same `brief` and `stacked`."""
    cells = timing_cells(results, selected, brief, stacked) if cells is None else cells
    tables = []
    for kind, direction, group in groups(selected):
        group = [*_floors(results, group), *group]
        # the run's summary writes one legend of its own above its tables (views/summary.py)
        table = grid(f"{kind}, {direction}: median time per op", "" if brief else TIMING_LEGEND, group,
                     lambda result: cells[result.name])
        table.notes = _notes(group, cells)
        tables.append(table)
    return tables


def _floors(results: ResultFile, group: list[Result]) -> list[Result]:
    """The floor's rows of the group's inputs and tiers that the group lacks, where a cell gives a multiple
    of the floor: a table shows its multiples beside the floor they are of (a decoder's table too, whose
    floor is the same copy of the same tensors)."""
    names = {result.name for result in group}
    floors = [floor for result in group if result.copies and (floor := results.floor(result)) is not None]
    return list({floor.name: floor for floor in floors if floor.name not in names}.values())


def precision_asked(results: ResultFile) -> float | None:
    """The precision the run asked for (a run of serialbench's rounds records it), else None."""
    value = results.metadata.get("serialbench_precision")
    return float(value) if isinstance(value, int | float) else None


def _notes(group: list[Result], cells: dict[str, Cell]) -> list[str]:
    """Under the table, each cell at two speeds: the two, and how many of its processes ran slow."""
    two_speeds = [(r, timing(r.benchmark)) for r in group if "two speeds" in cells[r.name].notes]
    return [f"two speeds: {result.row} {result.tier}: {format_time(found.modes.fast)} and "
            f"{format_time(found.modes.slow)} ({len(found.modes.slow_rounds)} of {found.rounds} processes slow)"
            for result, found in two_speeds]


def _wider(width: float | None, target: float | None) -> str:
    """' +-7.4%' where the interval is wider than the precision asked for ('' otherwise, and for files
    that asked none: a pyperf run's processes are not a precision)."""
    if target is None or width is None or width <= target * (1 + 1e-9):
        return ""
    return "" if math.isinf(width) else f" +-{format_percent(width)}"  # no interval: too few processes


MEMORY_LEGEND = ("Each cell: bytes allocated per op (B/op) and allocation calls per op, freed or not, Python's "
                 "and native allocators (memray), the harness's own (baseline/noop) taken off; peak traced memory "
                 "while one op runs, above the level before it, and its multiple of the raw input bytes; bytes "
                 "the op's result still holds when it returns (retained). Peak and retained are tracemalloc's: "
                 "memory a library allocates outside Python's allocators and numpy is only in B/op.")


def memory_tables(selected: list[Result]) -> list[Table]:
    return [grid(f"{kind}, {direction}: allocations and memory per op", MEMORY_LEGEND, group, _memory_cell)
            for kind, direction, group in groups([r for r in selected if r.memory is not None])]


def _memory_cell(result: Result) -> Cell:
    memory = result.memory
    first = f"peak {format_bytes(memory.peak_bytes)}"
    if result.input_bytes:
        first += f"  {format_ratio(memory.peak_bytes / result.input_bytes)}"
    lines = [first, f"retained {format_bytes(memory.retained_bytes)}"]
    if memory.bytes_per_op is not None:
        lines.insert(0, f"{format_bytes(memory.bytes_per_op)}/op  {format_count(memory.allocs_per_op)} allocs")
    return Cell(lines)


def header_lines(results: ResultFile, role: str = "") -> list[str]:
    meta = results.metadata
    commits = ", ".join(commit[:10] for commit in results.commits) or "unknown"
    dates = sorted(str(run.get_metadata().get("date", ""))[:10] for r in results.results
                   for run in r.benchmark.get_runs() if run.get_metadata().get("date"))
    when = (dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}") if dates else "unknown date"
    counts = sorted({len(r.values) for r in results.results})
    values = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    values += " value" if counts == [1] else " values"
    lines = [
        f"{role}{results.path}: {len(results.results)} benchmarks, {values} each; commit {commits}"
        + (" (dirty tree)" if results.dirty else "") + (" (runs appended from several commits)"
                                                        if len(results.commits) > 1 else ""),
        f"  {when}; {results.machine}; Python {str(meta.get('python_version', '?')).split(' ')[0]}; "
        f"pyperf {meta.get('perf_version', '?')}",
    ]
    if meta.get("serialbench_side"):  # one side of a compare (or sweep) session: what it ran
        lines.append(f"  side: {meta['serialbench_side']}")
    versions = results.library_versions()
    if versions:
        lines.append("  libraries: " + ", ".join(f"{name} {version}" for name, version in versions.items()))
    if results.memory_path:
        note = ""
        if results.memory_commit and results.commits and results.memory_commit not in results.commits:
            note = f" (measured at commit {results.memory_commit[:10]}, not the timing run's)"
        lines.append(f"  memory per op: {results.memory_path}{note}")
    return lines


def text_document(head: list[str], tables: list[Table], notes: list[str]) -> str:
    """report's answer as the terminal shows it: the files' lines, each table a blank line apart (without a
    legend an earlier table gave), the notes right under the last table."""
    lines, legends_shown = list(head), set()
    for table in tables:
        lines += ["", *text(table, legend=table.legend not in legends_shown)]
        legends_shown.add(table.legend)
    return "\n".join([*lines, *notes])


def markdown_document(head: list[str], tables: list[Table], notes: list[str]) -> str:
    """report's --markdown file: a heading, the files' lines as code, the tables, the notes as a list."""
    parts = ["## serialbench report", "", "\n".join(f"    {line}" for line in head), ""]
    for table in tables:
        parts.append(render_markdown(table))
    if notes:
        parts.extend(f"- {note}" for note in notes)
        parts.append("")
    return "\n".join(parts)


def single_file_notes(results: ResultFile, selected: list[Result]) -> list[str]:
    notes = []
    untimed = [r.name for r in selected if r.median is None]
    if untimed:
        notes.append(f"no timing values (partial run?): {', '.join(untimed)}")
    floorless = sorted({f"{r.input}/{r.tier}" for r in selected if r.median is not None and not results.floor(r)})
    if floorless:
        notes.append(f"no {FLOOR[0]}/{FLOOR[1]} in this file for {', '.join(floorless)}: "
                     "multiples of the memcpy floor left out")
    return notes
