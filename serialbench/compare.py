"""`python -m serialbench compare`: did this change make the selected benchmarks cheaper?

The change is between two sides (serialbench/sides.py): two git revisions of the cases, two
environments (libraries installed at other versions or from a local checkout, or another
interpreter), or both. The timing interleaves them in lockstep (serialbench/schedule.py), the
verdicts come from serialbench/stats.py through serialbench/comparison.py, and both sides' result
files stay in results/.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from serialbench import comparison, overlays, stats
from serialbench.comparison import parse_percent
from serialbench.errors import UsageError
from serialbench.listing import parser as make_parser
from serialbench.results import RESULTS_FORMAT
from serialbench.runner import RESULTS_DIR, add_filter_arguments
from serialbench.schedule import MIN_TIME, Budget, Session, run_session
from serialbench.sides import Side, worker_environment
from serialbench.worktrees import checkout, last_line, work_tree

# Rounds at which undecided benchmarks are looked at (adaptive rounds). The look at 64 is for the
# noisiest, mostly at 1M (3-4% a round here): 32 rounds confirmed "no change" for about 4 in 10
# of those in simulation, 64 for 8 in 10; --max-time bounds what it costs.
LOOKS = (8, 16, 32, 64)
MAX_MINUTES = 20.0


def filter_args(patterns: Sequence[str], tier: str | None, inputs: str | None) -> list[str]:
    args: list[str] = []
    for pattern in patterns:
        args += ["-b", pattern]
    if tier:
        args += ["--tier", tier]
    if inputs:
        args += ["--input", inputs]
    return args


def list_benchmarks(side: Side, filters: Sequence[str]) -> tuple[list[str], str]:
    """The side's selected benchmark names, or ([], why) when it cannot list them."""
    cases = [arg for directory in side.case_dirs for arg in ("--cases", directory)]
    done = subprocess.run([side.python, "-P", "-m", "serialbench", "list", *filters, *cases], cwd=side.root,
                          env=worker_environment(side), capture_output=True, text=True)
    if done.returncode != 0:
        return [], last_line(done.stderr) or f"list exited with status {done.returncode}"
    left_out = [line for line in done.stderr.splitlines() if "is not installed" in line]
    return done.stdout.split(), "; ".join(left_out)


def common_benchmarks(sides: Sequence[Side], filters: Sequence[str], say: Callable[[str], None]) -> list[str]:
    """Benchmarks selected on every side, in the first side's order; said before any timing: what a
    side cannot run, and why."""
    listed = [list_benchmarks(side, filters) for side in sides]
    for side, (names, why) in zip(sides, listed):
        if not names:
            raise UsageError(f"{side.label} ({side.description}, {side.python}) cannot run the selection: {why}")
    everywhere = set.intersection(*(set(names) for names, _ in listed))
    for side, (names, why) in zip(sides, listed):
        elsewhere = [name for name in names if name not in everywhere]
        if elsewhere:
            say(f"only in {side.label}, not compared: {', '.join(elsewhere)}")
        missing = [name for name in listed[0][0] if name not in names]
        if missing and why:
            say(f"{side.label} cannot run {len(missing)} selected benchmarks: {why}")
    common = [name for name in listed[0][0] if name in everywhere]
    if not common:
        raise UsageError("no benchmark is selected on both sides; see 'python -m serialbench list'")
    return common


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
        sides = [with_environment(side, python, specs, say) for side, python, specs in
                 zip(trees, (args.base_python, args.head_python), (args.base_with, args.head_with))]
        yield sides[0], sides[1]


def with_environment(side: Side, python: str | None, specs: Sequence[str], say: Callable[[str], None]) -> Side:
    if python:
        python = resolve_python(python)
        side = dataclasses.replace(side, python=python,
                                   python_version=overlays.interpreter_identity(python)["version"].split()[0])
    if specs:
        directory, installed, fresh = overlays.overlay(specs, side.python, say)
        if not fresh:
            say(f"{side.label}: {', '.join(installed)} (cached overlay {directory})")
        side = dataclasses.replace(side, overlay=directory, specs=tuple(specs), installed=tuple(installed))
    return side


