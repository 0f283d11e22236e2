"""`python -m serialbench report RESULTS.json [NEW.json]`: the comparison at a glance.

One file: per input kind and direction, FORMAT/IMPL by tier (views/timing.py), the round trip per
protocol when the file holds all four halves of one (views/roundtrip_table.py), and the memory tables
when the memory pass wrote its companion file. Two files, BASE and NEW: the same layout, each cell
the change with compare's verdict (verdicts/file_changes.py, views/changes.py). Nothing is re-run.
"""

from __future__ import annotations

from serialbench.commands import options
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_filter_arguments, add_min_effect, selected_inputs
from serialbench.core.errors import UsageError
from serialbench.results.files import load
from serialbench.results.selection import filter_results, select_results
from serialbench.results.session_files import explained_in
from serialbench.verdicts.file_changes import changes_between, is_one_session, session_min_effect
from serialbench.views import timing
from serialbench.views.changes import change_notes, change_tables
from serialbench.views.costs import cost_tables
from serialbench.views.report_json import one_file_json, two_files_json
from serialbench.views.roundtrip_table import roundtrip_tables

DESCRIPTION = "Tables (and a plot) of one result file, or the change from BASE to NEW."
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def arguments(cli: Parser) -> None:
    cli.add_argument("files", nargs="+", metavar="RESULTS.json", help="one result file, or two: BASE.json NEW.json")
    cli.add_markdown("the tables")
    cli.add_json("what the tables show (one file: every benchmark's figures; two: the verdicts)")
    cli.add_output("--plot", metavar="FILE.png", help="draw time per op against tier (PNG, SVG or PDF; a new file)")
    add_filter_arguments(cli, cases=False)
    add_min_effect(cli)


def run(args, out: Output) -> int:
    if len(args.files) > 2:
        raise UsageError(f"report takes one result file or two (BASE NEW), not {len(args.files)}")
    if args.plot and not args.plot.lower().endswith(PLOT_SUFFIXES):
        raise UsageError(f"--plot {args.plot}: the name must end in {', '.join(PLOT_SUFFIXES)}")
    if args.plot:
        options.require_extra("--plot", "matplotlib", "plot")
    args.input = selected_inputs(args)

    loaded = [load(path) for path in args.files]
    changes = []
    if len(loaded) == 1:
        selected = select_results(loaded[0], args.patterns, args.tier, args.input)
        head = timing.header_lines(loaded[0])
        tables = (timing.timing_tables(loaded[0], selected) + roundtrip_tables(selected) + cost_tables(selected)
                  + timing.memory_tables(selected))
        notes = timing.single_file_notes(loaded[0], selected)
        as_json = lambda: one_file_json(loaded[0], selected, notes)  # noqa: E731
    else:
        base, new = loaded
        # The session's own minimum effect, as its files record it, unless one is given.
        min_effect = options.min_effect(args, session_min_effect(base, new))
        selected = select_results(new, args.patterns, args.tier, args.input)
        found = changes_between(base, new, min_effect, names={r.name for r in selected})
        changes = found.changes
        head = timing.header_lines(base, "BASE ") + timing.header_lines(new, "NEW  ")
        # compare --explain's blocks, from NEW's file: only beside the BASE they were explained against
        explained = explained_in(new) if is_one_session(base, new) else {}
        tables = change_tables(found, min_effect, explained)
        base_selected = filter_results(base.results, args.patterns, args.tier, args.input)
        notes = change_notes(found, selected, base_selected)
        as_json = lambda: two_files_json(base, new, found, min_effect, notes, explained)  # noqa: E731
    if not tables:
        raise UsageError("nothing to report: the selection is empty" if len(loaded) == 1 else
                         f"{args.files[0]} and {args.files[1]} have no benchmark in common")

    out.print(timing.text_document(head, tables, notes))
    out.write("markdown", lambda: timing.markdown_document(head, tables, notes))
    out.write("json", as_json)
    if args.plot:
        if not any(r.median is not None for r in selected):
            raise UsageError(f"--plot {args.plot}: no benchmark in the selection has timing values")
        from serialbench.views.plot import plot_results

        try:
            plot_results(loaded[-1], selected, args.plot, base=loaded[0] if len(loaded) == 2 else None,
                         verdicts={c.name: (c.verdict, c.change) for c in changes} if len(loaded) == 2 else None)
        except OSError as exc:
            raise UsageError(f"--plot {args.plot}: cannot write it ({exc.strerror or exc})") from None
        out.say(f"plot: {args.plot}")
    return 0
