"""`python -m serialbench bisect NAME GOOD BAD -b BENCHMARK`: the release where a benchmark's cost changed.

The releases of NAME that the index has from GOOD to BAD are searched as `git bisect` searches
commits, by paired sessions: each session times three releases interleaved, the two ends of the
range still open and the one halfway (two when they are next to each other), and judges both
steps (verdicts/steps.py). The step that changed, in the --direction asked, is the half where the
search goes on; when the two are next to each other, that step is the answer, with its interval.
A step only counts when its verdict is "slower"/"faster" or "no change": a "too noisy to tell"
takes the session again with twice the rounds (at most twice), and after that the search stops
and says so: it never guesses. It also says when the change is not one step: both halves of a
session changed, or the whole range changed and neither half did.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from serialbench.catalog.discovery import discover
from serialbench.catalog.inputs import INPUT_KINDS, TIERS
from serialbench.catalog.registry import all_benchmarks, case_dirs, name_matches
from serialbench.commands import options
from serialbench.commands.options import (
    add_index_arguments,
    add_session_arguments,
    add_with_argument,
    budget_from,
    interrupt_on_sigterm,
    new_output,
)
from serialbench.commands.options import parser as make_parser
from serialbench.core import stats
from serialbench.core.errors import UsageError
from serialbench.measure import releases
from serialbench.measure.schedule import Budget, run_session
from serialbench.measure.side_setup import check_sides, few, sides_with_overlays
from serialbench.measure.sides import Side
from serialbench.measure.worktrees import work_tree
from serialbench.verdicts.steps import Step, StepJudges, sweep_rows
from serialbench.views.sweep_table import change_text
from serialbench.views.verdict_json import bisect_json

RETRIES = 2  # a too-noisy session is taken again with 2x, then 4x the rounds
WORDS = {"slower": {stats.SLOWER}, "faster": {stats.FASTER}, "changed": {stats.SLOWER, stats.FASTER}}


def make_cli():
    cli = make_parser("bisect", "Find the first release of a library after GOOD whose cost of one benchmark "
                                "differs from GOOD's, by paired sessions between the releases the index has.")
    cli.add_argument("name", metavar="NAME", help="the package (e.g. tritonclient)")
    cli.add_argument("good", metavar="GOOD", help="a release with the old cost (e.g. 2.40.0)")
    cli.add_argument("bad", metavar="BAD", help="a later release with the new cost (e.g. 2.50.0)")
    cli.add_argument("-b", "--benchmark", required=True, metavar="NAME",
                     help="the benchmark, FORMAT/IMPL/INPUT/TIER (e.g. triton-binary/tritonclient/int32x3/1M)")
    cli.add_argument("--direction", choices=sorted(WORDS), default="changed",
                     help="the change to look for (default: changed, slower or faster)")
    cli.add_argument("--cases", dest="case_dirs", action="append", default=[], metavar="DIR",
                     help="also load case modules from DIR (repeatable)")
    add_with_argument(cli, "every release (e.g. a dependency at one version)")
    add_index_arguments(cli)
    add_session_arguments(cli)
    cli.add_argument("--json", metavar="FILE", help="also write the answer and every session as JSON")
    return cli


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def one_benchmark(case_dir_args: list[str], pattern: str) -> str:
    """The one benchmark that -b names in the catalog (whether or not its libraries are installed here)."""
    cases = discover(case_dirs(case_dir_args), lambda message: None)
    names = [b.name for b in all_benchmarks(cases, list(INPUT_KINDS), list(TIERS)) if name_matches(b.name, pattern)]
    if len(names) != 1:
        shown = few(names, names) if names else "none"
        raise UsageError(f"-b {pattern!r} names {len(names)} benchmarks ({shown}); bisect takes one, "
                         "FORMAT/IMPL/INPUT/TIER (see 'python -m serialbench list')")
    return names[0]


class Bisection:
    """The search: the releases, the sides made so far (an overlay each), the sessions taken."""

    def __init__(self, args, tree: Side, versions: list[str], benchmark: str):
        self.args, self.tree, self.benchmark = args, tree, benchmark
        self.versions = versions
        self.sides: dict[str, Side | None] = {}  # version -> its side, None when it cannot run the benchmark
        self.sessions: list[dict] = []
        self.interrupted = False
        self.started = time.monotonic()

    def side(self, version: str) -> Side | None:
        if version not in self.sides:
            spec = f"{self.args.name}=={version}"
            made, _ = sides_with_overlays(self.tree, [version], [[spec, *self.args.with_specs]], say)
            _, _, kind, tier = self.benchmark.split("/")
            checked = check_sides(made, ["-b", self.benchmark, "--input", kind, "--tier", tier], say) if made else []
            ok = bool(checked) and self.benchmark in checked[0].runnable
            self.sides[version] = checked[0].side if ok else None
            if checked and not ok:
                say(f"{version}: cannot run {self.benchmark}" + (f" ({checked[0].why})" if checked[0].why else ""))
        return self.sides[version]

    def session(self, versions: list[str]) -> list[Step] | None:
        """The steps between `versions` (adjacent pairs, then first to last), taking the session again
        with more rounds while a step that matters is too noisy; None when interrupted."""
        sides = [self.side(v) for v in versions]
        budget = budget_from(self.args)
        for attempt in range(RETRIES + 1):
            scaled = Budget(tuple(n * 2 ** attempt for n in budget.looks), budget.max_seconds, budget.min_time)
            judges = StepJudges(versions, [self.benchmark], scaled.looks, options.min_effect(self.args))
            session = run_session(sides, [self.benchmark], scaled, judges.look, say)
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
            print(f"session {len(self.sessions)} ({session.rounds} rounds, {session.seconds / 60:.1f} min): "
                  + "; ".join(f"{s.before} -> {s.after}: {s.verdict}, {change_text(s)}"
                              for s in steps[:len(versions) - 1]), flush=True)
            if self.interrupted or not self.too_noisy(steps[:len(versions) - 1]):
                return steps
            say(f"too noisy to tell: the session again with {2 ** (attempt + 1)}x the rounds")
        return steps

    def too_noisy(self, steps: list[Step]) -> bool:
        """Whether the verdict that decides where to go is too noisy: the first step's, or the
        second's when the first is settled as not the change looked for."""
        wanted = WORDS[self.args.direction]
        for step in steps:
            if step.verdict in wanted:
                return False
            if step.verdict == stats.TOO_NOISY:
                return True
        return False

    def run(self) -> tuple[Step | None, str | None]:
        """(the step that changed, or None; what makes the answer uncertain, or None)."""
        wanted = WORDS[self.args.direction]
        candidates = list(self.versions)
        for end in (candidates[0], candidates[-1]):
            if self.side(end) is None:
                raise UsageError(f"{end} cannot run {self.benchmark} (see above); choose GOOD and BAD that can")
        low, high = 0, len(candidates) - 1
        first, answer, note = True, None, None
        while True:
            if high - low > 1:
                middle = (low + high) // 2
                if self.side(candidates[middle]) is None:
                    del candidates[middle]
                    high -= 1
                    continue
                chosen = [candidates[low], candidates[middle], candidates[high]]
            else:
                middle = None
                chosen = [candidates[low], candidates[high]]
            steps = self.session(chosen)
            if self.interrupted:
                return None, f"interrupted: the change is between {candidates[low]} and {candidates[high]}"
            halves = steps[:len(chosen) - 1]
            if self.too_noisy(halves):
                noisy = next(s for s in halves if s.verdict == stats.TOO_NOISY)
                return None, (f"too noisy to tell whether {noisy.before} -> {noisy.after} changed after "
                              f"{noisy.rounds} rounds (detectable: {noisy.detectable * 100:.1f}%): the step may be "
                              f"smaller than this machine's noise allows; the change is between {candidates[low]} "
                              f"and {candidates[high]}")
            if halves[0].verdict in wanted:
                answer = halves[0]
                if middle is not None:
                    if halves[1].verdict in wanted:
                        note = (f"several steps: {halves[1].before} -> {halves[1].after} also changed "
                                f"({halves[1].verdict}, {change_text(halves[1])})")
                    high = middle
            elif len(halves) > 1 and halves[1].verdict in wanted:
                answer = halves[1]
                low = middle
            else:
                whole = steps[-1] if len(chosen) > 2 else halves[0]
                if whole.verdict in wanted:
                    return None, (f"{whole.before} -> {whole.after} changed ({change_text(whole)}) but neither half "
                                  "did: the change is spread over several releases, each step under the minimum "
                                  "effect")
                if first and whole.verdict == stats.TOO_NOISY:
                    return None, (f"no half changed, and {whole.before} -> {whole.after} is too noisy to tell "
                                  f"({change_text(whole)})")
                if first:
                    return None, None  # no change from GOOD to BAD
                return None, (f"neither {' nor '.join(f'{s.before} -> {s.after}' for s in halves)} changed, though "
                              "an earlier session put the change here: the steps are near the minimum effect")
            first = False
            if high - low == 1:
                return answer, note


