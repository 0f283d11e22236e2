"""`python -m serialbench compare`: did this change make the selected benchmarks cheaper?

The change is between two sides (sides/sides.py): two git revisions of the cases, two
environments (libraries installed at other versions or from a local checkout, or another
interpreter), or both. The timing interleaves them, a lane each (measure/engine.py), the verdicts
come from the package core/stats/ through verdicts/paired.py, the table from views/verdict_table.py, and
both sides' result files stay in results/ of the working directory. Before any timing, each side
makes its selection once, in its own environment, and is checked and named (sides/checks.py):
what a side cannot run is said, one line per cause, and left out. An interrupted session still
prints its table and writes its files, and exits 130.

--instructions, --cycles and --memory count instead of timing (verdicts/counts.py): the same
sides, the same outputs (the table, --markdown, --json) and the same gate (--fail-on), with
--min-effect as the count's tolerance.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator

from serialbench.commands import options
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import (
    add_filter_arguments,
    add_session_arguments,
    filters,
    interrupt_on_sigterm,
    payload_arguments,
    settings_from,
)
from serialbench.core.errors import UsageError
from serialbench.sides import commits, environments, overlays
from serialbench.sides.building import check_commits, with_environment
from serialbench.sides.checks import check_sides, common_benchmarks
from serialbench.sides.selection import check_selection, selection_distributions
from serialbench.sides.sides import Side
from serialbench.sides.worktrees import checkout, work_tree

DESCRIPTION = ("Time two sides interleaved and say which benchmarks changed. A side is a git revision, an "
               "environment (--*-with, --*-python), or both.")
COUNTS = {"instructions": "count instructions per op under valgrind's callgrind instead of timing",
          "cycles": "estimated cycles per op: callgrind with its cache simulation (about twice as slow as "
                    "--instructions)",
          "memory": "bytes and allocations per op (B/op, allocs/op; memray, native allocations included)"}


@contextlib.contextmanager
def prepared_sides(args, say: Callable[[str], None]) -> Iterator[tuple[Side, Side]]:
    """BASE and HEAD as the options describe them: revisions, environments, or both."""
    if args.base is not None:
        context = checkout([args.base, args.head], ["BASE", "HEAD"], args.case_dirs)
    else:
        context = work_tree(args.case_dirs)
    build = options.build_from(args)
    needs = environments.pinned(selection_distributions(args.case_dirs, args.patterns, args.tier, args.input,
                                                         args.payloads)) if args.base_python or args.head_python else ()
    with context as found:
        trees = found if args.base is not None else [dataclasses.replace(found, label=label)
                                                     for label in ("BASE", "HEAD")]
        sides = [with_environment(dataclasses.replace(side, payloads=payload_arguments(args.payloads)), python, specs,
                                  say, build, needs, f"--{side.label.lower()}-python")
                 for side, python, specs in zip(trees, (args.base_python, args.head_python),
                                                (args.base_with, args.head_with))]
        yield sides[0], sides[1]


def arguments(cli: Parser) -> None:
    cli.add_argument("base", metavar="BASE", nargs="?",
                     help="git revision to compare against (e.g. main, HEAD~1); optional with --base-with, "
                          "--head-with, --base-python or --head-python (both sides then run the work tree)")
    cli.add_argument("head", metavar="HEAD", nargs="?",
                     help="git revision to compare (default: the work tree, uncommitted changes included)")
    for side in ("base", "head"):
        cli.add_argument(f"--{side}-with", action="append", default=[], metavar="SPEC",
                         help=f"install SPEC for {side.upper()} only, first on its sys.path (repeatable): "
                              + overlays.SPEC_HELP)
        cli.add_argument(f"--{side}-python", metavar="PY",
                         help=f"run {side.upper()}'s workers with this interpreter: a path, a command, or a "
                              "version the machine has (3.13); one without the selection's libraries gets an "
                              "environment made for it, cached")
    cli.add_argument("--patch", metavar="PATH[@REV]",
                     help="a library's uncommitted change against the commit it started from: BASE builds PATH "
                          "(a clone, or its package's folder inside one) at REV (default HEAD), HEAD its work tree "
                          "as it is now, both from clean exports of the folder")
    for side in ("base", "head"):
        cli.add_argument(f"--{side}-label", metavar="NAME", help=f"name {side.upper()} so in the table and its files "
                                                                  "(default: what tells the sides apart)")
    options.add_build_arguments(cli)
    add_filter_arguments(cli)
    add_session_arguments(cli)
    for mode, help_text in COUNTS.items():
        cli.add_argument(f"--{mode}", action="store_true", help=help_text + "; --min-effect is then the count's "
                                                                            "tolerance")
    cli.add_argument("--fail-on", choices=("slower", "changed"),
                     help="exit with status 1 when a benchmark is slower (or, with 'changed', slower or faster); "
                          "with a count, when it counts more (or differs)")
    options.add_explain_arguments(cli, "benchmark", counts=True)
    cli.add_markdown("the table (e.g. for a pull request)")
    cli.add_json("the verdicts (keys: base, head, benchmarks, gate)")


def count_mode(args) -> str | None:
    """The count asked for instead of timing (one at most), its tool checked before any side is made."""
    chosen = [mode for mode in COUNTS if getattr(args, mode)]
    if len(chosen) > 1:
        raise UsageError(f"--{' and --'.join(chosen)}: give one of --instructions, --cycles, --memory")
    if chosen and chosen[0] in ("instructions", "cycles"):
        from serialbench.measure.instructions import require_valgrind

        require_valgrind()
    if chosen == ["memory"]:
        from serialbench.inside.allocations import available

        missing = available()
        if missing:
            raise UsageError(f"--memory: {missing}")
    return chosen[0] if chosen else None


def patch_specs(given: str) -> tuple[str, str]:
    """--patch PATH[@REV]: BASE's spec (PATH@REV, REV HEAD by default) and HEAD's (PATH@{worktree})."""
    if commits.is_commit_spec(given):
        where, revision = commits.repository_of(given)  # PATH@REV, with or without #subdirectory=DIR
    else:
        where, revision = commits.repository(given), "HEAD"
    if where is None:
        raise UsageError(f"--patch {given}: it is not a folder of a git clone; give the library's clone or its "
                         "package's folder inside it, optionally @REV (default HEAD)")
    return where.spec(revision), where.spec(commits.WORK_TREE)


def run(args, out: Output) -> int:
    if args.patch:
        base_spec, head_spec = patch_specs(args.patch)
        args.base_with, args.head_with = [base_spec, *args.base_with], [head_spec, *args.head_with]
    environments = args.base_with or args.head_with or args.base_python or args.head_python
    if args.base is None and not environments:
        raise UsageError("give BASE (a git revision), or an environment for a side: --base-with/--head-with SPEC, "
                         "--patch PATH, --base-python/--head-python PY")
    settings = settings_from(args)
    min_effect = options.min_effect(args)
    mode = count_mode(args)
    check_explain(args, mode)
    if args.base is None:  # both sides run the work tree's cases: the user's typo is said before any install
        check_selection(args.case_dirs, args.patterns, args.tier, args.input, args.payloads)
    check_commits([*args.base_with, *args.head_with])  # before any build
    interrupt_on_sigterm()
    with prepared_sides(args, out.say) as (base, head):
        checked = check_sides((base, head), filters(args.patterns, args.tier, args.input), out.say)
        names = common_benchmarks(checked, out.say)
        base, head = (dataclasses.replace(item.side, name=name or "")
                      for item, name in zip(checked, (args.base_label, args.head_label)))
        out.say(f"BASE: {base.description}; HEAD: {head.description}")
        if mode:
            from serialbench.verdicts.counts import TOLERANCE, count

            tolerance = options.min_effect(args, TOLERANCE[mode])
            rows, failed = count(mode, base, head, names, out.say, tolerance, functions=args.explain)
            return show_counts(args, out, mode, rows, failed, base, head, tolerance)
        from serialbench.measure.engine import run_session
        from serialbench.verdicts.paired import PairedComparison
        from serialbench.views.progress import session_round_line

        judge = PairedComparison("BASE", "HEAD", names, settings.looks, min_effect)
        at_once = f", {settings.cpus} rounds at once, one a CPU" if settings.cpus > 1 else ""
        out.say(f"{len(names)} benchmarks; rounds of one worker per side in lockstep{at_once}, looks after "
                f"{', '.join(map(str, settings.looks))} rounds"
                + (f", at most {args.max_time:g} min" if settings.max_seconds else ""))
        session = run_session((base, head), names, settings, judge.look, out.say,
                              progress=session_round_line(len(names), settings, out.say))
        explained = explain_session(args, out, judge.rows(session), session, (base, head))
    from serialbench.results.session_files import write_session_files

    hang, records = explain_hang(args, out, explained) if explained else (lambda _: None, {})
    write_session_files(session, (base, head), out.say, settings=settings, min_effect=min_effect, explained=records)
    return show_verdicts(args, out, judge, session, base, head, min_effect, len(names), hang, explained)


def check_explain(args, mode: str | None) -> None:
    if args.explain and mode == "memory":
        raise UsageError("--explain explains a timed comparison or --instructions/--cycles; --memory counts "
                         "allocations, which have no per-function profile here")


def explain_session(args, out: Output, rows, session, sides: tuple[Side, Side]):
    """With --explain, after the session has decided: each faster or slower row profiled on both sides,
    diffed (verdicts/explain.py); (explanations, {name: why not}), or None."""
    if not args.explain:
        return None
    from serialbench.verdicts.explain import Pair, decided, explain_after_session

    pairs = [Pair(row.name, row.name, sides, (row.base, row.head)) for row in decided(rows)]
    return explain_after_session(pairs, session.interrupted, out.say, "benchmarks",
                                 "no benchmark is faster or slower")


def explain_hang(args, out: Output, explained) -> tuple[Callable, dict]:
    """With --explain: what hangs each explained row's block under it in every output (the table, --markdown,
    --json), the rows it could not explain said one line each; and the `explain` objects by name, that
    the side files keep."""
    from serialbench.views import explain_table

    found, not_explained = explained
    for line in explain_table.failures(not_explained):
        out.say(line)
    records = {name: explain_table.record(explanation, args.explain_top) for name, explanation in found.items()}
    return explain_table.hanging(records), records


def show_verdicts(args, out: Output, judge, session, base: Side, head: Side, min_effect: float, count: int,
                  hang: Callable = lambda _: None, explained=None) -> int:
    """The table (each explained row's block under it), its files, and the exit status."""
    from serialbench.verdicts.paired import failing
    from serialbench.views.verdict_table import compare_document

    rows, selection = judge.rows(session), judge.selection()
    gate = failing(rows, args.fail_on, selection)
    out.document(compare_document(rows, base.description, head.description, min_effect, session.failed, selection,
                                  fail_on=args.fail_on, gate=gate, hang=hang,
                                  explain_failed=explained[1] if explained else None))
    out.print(f"{count} benchmarks, {session.rounds} rounds in {session.seconds / 60:.1f} min")
    if session.budget_rounds:
        from serialbench.views.progress import budget_line

        out.print(budget_line(session.budget_rounds, args.benchmark_budget))
    status = failures(args, out, session.failed, "compared", gate, args.fail_on)
    if session.interrupted:
        out.say(f"interrupted: the table is of {session.rounds} rounds; exit status 130")
        return 130
    return status


def show_counts(args, out: Output, mode: str, rows, failed: dict[str, str], base: Side, head: Side,
                tolerance: float) -> int:
    """The table of a count, its files, and the exit status (1: a benchmark not counted, or the gate)."""
    from serialbench.verdicts.counts import failing
    from serialbench.views.count_table import counts_document

    gate = failing(rows, args.fail_on)
    hang = lambda _: None  # noqa: E731
    if args.explain:
        from serialbench.verdicts.explain import explain_counted

        explained = (explain_counted(rows), {})
        if not explained[0]:
            out.say(f"--explain: no benchmark counts more or fewer {mode}; nothing to explain")
        hang = explain_hang(args, out, explained)[0]
    out.document(counts_document(mode, rows, base.description, head.description, tolerance, failed, args.fail_on,
                                 gate, hang, explain_failed={} if args.explain else None))
    return failures(args, out, failed, "counted", gate, "benchmarks")


def failures(args, out: Output, failed: dict[str, str], done: str, gate: list[str], gated: str) -> int:
    """The lines under the table: what was not compared (or counted) and why, the benchmarks that fail
    --fail-on (`gated` names them); 1 when there is either, else 0."""
    if failed:
        out.print(f"{len(failed)} not {done}: " + "; ".join(f"{name}: {why}" for name, why in failed.items()))
    if gate:
        out.print(f"--fail-on {args.fail_on}: {len(gate)} {gated}: " + ", ".join(gate))
    return 1 if failed or gate else 0
