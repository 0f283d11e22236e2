"""report's one-file views: per input kind and direction, FORMAT/IMPL by tier, and the file's header.

Each cell gives the median time per op and its multiple of baseline/tobytes (the memcpy floor of the
same input and tier, same file), the throughput in MB/s of raw input and the payload size per raw
input byte; the fastest implementation of each format at each tier is marked. With a memory
companion file (`python -m serialbench memory`), memory tables follow. Views never re-run anything.
"""

from __future__ import annotations

from serialbench.catalog.inputs import tier_order
from serialbench.catalog.registry import FLOOR
from serialbench.core.formatting import format_bytes, format_ratio, format_throughput, format_time
from serialbench.results.files import Result, ResultFile
from serialbench.views.grid import Cell, Table, groups, render_markdown, rows

TIMING_LEGEND = ("Each cell: median time per op and its multiple of baseline/tobytes (memcpy floor, same input "
                 "and tier); throughput in MB/s of raw input, and payload bytes per raw input byte. "
                 "Marked: fastest of its format at that tier.")
BRIEF_LEGEND = ("Each cell: median time per op and its multiple of baseline/tobytes (memcpy floor, same input "
                "and tier). Marked: fastest of its format at that tier.")


def timing_tables(results: ResultFile, selected: list[Result], brief: bool = False,
                  stacked: bool = False) -> list[Table]:
    """Per input kind and direction, FORMAT/IMPL by tier. `brief` keeps only the median and its
    multiple of the floor (the run's summary), on one line or, `stacked`, on two (narrower)."""
    tables = []
    for kind, direction, group in groups(selected):
        columns = tier_order(r.tier for r in group)
        fastest = _fastest_per_format_and_tier(group)
        table = Table(f"{kind}, {direction}: median time per op", BRIEF_LEGEND if brief else TIMING_LEGEND, columns)
        for row, by_tier in rows(group, table):
            cells: list[Cell | None] = []
            for tier in columns:
                result = by_tier.get(tier)
                marked = result is not None and fastest.get((result.format, tier)) is result
                if brief and result is not None:
                    parts = _median_parts(results, result)
                    one_line = f"{parts[0]:>7}  {parts[1]:>5}" if len(parts) == 2 else parts[0]  # aligned
                    cells.append(Cell(parts if stacked else [one_line], marked))
                else:
                    cells.append(_timing_cell(results, result, marked))
            table.rows.append((row, cells))
        tables.append(table)
    return tables


def _median_parts(results: ResultFile, result: Result) -> list[str]:
    """The median time per op and, when the file has the floor, its multiple of the floor."""
    median = result.median
    if median is None:
        return ["not timed"]
    floor = results.floor(result)
    floor_median = floor.median if floor else None
    return [format_time(median)] + ([format_ratio(median / floor_median)] if floor_median else [])


def _timing_cell(results: ResultFile, result: Result | None, fastest: bool) -> Cell | None:
    if result is None:
        return None
    if result.median is None:
        return Cell(["not timed", "(no values)"])
    first = "  ".join(_median_parts(results, result))
    if not result.payload_bytes:  # produces nothing (the harness overhead): a rate would mean nothing
        return Cell([first, "no payload"], fastest)
    second = format_throughput(result.throughput_mb_s) if result.input_bytes else "-"
    if result.size_ratio is not None:
        second += f"  size {result.size_ratio:.2f}"
    return Cell([first, second], fastest)


def _fastest_per_format_and_tier(group: list[Result]) -> dict[tuple[str, str], Result]:
    candidates: dict[tuple[str, str], list[Result]] = {}
    for result in group:
        if result.format != FLOOR[0] and result.median is not None:
            candidates.setdefault((result.format, result.tier), []).append(result)
    # A format with one implementation at a tier has nothing to beat: leave it unmarked.
    return {key: min(found, key=lambda r: r.median) for key, found in candidates.items() if len(found) > 1}


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
