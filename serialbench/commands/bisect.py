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

import sys
import time
from dataclasses import replace

from serialbench.catalog.discovery import discover
from serialbench.catalog.inputs import INPUT_KINDS, TIERS
from serialbench.catalog.payloads import parse_payloads
from serialbench.catalog.registry import all_benchmarks, case_dirs, name_matches
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
)
from serialbench.core.errors import UsageError
from serialbench.measure.engine import run_session
from serialbench.sides import commits, releases
from serialbench.sides.building import sides_with_overlays
from serialbench.sides.checks import check_sides, few, short_cause
from serialbench.sides.commits import Commit
from serialbench.sides.sides import Side
from serialbench.sides.worktrees import work_tree
from serialbench.verdicts import vocabulary
from serialbench.verdicts.bisection import WANTED, Result, Search
from serialbench.verdicts.steps import Step, StepJudges, sweep_rows
from serialbench.views.bisect_steps import answer_lines, step_text
from serialbench.views.progress import session_round_line
from serialbench.views.verdict_json import bisect_json

RETRIES = 2  # a too-noisy session is taken again with 2x, then 4x the rounds


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
    cli.add_argument("--max-sessions", type=int, metavar="N",
                     help="at most N sessions (retries included); what is not searched then is named")
    cli.add_json("the steps and every session")


def one_benchmark(case_dir_args: list[str], pattern: str, payloads: list[str] = ()) -> str:
    """The one benchmark that -b names in the catalog (whether or not its libraries are installed here)."""
    cases = discover(case_dirs(case_dir_args), lambda message: None)
    names = [b.name for b in all_benchmarks(cases, list(INPUT_KINDS), list(TIERS), parse_payloads(payloads))
             if name_matches(b.name, pattern)]
    if len(names) != 1:
        shown = few(names, names) if names else "none"
        raise UsageError(f"-b {pattern!r} names {len(names)} benchmarks ({shown}); bisect takes one, "
                         "FORMAT/IMPL/INPUT/TIER (see 'python -m serialbench list')")
    return names[0]


def commits_between(path: str, name: str, good: str, bad: str) -> list[Commit]:
    """--repo: the commits from GOOD to BAD, checked (a repository, revisions, one package NAME) before any build."""
    where = commits.repository(path)
    if where is None:
        raise UsageError(f"--repo {path} is not a git repository; give a clone of {name} (a work tree or a bare "
                         "repository), or the folder of its package inside one")
    found = commits.first_parent(where, good, bad)
    for end, revision in ((found[0], good), (found[-1], bad)):
        commits.check_package(end, f"{path}@{revision}")
    commits.check_names([found[0], found[-1]], name)
    return found


