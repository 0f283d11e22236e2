"""`python -m serialbench compare`: did this change make the selected benchmarks cheaper?

The change is between two sides (measure/sides.py): two git revisions of the cases, two
environments (libraries installed at other versions or from a local checkout, or another
interpreter), or both. The timing interleaves them in lockstep (measure/schedule.py), the verdicts
come from core/stats.py through verdicts/paired.py, the table from views/verdict_table.py, and
both sides' result files stay in results/ of the working directory. Before any timing, each side is
checked and named (measure/side_setup.py): what a side cannot run is said, one line per cause, and
left out. An interrupted session still prints its table and writes its files, and exits 130.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from serialbench.commands import compare_counts, options
from serialbench.commands.options import (
    add_filter_arguments,
    add_session_arguments,
    budget_from,
    filter_args,
    interrupt_on_sigterm,
    payload_arguments,
)
from serialbench.commands.options import parser as make_parser
from serialbench.core.errors import UsageError
from serialbench.core.tables import text_table
from serialbench.measure import overlays
from serialbench.measure.schedule import run_session
from serialbench.measure.side_setup import check_selection, check_sides, common_benchmarks, with_environment
from serialbench.measure.sides import Side
from serialbench.measure.worktrees import checkout, work_tree
from serialbench.results.session_files import write_session_files
from serialbench.verdicts.paired import PairedComparison, failing
from serialbench.views.verdict_json import compare_json
from serialbench.views.verdict_table import format_table, markdown_table


@contextlib.contextmanager
def prepared_sides(args, say: Callable[[str], None]) -> Iterator[tuple[Side, Side]]:
    """BASE and HEAD as the options describe them: revisions, environments, or both."""
    if args.base is not None:
        context = checkout([args.base, args.head], ["BASE", "HEAD"], args.case_dirs)
    else:
        context = work_tree(args.case_dirs)
    with context as found:
        trees = found if args.base is not None else [dataclasses.replace(found, label=label)
                                                     for label in ("BASE", "HEAD")]
        sides = [with_environment(dataclasses.replace(side, payloads=payload_arguments(args.payloads)), python, specs,
                                  say)
                 for side, python, specs in zip(trees, (args.base_python, args.head_python),
                                                (args.base_with, args.head_with))]
        yield sides[0], sides[1]


def make_cli():
    cli = make_parser("compare", "Time two sides interleaved and say which benchmarks changed. A side is a git "
                                 "revision, an environment (--*-with, --*-python), or both.")
    cli.add_argument("base", metavar="BASE", nargs="?",
                     help="git revision to compare against (e.g. main, HEAD~1); optional with --base-with, "
                          "--head-with, --base-python or --head-python (both sides then run the work tree)")
    cli.add_argument("head", metavar="HEAD", nargs="?",
                     help="git revision to compare (default: the work tree, uncommitted changes included)")
    for side in ("base", "head"):
        cli.add_argument(f"--{side}-with", action="append", default=[], metavar="SPEC",
                         help=f"install SPEC for {side.upper()} only, first on its sys.path (repeatable): "
                              + overlays.SPEC_HELP)
        cli.add_argument(f"--{side}-python", metavar="PY", help=f"run {side.upper()}'s workers with this interpreter")
    add_filter_arguments(cli)
    add_session_arguments(cli)
    cli.add_argument("--instructions", action="store_true",
                     help="count instructions per op under valgrind's callgrind instead of timing")
    compare_counts.add_arguments(cli)  # --cycles, --memory
    cli.add_argument("--fail-on", choices=("slower", "changed"),
                     help="exit with status 1 when a benchmark is slower (or, with 'changed', slower or faster)")
    cli.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown (e.g. for a pull request)")
    cli.add_argument("--json", metavar="FILE", help="also write the verdicts as JSON (keys: base, head, benchmarks)")
    return cli


def run(argv: list[str]) -> int:
    args = make_cli().parse_args(argv)
    environments = args.base_with or args.head_with or args.base_python or args.head_python
    if args.base is None and not environments:
        raise UsageError("give BASE (a git revision), or an environment for a side: --base-with/--head-with SPEC, "
                         "--base-python/--head-python PY")
    for option, path in (("--markdown", args.markdown), ("--json", args.json)):
        if path and os.path.exists(path):
            raise UsageError(f"{option} {path} exists and is never overwritten; give a new file")
    budget = budget_from(args)
    min_effect = options.min_effect(args)
    check_selection(args.case_dirs, args.patterns, args.tier, args.input, args.payloads)  # the user's typo
    interrupt_on_sigterm()

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    filters = filter_args(args.patterns, args.tier, args.input)
    compare_counts.check(args)
    if args.instructions:
        from serialbench.measure import instructions

        instructions.require_valgrind()
    with prepared_sides(args, say) as (base, head):
        checked = check_sides((base, head), filters, say)
        names = common_benchmarks(checked, say)
        base, head = (item.side for item in checked)
        say(f"BASE: {base.description}; HEAD: {head.description}")
        if args.instructions:
            return compare_instructions(base, head, names, say, options.min_effect(args, instructions.THRESHOLD))
        if args.cycles or args.memory:
            return compare_counts.run(args, base, head, names, say, options.min_effect(args, 0.01))
        judge = PairedComparison("BASE", "HEAD", names, budget.looks, min_effect)
        say(f"{len(names)} benchmarks; rounds of one worker per side in lockstep, looks after "
            f"{', '.join(map(str, budget.looks))} rounds"
            + (f", at most {args.max_time:g} min" if budget.max_seconds else ""))
        session = run_session((base, head), names, budget, judge.look, say)
    write_session_files(session, (base, head), say)
    rows, selection = judge.rows(session), judge.selection()
    labels = (f"BASE {base.description}", f"HEAD {head.description}")
    print(format_table(rows, *labels, min_effect, selection=selection))
    print(f"{len(names)} benchmarks, {session.rounds} rounds in {session.seconds / 60:.1f} min")
    if args.markdown:
        Path(args.markdown).write_text(markdown_table(rows, *labels, min_effect, selection=selection))
        say(f"Markdown table: {args.markdown}")
    if args.json:
        Path(args.json).write_text(compare_json(rows, base.description, head.description, min_effect,
                                                session.failed, selection))
        say(f"JSON verdicts: {args.json}")
    status = 0
    if session.failed:
        print(f"{len(session.failed)} not compared: " + "; ".join(f"{n}: {w}" for n, w in session.failed.items()))
        status = 1
    gate = failing(rows, args.fail_on, selection)
    if gate:
        print(f"--fail-on {args.fail_on}: {len(gate)} {args.fail_on}: " + ", ".join(gate))
        status = 1
    if session.interrupted:
        say(f"interrupted: the table is of {session.rounds} rounds; exit status 130")
        return 130
    return status


def compare_instructions(base: Side, head: Side, names: Sequence[str], say: Callable[[str], None],
                         threshold: float) -> int:
    """compare --instructions: counts per op on both sides, a change beyond `threshold` reported."""
    from serialbench.measure.instructions import count_pairs

    counts = count_pairs((base, head), names, os.cpu_count() or 1, say)
    header = ("benchmark", f"BASE {base.description}", f"HEAD {head.description}", "change", "verdict")
    rows, failed = [], []
    for name, (before, after) in zip(names, counts):
        if before.per_op is None or after.per_op is None:
            failed.append(f"{name}: {before.error or after.error}")
            continue
        change = after.per_op / before.per_op - 1
        verdict = "more instructions" if change > threshold else "fewer instructions" if change < -threshold else "same"
        rows.append((name, f"{before.per_op:,.0f}", f"{after.per_op:,.0f}", f"{change * 100:+.2f}%", verdict))
    print("\n".join(text_table([header, *rows], left=(0, 4))))
    print(f"\ninstructions per op under callgrind (PYTHONHASHSEED=0); a change beyond {threshold * 100:g}% "
          "is reported. Instruction counts miss memory stalls, kernel time and SIMD width: a 1M copy "
          "can cost time that no count shows.")
    if failed:
        print(f"{len(failed)} not counted: " + "; ".join(failed))
        return 1
    return 0
