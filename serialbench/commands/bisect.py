"""`python -m serialbench bisect NAME GOOD BAD -b BENCHMARK`: the releases where a benchmark's cost changed.

The releases of NAME that the index has from GOOD to BAD are searched by paired sessions
(verdicts/bisection.py): a session times the two ends of a bracket and the release halfway,
interleaved, and judges both halves (verdicts/steps.py); every half that changed becomes a bracket
of its own, so that a cost that crept up over several releases is followed into each step. A
bracket of a few releases is timed whole, every release in one session. The steps found are
listed with their verdicts, intervals and shares of the whole change.

A step only counts when its verdict is decided: "slower"/"faster", "no change", or "at the
threshold" (measured, about the minimum effect). A "too noisy to tell" takes the session again
with twice the rounds (at most twice); after that the search says so for that bracket: it never
guesses. --max-sessions and --max-time (minutes, for the whole search) bound it, and what the
budget left unsearched is named.
"""

from __future__ import annotations

import time
from dataclasses import replace

from serialbench.commands import options
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import (
    add_cases_argument,
    add_index_arguments,
    add_payload_argument,
    add_session_arguments,
    add_with_argument,
    interrupt_on_sigterm,
    payload_arguments,
    settings_from,
    whole,
)
from serialbench.measure.engine import run_session
from serialbench.sides import releases, sweep_plan
from serialbench.sides.checks import benchmark_side
from serialbench.sides.selection import one_benchmark
from serialbench.sides.worktrees import work_tree
from serialbench.verdicts.bisection import WANTED, Bisection
from serialbench.views.bisect_steps import answer_lines, session_line
from serialbench.views.progress import session_round_line
from serialbench.views.table import Document
from serialbench.views.verdict_json import bisect_keys

DESCRIPTION = ("Find every release of a library between GOOD and BAD where the cost of one benchmark steps (the "
               "first release after each step's last unchanged one), by paired sessions between the releases the "
               "index has, largest half first.")


def arguments(cli: Parser) -> None:
    cli.add_argument("name", metavar="NAME", help="the package (e.g. tritonclient)")
    cli.add_argument("good", metavar="GOOD", help="a release with the old cost (e.g. 2.40.0)")
    cli.add_argument("bad", metavar="BAD", help="a later release with the new cost (e.g. 2.50.0)")
    cli.add_argument("-b", "--benchmark", required=True, metavar="NAME",
                     help="the benchmark, FORMAT/IMPL/INPUT/TIER (e.g. triton-binary/tritonclient/int32x3/1M)")
    cli.add_argument("--direction", choices=sorted(WANTED), default="changed",
                     help="the change to look for (default: changed, slower or faster)")
    add_cases_argument(cli)
    add_payload_argument(cli)
    cli.add_argument("--repo", metavar="PATH",
                     help="search commits instead of releases: GOOD and BAD are revisions of this git clone of NAME, "
                          "and the commits between them on BAD's first-parent line are built from clean trees")
    add_with_argument(cli, "every release (e.g. a dependency at one version)")
    options.add_build_arguments(cli)
    add_index_arguments(cli)
    add_session_arguments(cli, "minutes for the whole search: each session gets what is left, and what is "
                               "not searched when it runs out is named", budget=False)
    cli.add_argument("--max-sessions", type=whole(), metavar="N",
                     help="at most N sessions (retries included); what is not searched then is named")
    options.add_explain_arguments(cli, "step found")
    cli.add_json("the steps and every session")


def run(args, out: Output) -> int:
    settings = settings_from(args)
    benchmark = one_benchmark(args.case_dirs, args.benchmark, args.payloads)
    releases.use_index(args.index_url, args.find_links)
    searched = sweep_plan.bisect_range(args.name, args.good, args.bad, args.repo, out.say)
    min_effect, build = options.min_effect(args), options.build_from(args)
    interrupt_on_sigterm()
    with work_tree(args.case_dirs) as tree:
        tree = replace(tree, label="work tree", payloads=payload_arguments(args.payloads))

        def side_of(version: str):
            return benchmark_side(tree, version, [searched.spec(version), *args.with_specs], build, benchmark, out.say)

        def time_session(sides, scaled, look):
            return run_session(sides, [benchmark], scaled, look, out.say,
                               progress=session_round_line(1, scaled, out.say))

        search = Bisection(searched.versions, benchmark, side_of, time_session, settings, min_effect, args.direction,
                           args.max_sessions, args.max_time,
                           lambda number, record: out.print(session_line(number, record)), out.say)
        result = search.run()
        explained, not_explained = explain_found(args, out.say, search, result) if args.explain else ({}, None)
    minutes = (time.monotonic() - search.started) / 60
    took = f"{len(search.sessions)} sessions in {minutes:.1f} min"
    good, bad, history = searched.good, searched.bad, searched.history
    out.document(Document([], head=answer_lines(benchmark, result, good, bad, args.direction, took, history,
                                                search.skipped, explained),
                          keys=bisect_keys(benchmark, good, bad, result, search.sessions, history, search.skipped,
                                           searched.named, explained, not_explained, args.direction, minutes)))
    if search.interrupted:
        return 130
    return 0 if result.complete else 1


def explain_found(args, say, search: Bisection, result) -> tuple[dict, dict[str, str]]:
    """--explain, after the search and while its sides exist: each faster or slower step found, explained as a
    sweep's steps are, scaled to its sides' medians in the last session that timed both; the `explain`
    objects by (before, after), and the steps it could not explain, each said in one line."""
    from serialbench.commands.sweep import explain_steps

    rows = [row for row in map(search.step_row, result.steps) if row is not None]
    sides = [side for side in search.sides.values() if side is not None]
    explained, not_explained = explain_steps(args, say, rows, sides, search.interrupted)
    return {(before, after): found for (_, before, after), found in explained.items()}, not_explained