class Bisection:
    """The search's sessions: the releases, the sides made so far (an overlay each), the sessions taken,
    and the budget (sessions, minutes) they spend."""

    def __init__(self, args, tree: Side, versions: list[str], benchmark: str, out: Output | None = None,
                 history: dict[str, Commit] | None = None):
        self.args, self.tree, self.benchmark, self.out = args, tree, benchmark, out or Output()
        self.versions = versions
        self.history = history or {}  # label -> commit, when the versions are commits (--repo)
        self.sides: dict[str, Side | None] = {}  # version -> its side, None when it cannot run the benchmark
        self.skipped: dict[str, str] = {}  # version -> why it cannot run the benchmark
        self.sessions: list[dict] = []
        self.interrupted = False
        self.started = time.monotonic()
        self.max_sessions = getattr(args, "max_sessions", None)
        self.max_seconds = getattr(args, "max_time", None) and args.max_time * 60

    def side(self, version: str) -> Side | None:
        if version not in self.sides:
            commit = self.history.get(version)
            spec = commit.spec if commit else f"{self.args.name}=={version}"
            made, left_out = sides_with_overlays(self.tree, [version], [[spec, *self.args.with_specs]], self.out.say,
                                                 options.build_from(self.args))
            _, _, kind, tier = self.benchmark.split("/")
            # A payload's benchmark needs no --input nor --tier: the side carries the payload.
            filters = {"patterns": [self.benchmark], "tiers": tier if kind in INPUT_KINDS else None,
                       "inputs": kind if kind in INPUT_KINDS else None}
            checked = check_sides(made, filters, self.out.say) if made else []
            ok = bool(checked) and self.benchmark in checked[0].runnable
            self.sides[version] = checked[0].side if ok else None
            if checked and not ok:
                why = checked[0].failed.get(self.benchmark) or checked[0].why or "it does not select the benchmark"
                self.skipped[version] = f"does not run it: {short_cause(why)}"
                self.out.say(f"{version}: cannot run {self.benchmark} ({self.skipped[version]})")
            elif not made:
                self.skipped[version] = left_out.get(version, "cannot be installed")
        return self.sides[version]

    def out_of_budget(self) -> str | None:
        """Why no further session may start (--max-sessions, --max-time), or None."""
        if self.max_sessions is not None and len(self.sessions) >= self.max_sessions:
            return f"--max-sessions {self.max_sessions} ran out"
        if self.max_seconds is not None and time.monotonic() - self.started >= self.max_seconds:
            return f"--max-time {self.args.max_time:g} min ran out"
        return None

    def session(self, versions: list[str]) -> list[Step] | None:
        """The steps between `versions` (adjacent pairs, then first to last), taking the session again
        with more rounds while a step is too noisy and the budget allows; None when interrupted."""
        sides = [self.side(v) for v in versions]
        settings = settings_from(self.args)
        for attempt in range(RETRIES + 1):
            left = None if self.max_seconds is None else max(self.max_seconds - (time.monotonic() - self.started), 1.0)
            scaled = replace(settings, looks=tuple(n * 2 ** attempt for n in settings.looks), max_seconds=left)
            judges = StepJudges(versions, [self.benchmark], scaled.looks, options.min_effect(self.args))
            session = run_session(sides, [self.benchmark], scaled, judges.look, self.out.say,
                                  progress=session_round_line(1, scaled, self.out.say))
            rows = sweep_rows([(session, judges)], judges.min_effect)
            if session.interrupted:
                self.interrupted = True
            if not rows:
                why = session.failed.get(self.benchmark, "no rounds")
                raise UsageError(f"the session of {', '.join(versions)} failed: {why}")
            steps = list(rows[0].steps) + ([rows[0].from_anchor[-1]] if len(versions) > 2 else [])
            record = {"sides": versions, "rounds": session.rounds, "minutes": round(session.seconds / 60, 2),
                      "steps": steps}
            self.sessions.append(record)
            self.out.print(f"session {len(self.sessions)} ({session.rounds} rounds, {session.seconds / 60:.1f} min): "
                           + "; ".join(step_text(s) for s in steps[:len(versions) - 1]))
            if self.interrupted:
                return None
            if not any(s.verdict == vocabulary.TOO_NOISY for s in steps[:len(versions) - 1]) or self.out_of_budget():
                return steps
            if attempt < RETRIES:
                self.out.say(f"too noisy to tell: the session again with {2 ** (attempt + 1)}x the rounds")
        return steps

    def run(self) -> Result:
        for end in (self.versions[0], self.versions[-1]):
            if self.side(end) is None:
                raise UsageError(f"{end} cannot run {self.benchmark} (see above); choose GOOD and BAD that can")
        search = Search(self.versions, self.session, lambda version: self.side(version) is not None,
                        self.args.direction, self.out_of_budget)
        return search.run()


def run(args, out: Output) -> int:
    settings_from(args)  # bad session options fail now, not after the first install
    if args.max_sessions is not None and args.max_sessions < 1:
        raise UsageError(f"--max-sessions {args.max_sessions}: give at least 1")
    benchmark = one_benchmark(args.case_dirs, args.benchmark, args.payloads)
    releases.use_index(args.index_url, args.find_links)
    good, bad, history = args.good, args.bad, {}
    if args.repo:
        found = commits_between(args.repo, args.name, args.good, args.bad)
        history = {commit.label: commit for commit in found}
        versions, good, bad = list(history), found[0].label, found[-1].label
        changing = f", changing {found[0].folder}" if found[0].folder else ""
        out.say(f"{len(versions)} commits of {args.name} from {args.good} to {args.bad} (first-parent{changing})")
    else:
        versions = releases.between(args.name, args.good, args.bad, sys.executable)
        out.say(f"{len(versions)} releases of {args.name} from {args.good} to {args.bad}: {', '.join(versions)}")
    interrupt_on_sigterm()
    with work_tree(args.case_dirs) as tree:
        search = Bisection(args, replace(tree, label="work tree", payloads=payload_arguments(args.payloads)), versions,
                           benchmark, out, history)
        result = search.run()
    minutes = (time.monotonic() - search.started) / 60
    took = f"{len(search.sessions)} sessions in {minutes:.1f} min"
    for line in answer_lines(benchmark, result, good, bad, args.direction, took, history, search.skipped):
        out.print(line)
    named = commits.range_name(found[0].place.spec(f"{args.good}..{args.bad}")) if history else ""
    out.write("json", lambda: bisect_json(benchmark, good, bad, result, search.sessions, history, search.skipped,
                                          named))
    if search.interrupted:
        return 130
    return 0 if result.complete else 1
