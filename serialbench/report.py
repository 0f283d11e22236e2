"""`python -m serialbench report RESULTS.json [NEW.json]`: the comparison at a glance.

One file: per input kind and direction, a table with one row per FORMAT/IMPL and one column per
tier; each cell gives the median time per op and its multiple of baseline/tobytes (the memcpy
floor of the same input and tier, same file), the throughput in MB/s of raw input and the
payload size per raw input byte. The fastest implementation of each format at each tier is
marked. With a memory companion file (`python -m serialbench memory`), memory tables follow.

Two files, BASE and NEW: the same layout, each cell the change from BASE to NEW with the verdict
`compare` gives (serialbench/stats.py: paired when both files are the two sides of one compare
session, unpaired for two independent runs; the same words and the same correction across the
table), so "did my serializer change help?" is answered per format and tier.

Views never re-run anything: everything here comes from the result files. The two-file changes
are serialbench/report_changes.py; the tables' layout and rendering serialbench/report_tables.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from serialbench import stats
from serialbench.comparison import parse_percent
from serialbench.errors import UsageError
from serialbench.formatting import format_bytes, format_ratio, format_throughput, format_time
from serialbench.listing import parser
from serialbench.registry import name_matches
from serialbench.report_changes import change_notes, change_tables, compare
from serialbench.report_tables import Cell, Table, groups, render_markdown, render_text, rows
from serialbench.results import FLOOR, Result, ResultFile, load, tier_order

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


# ---------------------------------------------------------------- one file


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
            f"{kind}, {direction}: memory per op (tracemalloc)",
            "Each cell: peak traced memory while one op runs, above the level before it, and its multiple "
            "of the raw input bytes; bytes the op's result still holds when it returns (retained). "
            "Memory a library allocates outside Python's allocators and numpy is not traced.",
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
                cells.append(Cell([first, f"retained {format_bytes(memory.retained_bytes)}"]))
            table.rows.append((row, cells))
        tables.append(table)
    return tables


# ---------------------------------------------------------------- both


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
    versions = results.library_versions()
    if versions:
        lines.append("  libraries: " + ", ".join(f"{name} {version}" for name, version in versions.items()))
    if results.memory_path:
        note = ""
        if results.memory_commit and results.commits and results.memory_commit not in results.commits:
            note = f" (measured at commit {results.memory_commit[:10]}, not the timing run's)"
        lines.append(f"  memory per op: {results.memory_path}{note}")
    return lines


# ---------------------------------------------------------------- command line


def select_results(results: ResultFile, patterns: Sequence[str], tiers: str | None, inputs: str | None) -> list[Result]:
    """The results that the -b, --tier and --input filters select; a filter that selects nothing is an error."""
    wanted = {}
    for option, words_text, key in (("--tier", tiers, "tier"), ("--input", inputs, "input")):
        if words_text is None:
            continue
        present = list(dict.fromkeys(getattr(r, key) for r in results.results))
        words = [word.strip() for word in words_text.split(",") if word.strip()]
        unknown = [word for word in words if word not in present]
        if unknown or not words:
            raise UsageError(f"{option} {words_text!r}: {', '.join(unknown) or 'empty'} not in {results.path}; "
                             f"it has: {', '.join(present)}")
        wanted[key] = words
    for pattern in patterns:
        if not any(name_matches(r.name, pattern) for r in results.results):
            raise UsageError(f"-b {pattern!r} matches no benchmark in {results.path}; names are "
                             "FORMAT/IMPL/INPUT/TIER")
    return filter_results(results.results, patterns, wanted.get("tier"), wanted.get("input"))


def filter_results(results: Sequence[Result], patterns: Sequence[str], tiers: Sequence[str] | None,
                   inputs: Sequence[str] | None) -> list[Result]:
    return [r for r in results
            if (not patterns or any(name_matches(r.name, p) for p in patterns))
            and (tiers is None or r.tier in tiers) and (inputs is None or r.input in inputs)]


def check_output(path: str | None, force: bool, what: str, inputs: Sequence[str]) -> None:
    """Refuse an output that exists (without --force), is a directory, or is one of the result files."""
    if path is None:
        return
    if os.path.isdir(path):
        raise UsageError(f"{what} {path} is a directory; give a file name")
    if any(os.path.exists(source) and os.path.exists(path) and os.path.samefile(source, path) for source in inputs):
        raise UsageError(f"{what} {path} is one of the result files being read; choose another name")
    if os.path.exists(path) and not force:
        raise UsageError(f"{what} {path} exists; pass --force to overwrite it or choose another name")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"{what} {path}: directory {directory} does not exist")


def run(argv: list[str]) -> int:
    cli = parser("report", "Tables (and a plot) of one result file, or the change from BASE to NEW.")
    cli.add_argument("files", nargs="+", metavar="RESULTS.json",
                     help="one result file, or two: BASE.json NEW.json")
    cli.add_argument("--markdown", metavar="FILE", help="also write the tables as Markdown to FILE")
    cli.add_argument("--plot", metavar="FILE.png", help="draw time per op against tier (PNG, SVG or PDF)")
    cli.add_argument("-b", "--benchmark", dest="patterns", action="append", default=[], metavar="GLOB",
                     help="only benchmarks whose FORMAT/IMPL/INPUT/TIER name matches (repeatable)")
    cli.add_argument("--tier", metavar="T[,T]", help="only these tiers")
    cli.add_argument("--input", metavar="I[,I]", help="only these input kinds")
    cli.add_argument("--min-effect", "--min-change", dest="min_effect", metavar="PCT",
                     help="two files: changes smaller than this are 'no change' "
                          f"(default {stats.MIN_EFFECT * 100:g}%%)")
    cli.add_argument("--force", action="store_true", help="overwrite the --markdown and --plot files")
    args = cli.parse_args(argv)
    if len(args.files) > 2:
        raise UsageError(f"report takes one result file or two (BASE NEW), not {len(args.files)}")
    if args.plot and not args.plot.lower().endswith(PLOT_SUFFIXES):
        raise UsageError(f"--plot {args.plot}: the name must end in {', '.join(PLOT_SUFFIXES)}")
    min_effect = parse_percent(args.min_effect)
    check_output(args.markdown, args.force, "--markdown", args.files)
    check_output(args.plot, args.force, "--plot", args.files)

    loaded = [load(path) for path in args.files]
    if len(loaded) == 1:
        selected = select_results(loaded[0], args.patterns, args.tier, args.input)
        head = header_lines(loaded[0])
        tables = timing_tables(loaded[0], selected) + memory_tables(selected)
        notes = _single_notes(loaded[0], selected)
    else:
        base, new = loaded
        selected = select_results(new, args.patterns, args.tier, args.input)
        changes, paired = compare(base, new, min_effect, names={r.name for r in selected})
        head = header_lines(base, "BASE ") + header_lines(new, "NEW  ")
        tables = change_tables(changes, min_effect, paired)
        base_selected = filter_results(base.results, args.patterns, _words(args.tier), _words(args.input))
        notes = change_notes(changes, selected, base_selected)
    if not tables:
        raise UsageError("nothing to report: the selection is empty" if len(loaded) == 1 else
                         f"{args.files[0]} and {args.files[1]} have no benchmark in common")

    print("\n".join(head))
    legends_shown = set()
    for table in tables:
        print()
        print(render_text(table, legend=table.legend not in legends_shown), end="")
        legends_shown.add(table.legend)
    for note in notes:
        print(note)
    if args.markdown:
        with open(args.markdown, "w" if args.force else "x", encoding="utf-8") as out:
            out.write(markdown_document(head, tables, notes))
        print(f"markdown: {args.markdown}")
    if args.plot:
        if not any(r.median is not None for r in selected):
            raise UsageError(f"--plot {args.plot}: no benchmark in the selection has timing values")
        from serialbench.plot import plot_results

        try:
            plot_results(loaded[-1], selected, args.plot, base=loaded[0] if len(loaded) == 2 else None)
        except OSError as exc:
            raise UsageError(f"--plot {args.plot}: cannot write it ({exc.strerror or exc})") from None
        print(f"plot: {args.plot}")
    return 0


def markdown_document(head: list[str], tables: list[Table], notes: list[str]) -> str:
    parts = ["## serialbench report", "", "\n".join(f"    {line}" for line in head), ""]
    for table in tables:
        parts.append(render_markdown(table))
    if notes:
        parts.extend(f"- {note}" for note in notes)
        parts.append("")
    return "\n".join(parts)


def _single_notes(results: ResultFile, selected: list[Result]) -> list[str]:
    notes = []
    untimed = [r.name for r in selected if r.median is None]
    if untimed:
        notes.append(f"no timing values (partial run?): {', '.join(untimed)}")
    floorless = sorted({f"{r.input}/{r.tier}" for r in selected if r.median is not None and not results.floor(r)})
    if floorless:
        notes.append(f"no {FLOOR[0]}/{FLOOR[1]} in this file for {', '.join(floorless)}: "
                     "multiples of the memcpy floor left out")
    return notes


def _words(text: str | None) -> list[str] | None:
    return None if text is None else [word.strip() for word in text.split(",") if word.strip()]


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
