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

from serialbench.catalog.inputs import tier_order
from serialbench.catalog.registry import FLOOR
from serialbench.core.formatting import format_bytes, format_percent, format_ratio, format_throughput, format_time
from serialbench.results.files import Result, ResultFile
from serialbench.verdicts.rankings import Ranking, rank, series_of
from serialbench.verdicts.timings import Timing, timing
from serialbench.views.grid import Cell, Table, groups, render_markdown, rows

NO_COPY = "no copy"  # the multiple's place in the cell of an op that copies no tensor (Case.no_copy)
MARKS = ("* the fastest of its format at that tier, separated from the next by a paired test over the rounds "
         "(Benjamini-Hochberg across the table); = the fastest and the next, which no test separates: a tie.")
FLOOR_WORDS = ("its multiple of baseline/tobytes, the memcpy floor: one copy of the same input and tier, whose row "
               "is in the table; 'no copy' for an op that copies no tensor (it hands on views of them)")
TIMING_LEGEND = (f"Each cell: median time per op and {FLOOR_WORDS}; throughput in MB/s of raw input, and payload "
                 "bytes per raw input byte. " + MARKS)
BRIEF_LEGEND = f"Each cell: median time per op and {FLOOR_WORDS}. " + MARKS


def timing_tables(results: ResultFile, selected: list[Result], brief: bool = False,
                  stacked: bool = False) -> list[Table]:
    """Per input kind and direction, FORMAT/IMPL by tier. `brief` keeps only the median and its
    multiple of the floor (the run's summary), on one line or, `stacked`, on two (narrower)."""
    timings = {result.name: timing(result.benchmark) for result in selected}
    marks = ranking_marks(selected, timings)
    target = precision_asked(results)
    tables = []
    for kind, direction, group in groups(selected):
        group = with_floor(results, group, timings)
        columns = tier_order(r.tier for r in group)
        table = Table(f"{kind}, {direction}: median time per op", BRIEF_LEGEND if brief else TIMING_LEGEND, columns)
        for row, by_tier in rows(group, table):
            cells: list[Cell | None] = []
            for tier in columns:
                result = by_tier.get(tier)
                mark = marks.get(result.name, "") if result is not None else ""
                if brief and result is not None:
                    parts = _median_parts(results, result, timings, target)
                    one_line = f"{parts[0]:>7}  {parts[1]:>5}" if len(parts) == 2 else parts[0]  # aligned
                    cells.append(Cell(parts if stacked else [one_line], mark == "*", mark == "="))
                else:
                    cells.append(_timing_cell(results, result, timings, target, mark))
            table.rows.append((row, cells))
        if any(mark == "=" for mark in marks.values()) or any(t is not None and t.modes for t in timings.values()):
            table.notes = _notes(group, timings, marks)
        tables.append(table)
    return tables


def with_floor(results: ResultFile, group: list[Result], timings: dict[str, Timing | None]) -> list[Result]:
    """The group with the floor's row of its input and tiers in it, where a cell gives a multiple of the floor:
    a table shows its multiples beside the floor they are of (a decoder's table too, whose floor is the
    same copy of the same tensors). `timings` gains the floor's."""
    names = {result.name for result in group}
    floors = [floor for result in group if result.copies and (floor := results.floor(result)) is not None]
    added = list({floor.name: floor for floor in floors if floor.name not in names}.values())
    for floor in added:
        if floor.name not in timings:
            timings[floor.name] = timing(floor.benchmark)
    return added + group


def precision_asked(results: ResultFile) -> float | None:
    """The precision the run asked for (a run of serialbench's rounds records it), else None."""
    value = results.metadata.get("serialbench_precision")
    return float(value) if isinstance(value, int | float) else None


GroupKey = tuple[str, str, str, str]  # (input, direction, format, tier): what a table ranks in one cell column


def rankings(selected: list[Result], timings: dict[str, Timing | None]) -> dict[GroupKey, tuple[Ranking, bool]]:
    """Each group's test of its fastest against the next, and whether the table stars the fastest: the
    test separates them and its fastest is where the table shows the lowest median (a test that ranks
    otherwise is a tie). The tables' marks and the run's answer (views/answer.py) both read it."""
    grouped: dict[GroupKey, list[str]] = {}
    for result in selected:
        if result.format != FLOOR[0] and timings.get(result.name) is not None:
            grouped.setdefault((result.input, result.direction, result.format, result.tier), []).append(result.name)
    members = list(grouped.values())
    series = {result.name: series_of(result.benchmark) for result in selected
              if any(result.name in group for group in members)}
    found_by_key = {}
    for key, group, found in zip(grouped, members, rank(members, series), strict=True):
        if found is None:
            continue
        lowest = min(group, key=lambda name: timings[name].median)
        found_by_key[key] = (found, found.separated and lowest == found.fastest)
    return found_by_key


def ranking_marks(selected: list[Result], timings: dict[str, Timing | None]) -> dict[str, str]:
    """'*' on each group's fastest that a test separates from the next, '=' on both where none does."""
    marks: dict[str, str] = {}
    for found, starred in rankings(selected, timings).values():
        if starred:
            marks[found.fastest] = "*"
        else:
            marks[found.fastest] = marks[found.next] = "="
    return marks


