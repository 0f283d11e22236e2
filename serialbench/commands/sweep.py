"""`python -m serialbench sweep SPEC SPEC ...`: how a library's cost moved over its releases.

Each SPEC is a side with its own overlay, as compare's --base-with (sides/checks.py); a range
expands to the index's releases in it (sides/releases.py). Every side is checked before any
timing: a side that fails to install or runs none of the selection is named and left out, and a
benchmark runs on the sides that can run it. All sides are timed in one interleaved session (one
per set of sides, when some refuse some benchmarks), a new order each round, with the adaptive
rounds of compare. The verdicts are on each adjacent step, corrected across every step and
benchmark (verdicts/steps.py); the table shows each release's change against the first, the anchor
(views/sweep_table.py). `--shard K/N` times one part of the releases, with the anchor and the
release before the part; `--merge` joins the parts' --json files into one table. `--pythons
3.11,3.12,3.13` sweeps interpreters instead, each with an environment made where it lacks the
selection's libraries, and judges each against the first (the one run now: is each cheaper?), with
the same correction across every step and benchmark. The plan (the SPECs to sides, their names and
groups, and which steps are judged) is sides/sweep_plan.py's; the sessions, one a group, and the table
built from them, verdicts/sweep_sessions.py's; this command reads the options, wires the engine and writes.
"""

from __future__ import annotations

import time

from serialbench.commands import options
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import (
    add_filter_arguments,
    add_index_arguments,
    add_session_arguments,
    add_with_argument,
    filters,
    interrupt_on_sigterm,
    payload_arguments,
    settings_from,
)
from serialbench.core.errors import UsageError
from serialbench.measure.engine import run_session
from serialbench.results import kinds
from serialbench.sides import environments, overlays, releases, sweep_plan
from serialbench.sides.checks import check_sides
from serialbench.sides.selection import check_selection, selection_distributions
from serialbench.verdicts.steps import Sweep, merge, sweep_from_json
from serialbench.verdicts.sweep_sessions import time_groups
from serialbench.views.progress import budget_line, session_round_line
from serialbench.views.sweep_table import listed, sweep_document

DESCRIPTION = ("Time a library's releases (or any sides) in one interleaved session and say at which release each "
               "benchmark changed.")


def arguments(cli: Parser) -> None:
    cli.add_argument("specs", nargs="*", metavar="SPEC",
                     help=f"a side, in order (the first is the anchor): {overlays.SPEC_HELP}, or a range: "
                          "'tritonclient>=2.44,<=2.50', every release the index has in it; PATH@A..B, A and every "
                          "commit after it on B's first-parent line, each built from a clean tree")
    cli.add_argument("--steps", type=int, metavar="N", help="time N of the releases, spread evenly, always the "
                                                            "first and the last")
    cli.add_argument("--shard", metavar="K/N", help="time the K-th of N parts of the releases (with the anchor "
                                                    "and the release before the part); join them with --merge")
    cli.add_argument("--merge", nargs="+", metavar="FILE", help="join the --json files of a sweep's parts into "
                                                                "one table (no timing)")
    cli.add_argument("--pythons", metavar="PY,PY,...",
                     help="instead of SPECs, interpreters, in order (the first is the anchor): versions the machine "
                          "has (3.11,3.12,3.13), commands or paths; one without the selection's libraries gets an "
                          "environment made for it, at this environment's versions, cached; each is judged against "
                          "the first")
    cli.add_argument("--revisions", metavar="A..B",
                     help="instead of SPECs, the revisions of the repository holding the cases (serialbench's own, "
                          "or --cases DIR's): A, then every commit after it on B's first-parent line, as asv run A..B")
    add_with_argument(cli, "every side (e.g. a dependency at one version)")
    options.add_build_arguments(cli)
    add_index_arguments(cli)
    add_filter_arguments(cli)
    add_session_arguments(cli)
    options.add_explain_arguments(cli, "step")
    cli.add_json("the table (keys: sides, benchmarks)")
    cli.add_markdown("the table")
    cli.add_output("--plot", metavar="FILE.png", help="also plot each benchmark's time against release (a new file)")