def run(argv: list[str]) -> int:
    args = make_cli().parse_args(argv)
    new_output(args.json, "--json")
    budget_from(args)  # bad session options fail now, not after the first install
    benchmark = one_benchmark(args.case_dirs, args.benchmark)
    releases.use_index(args.index_url, args.find_links)
    versions = releases.between(args.name, args.good, args.bad, sys.executable)
    say(f"{len(versions)} releases of {args.name} from {args.good} to {args.bad}: {', '.join(versions)}")
    interrupt_on_sigterm()
    with work_tree(args.case_dirs) as tree:
        search = Bisection(args, replace(tree, label="work tree"), versions, benchmark)
        answer, uncertain = search.run()
    minutes = (time.monotonic() - search.started) / 60
    took = f"{len(search.sessions)} sessions in {minutes:.1f} min"
    if answer is not None:
        print(f"{benchmark}: changed at {answer.after} (after {answer.before}): {answer.verdict}, "
              f"{change_text(answer)}; {took}")
    elif uncertain is None:
        print(f"{benchmark}: no {args.direction if args.direction != 'changed' else 'change'} from {args.good} "
              f"to {args.bad}; {took}")
    if uncertain:
        print(f"uncertain: {uncertain}" + ("" if answer else f"; {took}"))
    if args.json:
        Path(args.json).write_text(bisect_json(benchmark, args.good, args.bad, answer, uncertain, search.sessions))
        say(f"JSON: {args.json}")
    if search.interrupted:
        return 130
    return 1 if uncertain else 0
