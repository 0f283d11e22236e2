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

Views never re-run anything: everything here comes from the result files.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from serialbench import comparison, stats
from serialbench.comparison import parse_percent
from serialbench.errors import UsageError
from serialbench.formatting import format_bytes, format_change, format_ratio, format_throughput, format_time
from serialbench.listing import parser
from serialbench.registry import name_matches
from serialbench.results import FLOOR, Result, ResultFile, load, tier_order

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


@dataclass
class Cell:
    lines: list[str]
    marked: bool = False  # fastest of its format (one file) or a flagged change (two files)


@dataclass
class Table:
    title: str
    legend: str
    columns: list[str]
    rows: list[tuple[str, list[Cell | None]]] = field(default_factory=list)
    group_starts: set[int] = field(default_factory=set)  # row indexes where a new format begins


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
    for kind, direction, group in _groups(selected):
        columns = tier_order(r.tier for r in group)
        fastest = _fastest_per_format_and_tier(group)
        table = Table(f"{kind}, {direction}: median time per op", BRIEF_LEGEND if brief else TIMING_LEGEND, columns)
        for row, by_tier in _rows(group, table):
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
    for kind, direction, group in _groups([r for r in selected if r.memory is not None]):
        columns = tier_order(r.tier for r in group)
        table = Table(
            f"{kind}, {direction}: memory per op (tracemalloc)",
            "Each cell: peak traced memory while one op runs, above the level before it, and its multiple "
            "of the raw input bytes; bytes the op's result still holds when it returns (retained). "
            "Memory a library allocates outside Python's allocators and numpy is not traced.",
            columns,
        )
        for row, by_tier in _rows(group, table):
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


def _groups(selected: list[Result]):
    """(input kind, direction, results) in the order the file has them, encode before decode."""
    kinds = list(dict.fromkeys(r.input for r in selected))
    for kind in kinds:
        for direction in ("encode", "decode"):
            group = [r for r in selected if r.input == kind and r.direction == direction]
            if group:
                yield kind, direction, group


def _rows(group: list[Result], table: Table):
    """(FORMAT/IMPL, {tier: result}) with the formats in file order, baseline first."""
    rows: dict[str, dict[str, Result]] = {}
    for result in sorted(group, key=lambda r: r.format != FLOOR[0]):  # stable: file order otherwise
        rows.setdefault(result.row, {})[result.tier] = result
    previous_format = None
    for index, (row, by_tier) in enumerate(rows.items()):
        row_format = row.split("/")[0]
        if previous_format is not None and row_format != previous_format:
            table.group_starts.add(index)
        previous_format = row_format
        yield row, by_tier


# ---------------------------------------------------------------- two files


@dataclass
class Change:
    """One benchmark in BASE and NEW: medians, NEW/BASE ratio and the verdict of serialbench/stats.py."""

    name: str
    base: Result
    new: Result
    ratio: float | None  # median NEW / median BASE
    verdict: str  # stats.SLOWER, FASTER, NO_CHANGE, TOO_NOISY; "not timed" when a side has no values
    change: float | None = None  # the engine's estimate, NEW/BASE - 1


def compare(base: ResultFile, new: ResultFile, min_effect: float = stats.MIN_EFFECT,
            names: Sequence[str] | None = None) -> tuple[list[Change], bool]:
    """Changes for the benchmarks present in both files, in NEW's order, judged as `compare` judges:
    paired round by round when both files come from one compare session, unpaired otherwise."""
    pairs = [(base.get(r.name), r) for r in new.results
             if (names is None or r.name in names) and base.get(r.name) is not None]
    timed = [(b, n) for b, n in pairs if b.median is not None and n.median is not None]
    paired = is_one_session(base, new)
    rows = comparison.compare_benchmarks({b.name: b.benchmark for b, _ in timed},
                                         {n.name: n.benchmark for _, n in timed}, paired, min_effect)
    verdicts = {row.name: row.verdict for row in rows}
    changes = []
    for b, n in pairs:
        verdict = verdicts.get(n.name)
        changes.append(Change(n.name, b, n, n.median / b.median if verdict else None,
                              verdict.verdict if verdict else "not timed", verdict.change if verdict else None))
    return changes, paired


def is_one_session(base: ResultFile, new: ResultFile) -> bool:
    """Both files are the two sides of one compare session (their runs were taken in lockstep)."""
    sessions = [{run.get_metadata().get("serialbench_session") for r in f.results for run in r.benchmark.get_runs()}
                for f in (base, new)]
    return len(sessions[0]) == 1 and None not in sessions[0] and sessions[0] == sessions[1]