def run(args, out: Output) -> int:
    say = out.say
    if args.plot:
        options.require_extra("--plot", "matplotlib", "plot")
    if args.merge:
        if args.explain:
            raise UsageError("--explain profiles the sides of a sweep it times; --merge times nothing (a part's "
                             "explained steps are in its --json file already)")
        if args.specs or args.shard:
            raise UsageError("--merge joins finished parts: give it the parts' --json files and no SPEC or --shard")
        parts = [sweep_from_json(read(path), path) for path in args.merge]
        sweep = merge(parts)
        return output(sweep, out, f"{len(parts)} parts merged; each step's verdict is from the part that timed "
                                   "both of its releases")
    if args.pythons and (args.specs or args.revisions or args.shard):
        raise UsageError("--pythons sweeps interpreters: give no SPEC, --revisions nor --shard with it "
                         "(--with SPEC applies to every interpreter)")
    if args.revisions and (args.specs or args.shard):
        raise UsageError("--revisions sweeps the cases' own revisions: give no SPEC nor --shard with it "
                         "(--with SPEC applies to every revision)")
    if not args.specs and not args.revisions and not args.pythons:
        raise UsageError("give the sides to sweep: two SPECs or more, or a range such as 'tritonclient>=2.44,<=2.50' "
                         "or PATH@A..B (commits of a git repository), or --pythons 3.11,3.12,3.13 (interpreters)")
    settings = settings_from(args)
    min_effect = options.min_effect(args)
    shard = releases.parse_shard(args.shard)
    build = options.build_from(args)
    if not args.revisions:  # a revision of the cases may select what this work tree does not have
        check_selection(args.case_dirs, args.patterns, args.tier, args.input, args.payloads)
    releases.use_index(args.index_url, args.find_links)
    plan = sweep_plan.plan(args.specs, args.revisions, args.pythons, args.case_dirs, args.steps, shard, say)
    interrupt_on_sigterm()
    started = time.monotonic()
    needs = environments.pinned(selection_distributions(args.case_dirs, args.patterns, args.tier, args.input,
                                                         args.payloads)) if args.pythons else None

    def time_session(group_sides, names, share, look):
        say(f"{len(names)} benchmarks on {len(group_sides)} sides ({listed(s.label for s in group_sides)}), "
            f"looks after {', '.join(map(str, settings.looks))} rounds")
        return run_session(group_sides, names, share, look, say, progress=session_round_line(len(names), share, say))

    with sweep_plan.sides_of(plan.specs, plan.labels, args.revisions, args.pythons, args.case_dirs,
                             payload_arguments(args.payloads), args.with_specs, needs, build, say) as (sides, left_out):
        checked = check_sides(sides, filters(args.patterns, args.tier, args.input), say)
        usable, own = sweep_plan.usable(checked, plan, shard, left_out, say)
        groups = sweep_plan.side_groups(usable, say)
        timed = time_groups(groups, settings, min_effect, plan.against_anchor, started, time_session, say)
        rows = timed.rows(usable)
        explained, not_explained = (explain_steps(args, say, rows, [item.side for item in usable], timed.interrupted)
                                    if args.explain else ({}, None))
    sweep = timed.sweep(plan, usable, rows, own, shard, left_out, explained, not_explained)
    if timed.budget_rounds:
        say(budget_line(timed.budget_rounds, settings.budget))
    status = output(sweep, out, f"{len(rows)} benchmarks x {len(sweep.sides)} sides, {timed.rounds} rounds at most, "
                                 f"in {(time.monotonic() - started) / 60:.1f} min")
    if timed.failed:
        out.print(f"{len(timed.failed)} not compared: " + "; ".join(f"{n}: {w}" for n, w in timed.failed.items()))
        status = 1
    if timed.interrupted:
        say("interrupted: the table is of the rounds taken; exit status 130")
        return 130
    return status


def explain_steps(args, say, rows, sides, interrupted: bool) -> tuple[dict, dict[str, str]]:
    """--explain, after every session has decided and while the sides exist: each decided step profiled on
    its two sides and diffed (verdicts/explain.py); the `explain` objects by (benchmark, before, after), and
    the steps it could not explain, each said in one line."""
    from serialbench.verdicts.explain import decided_steps, explain_after_session
    from serialbench.views import explain_table

    pairs = decided_steps(rows, {side.label: side for side in sides})
    found = explain_after_session(pairs, interrupted, say, "steps", "no step is faster or slower")
    if found is None:
        return {}, {}
    explanations, failing = found
    not_explained = {f"{name} ({before} -> {after})": why for (name, before, after), why in failing.items()}
    for line in explain_table.failures(not_explained):
        say(line)
    return {key: explain_table.record(explanation, args.explain_top) for key, explanation in explanations.items()}, \
        not_explained


def read(path: str) -> str:
    try:
        with kinds.open_text(path) as file:
            return file.read()
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        raise UsageError(f"--merge {path}: {why}; give the --json files of a sweep's parts") from None


def output(sweep: Sweep, out: Output, closing: str) -> int:
    out.document(sweep_document(sweep))
    out.print(closing)
    if out.wants("plot") and sweep.rows:
        from serialbench.views.sweep_plot import plot_sweep

        plot_sweep(sweep, str(out.path("plot")))  # matplotlib writes it: claimed, as every output, before the work
        out.say(f"plot: {out.path('plot')}")
    return 0