def resolve_python(python: str) -> str:
    import shutil

    found = shutil.which(python)
    if not found:
        raise UsageError(f"interpreter {python!r} not found; give a path or a command on PATH (e.g. python3.12)")
    return found


def side_metadata(side: Side, session_id: str) -> dict:
    data = {"serialbench_side": side.description, "serialbench_session": session_id,
            "serialbench_commit": side.commit or "unknown", "serialbench_dirty": int(side.dirty),
            "serialbench_results_format": RESULTS_FORMAT, "serialbench_clock": "thread_time",
            "serialbench_malloc": "steady", "serialbench_python": side.python}
    if side.specs:
        data["serialbench_side_specs"] = " ".join(side.specs)
        data["serialbench_side_installed"] = ", ".join(side.installed) or "nothing"
    return data


def result_paths(base: Side, head: Side) -> tuple[Path, Path]:
    """results/compare-<base>-<head>-{base,head}.json, with -2, -3... so nothing is overwritten."""
    RESULTS_DIR.mkdir(exist_ok=True)
    stem = "compare-" + "-".join(re.sub(r"[^A-Za-z0-9.]+", "_", side.description).strip("_")[:40]
                                 for side in (base, head))
    counter = 1
    while True:
        suffix = "" if counter == 1 else f"-{counter}"
        paths = (RESULTS_DIR / f"{stem}{suffix}-base.json", RESULTS_DIR / f"{stem}{suffix}-head.json")
        if not any(path.exists() for path in paths):
            return paths
        counter += 1


def write_results(session: Session, base: Side, head: Side, say: Callable[[str], None]) -> None:
    import pyperf

    session_id = uuid.uuid4().hex[:12]
    for side, path in zip((base, head), result_paths(base, head)):
        metadata = side_metadata(side, session_id)
        imported = session.hello.get(side.label, {}).get("versions", {})
        metadata.update({f"{name.replace('-', '_')}_version": version for name, version in imported.items()})
        benches = comparison.session_benchmarks(session, side.label, metadata)
        if benches:
            pyperf.BenchmarkSuite(benches).dump(str(path))
            say(f"{side.label} results: {path}")


def budget_from(args) -> Budget:
    if args.rounds is not None:
        if args.rounds < 1:
            raise UsageError(f"--rounds {args.rounds}: give at least 1 (6 or more for a verdict)")
        return Budget((args.rounds,), None, args.min_time)
    if args.max_rounds < LOOKS[0]:
        raise UsageError(f"--max-rounds {args.max_rounds}: give at least {LOOKS[0]}")
    looks = tuple(n for n in LOOKS if n < args.max_rounds) + (args.max_rounds,)
    return Budget(looks, args.max_time * 60 if args.max_time else None, args.min_time)


def add_timing_arguments(cli) -> None:
    cli.add_argument("--max-rounds", type=int, default=LOOKS[-1],
                     help=f"rounds for the benchmarks still undecided at the last look (default {LOOKS[-1]}); "
                          f"undecided benchmarks are looked at after {', '.join(map(str, LOOKS))} rounds")
    cli.add_argument("--max-time", type=float, default=MAX_MINUTES, metavar="MIN",
                     help=f"stop after this many minutes, judging what is left on its rounds (default {MAX_MINUTES:g})")
    cli.add_argument("--rounds", type=int, help="exactly this many rounds for every benchmark (no adaptive stopping)")
    cli.add_argument("--min-time", type=float, default=MIN_TIME, help=f"seconds per value (default {MIN_TIME})")
    cli.add_argument("--min-effect", metavar="PCT",
                     help=f"changes smaller than this are 'no change' (default {stats.MIN_EFFECT * 100:g}%%; "
                          "with --instructions 1%%)")