def _notes(group: list[Result], timings: dict[str, Timing | None], marks: dict[str, str]) -> list[str]:
    notes = []
    for result in group:
        found = timings.get(result.name)
        if found is not None and found.modes:
            notes.append(f"two speeds: {result.row} {result.tier}: {format_time(found.modes.fast)} and "
                         f"{format_time(found.modes.slow)} ({len(found.modes.slow_rounds)} of {found.rounds} "
                         "processes slow)")
    return notes


def _median_parts(results: ResultFile, result: Result, timings: dict[str, Timing | None],
                  target: float | None) -> list[str]:
    """The median time per op and, when the file has the floor, its multiple of the floor; each with
    its interval's half-width where that is wider than the precision the run asked for."""
    found = timings.get(result.name)
    if found is None:
        return ["not timed"]
    time_part = format_time(found.median) + _wider(found.width, target)
    if found.modes:
        time_part = "~" + time_part
    if not result.copies:  # a multiple of a copy that the op never makes would read as beating memcpy
        return [time_part, NO_COPY]
    if found.multiple is not None:
        return [time_part, format_ratio(found.multiple) + _wider(found.multiple_width, target)]
    floor = results.floor(result)
    floor_found = timings.get(floor.name) if floor is not None and floor.name in timings else (
        timing(floor.benchmark) if floor is not None else None)
    if floor_found is None:
        return [time_part]
    return [time_part, format_ratio(found.median / floor_found.median)]


def _wider(width: float | None, target: float | None) -> str:
    """' +-7.4%' where the interval is wider than the precision asked for ('' otherwise, and for files
    that asked none: a pyperf run's processes are not a precision)."""
    if target is None or width is None or width <= target * (1 + 1e-9):
        return ""
    return "" if math.isinf(width) else f" +-{format_percent(width)}"  # no interval: too few processes


def _timing_cell(results: ResultFile, result: Result | None, timings: dict[str, Timing | None],
                 target: float | None, mark: str) -> Cell | None:
    if result is None:
        return None
    if timings.get(result.name) is None:
        return Cell(["not timed", "(no values)"])
    first = "  ".join(_median_parts(results, result, timings, target))
    if not result.payload_bytes:  # produces nothing (the harness overhead): a rate would mean nothing
        return Cell([first, "no payload"], mark == "*", mark == "=")
    second = format_throughput(result.throughput_mb_s) if result.input_bytes else "-"
    if result.size_ratio is not None:
        second += f"  size {result.size_ratio:.2f}"
    return Cell([first, second], mark == "*", mark == "=")


def memory_tables(selected: list[Result]) -> list[Table]:
    tables = []
    for kind, direction, group in groups([r for r in selected if r.memory is not None]):
        columns = tier_order(r.tier for r in group)
        table = Table(
            f"{kind}, {direction}: allocations and memory per op",
            "Each cell: bytes allocated per op (B/op) and allocation calls per op, freed or not, Python's "
            "and native allocators (memray), the harness's own (baseline/noop) taken off; peak traced memory "
            "while one op runs, above the level before it, and its multiple of the raw input bytes; bytes "
            "the op's result still holds when it returns (retained). Peak and retained are tracemalloc's: "
            "memory a library allocates outside Python's allocators and numpy is only in B/op.",
            columns,
        )
        for row, by_tier in rows(group, table):
            cells: list[Cell | None] = []
            for tier in columns:
                result = by_tier.get(tier)
                if result is None:
                    cells.append(None)
                    continue
                memory = result.memory
                first = f"peak {format_bytes(memory.peak_bytes)}"
                if result.input_bytes:
                    first += f"  {format_ratio(memory.peak_bytes / result.input_bytes)}"
                lines = [first, f"retained {format_bytes(memory.retained_bytes)}"]
                if memory.bytes_per_op is not None:
                    lines.insert(0, f"{format_bytes(memory.bytes_per_op)}/op  {_count(memory.allocs_per_op)} allocs")
                cells.append(Cell(lines))
            table.rows.append((row, cells))
        tables.append(table)
    return tables


def _count(value: float) -> str:
    """A count in a narrow cell: 9, 3,000, 30.0K, 3.00M."""
    if value < 9999.5:
        return f"{value:,.0f}"
    return format_bytes(value).replace(" KB", "K").replace(" MB", "M").replace(" GB", "G")


def header_lines(results: ResultFile, role: str = "") -> list[str]:
    meta = results.metadata
    commits = ", ".join(commit[:10] for commit in results.commits) or "unknown"
    dates = sorted(str(run.get_metadata().get("date", ""))[:10] for r in results.results
                   for run in r.benchmark.get_runs() if run.get_metadata().get("date"))
    when = (dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}") if dates else "unknown date"
    machine = f"{meta.get('cpu_model_name', 'unknown CPU')}, {meta.get('cpu_count', '?')} CPUs"
    counts = sorted({len(r.values) for r in results.results})
    values = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    values += " value" if counts == [1] else " values"
    lines = [
        f"{role}{results.path}: {len(results.results)} benchmarks, {values} each; commit {commits}"
        + (" (dirty tree)" if results.dirty else "") + (" (runs appended from several commits)"
                                                        if len(results.commits) > 1 else ""),
        f"  {when}; {machine}; Python {str(meta.get('python_version', '?')).split(' ')[0]}; "
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


def markdown_document(head: list[str], tables: list[Table], notes: list[str]) -> str:
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