def change_tables(changes: list[Change], min_effect: float, paired: bool) -> list[Table]:
    by_name = {change.name: change for change in changes}
    tables = []
    for kind, direction, group in _groups([change.new for change in changes]):
        columns = tier_order(r.tier for r in group)
        table = Table(
            f"{kind}, {direction}: BASE -> NEW, median time per op",
            f"Each cell: median BASE -> NEW, then the verdict and the estimated change (minimum effect "
            f"{min_effect * 100:g}%). Marked: slower or faster. " + comparison.legend(paired),
            columns,
        )
        for row, by_tier in _rows(group, table):
            cells: list[Cell | None] = []
            for tier in columns:
                result = by_tier.get(tier)
                cells.append(_change_cell(by_name[result.name]) if result is not None else None)
            table.rows.append((row, cells))
        tables.append(table)
    return tables


def _change_cell(change: Change) -> Cell:
    base, new = change.base.median, change.new.median
    if base is None or new is None:
        return Cell(["not timed", "in BASE" if base is None else "in NEW"])
    first = f"{format_time(base)} -> {format_time(new)}"
    return Cell([first, describe_change(change)], change.verdict in ("slower", "faster"))


def describe_change(change: Change) -> str:
    if change.ratio is None or change.change is None:
        return "not timed"
    if change.verdict == stats.SLOWER:
        return f"{1 + change.change:.2f}x slower"
    if change.verdict == stats.FASTER:
        return f"{1 / (1 + change.change):.2f}x faster"
    return f"{change.verdict} {format_change(change.change)}"


# ---------------------------------------------------------------- rendering


def render_markdown(table: Table) -> str:
    lines = [f"### {table.title}", "", table.legend, "", "| FORMAT/IMPL | " + " | ".join(table.columns) + " |",
             "|---|" + "---:|" * len(table.columns)]
    for row, cells in table.rows:
        texts = []
        for cell in cells:
            if cell is None:
                texts.append("-")
                continue
            parts = [part.replace("|", "\\|").replace("  ", " · ") for part in cell.lines]
            if cell.marked:
                parts[0] = f"**{parts[0]}**"
            texts.append("<br>".join(parts))
        lines.append(f"| {row} | " + " | ".join(texts) + " |")
    return "\n".join(lines) + "\n"


def render_text(table: Table, legend: bool = True) -> str:
    grid = []
    for row, cells in table.rows:
        texts = []
        for cell in cells:
            if cell is None:
                texts.append(["-"])
            else:
                texts.append([f"* {cell.lines[0]}" if cell.marked else cell.lines[0], *cell.lines[1:]])
        grid.append((row, texts))
    label_width = max([len("FORMAT/IMPL")] + [len(row) for row, _ in grid])
    widths = [max([len(column)] + [len(line) for _, texts in grid for line in texts[i]])
              for i, column in enumerate(table.columns)]
    header = "FORMAT/IMPL".ljust(label_width) + "".join("  " + c.rjust(w) for c, w in zip(table.columns, widths))
    rule = "-" * len(header)
    out = [table.title, *([_wrap(table.legend, max(len(header), 100))] if legend else []), rule, header, rule]
    for index, (row, texts) in enumerate(grid):
        if index in table.group_starts:
            out.append("")
        height = max(len(lines) for lines in texts)
        for line_no in range(height):
            label = row if line_no == 0 else ""
            out.append(label.ljust(label_width) + "".join(
                "  " + (lines[line_no] if line_no < len(lines) else "").rjust(width)
                for lines, width in zip(texts, widths)))
    out.append(rule)
    return "\n".join(out) + "\n"


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


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
        notes = _change_notes(changes, selected, base_selected)
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


def _change_notes(changes: list[Change], selected: list[Result], base_selected: list[Result]) -> list[str]:
    notes = []
    for verdict in ("slower", "faster"):
        flagged = sorted((c for c in changes if c.verdict == verdict), key=lambda c: c.ratio,
                         reverse=verdict == "slower")
        if flagged:
            notes.append(f"{verdict} in NEW ({len(flagged)}): " + ", ".join(
                f"{c.name} {describe_change(c).split()[0]}" for c in flagged))
    counts = {word: sum(1 for c in changes if c.verdict == word) for word in (stats.NO_CHANGE, stats.TOO_NOISY)}
    untimed = sum(1 for c in changes if c.verdict == "not timed")
    notes.append(f"of {len(changes)} benchmarks: {counts[stats.NO_CHANGE]} no change, "
                 f"{counts[stats.TOO_NOISY]} too noisy to tell" + (f", {untimed} not timed" if untimed else ""))
    compared = {c.name for c in changes}
    only_new = [r.name for r in selected if r.name not in compared]
    only_base = [r.name for r in base_selected if r.name not in compared]
    if only_new:
        notes.append(f"only in NEW: {', '.join(only_new)}")
    if only_base:
        notes.append(f"only in BASE: {', '.join(only_base)}")
    return notes


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