def interrupt_on_sigterm() -> None:
    """A terminated compare still removes its worktrees and judges its rounds, as on Ctrl-C."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


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
                              "name==version, a wheel file or a local checkout")
        cli.add_argument(f"--{side}-python", metavar="PY", help=f"run {side.upper()}'s workers with this interpreter")
    add_filter_arguments(cli)
    add_timing_arguments(cli)
    cli.add_argument("--instructions", action="store_true",
                     help="count instructions per op under valgrind's callgrind instead of timing")
    cli.add_argument("--fail-on", choices=("slower", "changed"),
                     help="exit with status 1 when a benchmark is slower (or, with 'changed', slower or faster)")
    cli.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown (e.g. for a pull request)")
    return cli


def run(argv: list[str]) -> int:
    args = make_cli().parse_args(argv)
    environments = args.base_with or args.head_with or args.base_python or args.head_python
    if args.base is None and not environments:
        raise UsageError("give BASE (a git revision), or an environment for a side: --base-with/--head-with SPEC, "
                         "--base-python/--head-python PY")
    if args.markdown and os.path.exists(args.markdown):
        raise UsageError(f"--markdown {args.markdown} exists and is never overwritten; give a new file")
    budget = budget_from(args)
    if args.min_time <= 0:
        raise UsageError(f"--min-time {args.min_time}: give a positive number of seconds")
    min_effect = parse_percent(args.min_effect)
    interrupt_on_sigterm()

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    filters = filter_args(args.patterns, args.tier, args.input)
    if args.instructions:
        from serialbench import instructions

        instructions.require_valgrind()
    with prepared_sides(args, say) as (base, head):
        say(f"BASE: {base.description}; HEAD: {head.description}")
        names = common_benchmarks((base, head), filters, say)
        if args.instructions:
            return instructions.compare_sides(base, head, names, say,
                                              parse_percent(args.min_effect, instructions.THRESHOLD))
        shares = stats.look_shares(len(budget.looks))
        judge = comparison.PairedComparison("BASE", "HEAD", min_effect, len(names), shares)
        say(f"{len(names)} benchmarks; rounds of one worker per side in lockstep, looks after "
            f"{', '.join(map(str, budget.looks))} rounds"
            + (f", at most {args.max_time:g} min" if budget.max_seconds else ""))
        session = run_session((base, head), names, budget, judge.look, say)
    write_results(session, base, head, say)
    rows = judge.rows(session)
    labels = (f"BASE {base.description}", f"HEAD {head.description}")
    print(comparison.format_table(rows, *labels, min_effect))
    print(f"{len(names)} benchmarks, {session.rounds} rounds in {session.seconds / 60:.1f} min")
    if args.markdown:
        Path(args.markdown).write_text(comparison.markdown_table(rows, *labels, min_effect))
        say(f"Markdown table: {args.markdown}")
    status = 0
    if session.failed:
        print(f"{len(session.failed)} not compared: " + "; ".join(f"{n}: {w}" for n, w in session.failed.items()))
        status = 1
    gate = comparison.failing(rows, args.fail_on)
    if gate:
        print(f"--fail-on {args.fail_on}: {len(gate)} benchmarks {args.fail_on}: "
              + ", ".join(row.name for row in gate))
        status = 1
    return status


def compare_files(base_path: str, head_path: str, min_effect: float = stats.MIN_EFFECT) -> tuple[list, bool]:
    """The rows of two result files, paired when both come from one compare session."""
    from serialbench import results
    from serialbench.report_changes import is_one_session

    files = [results.load(path, with_memory=False) for path in (base_path, head_path)]
    paired = is_one_session(*files)
    benches = [{r.name: r.benchmark for r in f.results} for f in files]
    return comparison.compare_benchmarks(*benches, paired=paired, min_effect=min_effect), paired
