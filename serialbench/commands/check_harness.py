"""`python -m serialbench check-harness`: do the run and compare time an op the same?

One op has one time: what a warm, long-running client pays per call. The run's pyperf workers and
compare's lockstep workers both measure it with one loop, clock, warm-up and process state
(measure/timeloop.py, measure/environment.py). This command checks that they agree: it times a
panel of benchmarks three ways, one FORMAT/IMPL at a time with its three ways back to back, and flags any benchmark
whose three medians differ by more than the tolerance:
- run: `python -m serialbench --fast` (a fresh pyperf worker per benchmark);
- compare: an A/A `compare` session of this serialbench (lockstep workers, both sides alive, values
  of 2 ms in alternation), the first side's values;
- plain: a fresh process per benchmark, `prepare`, the warm-up, then a loop (measure/plain_loop.py).
The default panel is every implementation at float32 100K and 1M, where copies are large enough
for the process's memory state to matter, and the benchmarks where the harnesses once disagreed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from serialbench.catalog.registry import select
from serialbench.commands.options import add_filter_arguments, parser
from serialbench.core.errors import UsageError
from serialbench.core.formatting import format_duration, format_ratio, format_time, last_line
from serialbench.core.parsing import parse_percent
from serialbench.core.tables import text_table
from serialbench.measure.environment import worker_variables
from serialbench.measure.schedule import MIN_TIME, Budget, run_session
from serialbench.measure.worktrees import work_tree
from serialbench.results.files import load

DEFAULT_PANEL = ["*/*/float32/100K", "*/*/float32/1M", "msgpack/packb/float32/100K",
                 "triton-binary/struct-pack/int32x3/100K", "triton-binary/join/int32x3/100K"]
TOLERANCE = 0.25  # see the README's noise section: what the three ways differ by when all is well
WAYS = ("run", "compare", "plain")


def time_with_run(names: list[str], processes: int, scratch: Path, say) -> dict[str, float]:
    # A file of its own per call: a run never overwrites a result file, and one shared name made every
    # call after the first read the first call's file back (a whole panel's run column came out empty).
    out = Path(tempfile.mkdtemp(dir=scratch)) / "run.json"
    patterns = [arg for name in names for arg in ("-b", name)]
    done = subprocess.run([sys.executable, "-m", "serialbench", "--fast", "-p", str(processes), "--quiet",
                           "--no-summary", *patterns, "-o", str(out)], cwd=scratch, capture_output=True, text=True)
    if not out.exists():
        say(f"the run failed: {last_line(done.stderr) or f'exit status {done.returncode}'}")
        return {}
    for line in done.stderr.splitlines():
        if "not timed" in line:
            say(line)
    return {result.name: result.median for result in load(out, with_memory=False).results
            if result.median is not None}


def time_with_compare(names: list[str], rounds: int, say) -> dict[str, float]:
    with work_tree() as tree:
        sides = [dataclasses.replace(tree, label=label) for label in ("A", "A'")]
        session = run_session(sides, names, Budget((rounds,), None, MIN_TIME), lambda *args: set(), say)
    return {name: statistics.median(statistics.median(run.values) for run in runs)
            for name, runs in session.runs["A"].items() if runs}


def time_with_plain_loop(names: list[str], processes: int, say) -> dict[str, float]:
    """The median over `processes` fresh processes of each one's median."""
    environment = {**os.environ, **worker_variables()}
    medians = {}
    for name in names:
        found = []
        for _ in range(processes):
            done = subprocess.run([sys.executable, "-m", "serialbench", "check-harness", "--plain-worker", name],
                                  env=environment, capture_output=True, text=True)
            try:
                answer = json.loads(done.stdout.strip().splitlines()[-1])
            except (IndexError, ValueError):
                answer = {"error": last_line(done.stderr) or f"exit status {done.returncode}"}
            if "error" in answer:
                say(f"{name}: plain loop failed: {answer['error']}")
                break
            found.append(answer["median"])
        if found:
            medians[name] = statistics.median(found)
    return medians


def time_one_way(way: str, names: list[str], processes: int, scratch: Path, say) -> dict[str, float]:
    if way == "run":
        return time_with_run(names, processes, scratch, say)
    if way == "compare":  # its per-round progress lines would drown the panel's
        return time_with_compare(names, processes, lambda line: None if line.startswith("round ") else say(line))
    return time_with_plain_loop(names, processes, say)


def disagreement(times: dict[str, float]) -> float | None:
    """The largest over the smallest of the medians the ways gave, minus 1; None with fewer than two."""
    if len(times) < 2:
        return None
    return max(times.values()) / min(times.values()) - 1


def table(names: list[str], timed: dict[str, dict[str, float]],
          tolerance: float) -> tuple[list[str], list[str], list[str]]:
    """The panel's lines, the benchmarks whose ways disagree, and those some way did not time: a check
    with a way missing has not been made, and never reads as agreement."""
    rows = [("benchmark", "run", "compare", "plain", "run/plain", "compare/plain", "")]
    flagged, missing = [], []
    for name in names:
        times = {way: timed[way][name] for way in WAYS if name in timed[way]}
        spread, complete = disagreement(times), len(times) == len(WAYS)
        flag = "DISAGREE" if spread is not None and spread > tolerance else "agree" if complete else "NOT TIMED"
        if flag == "DISAGREE":
            flagged.append(name)
        if not complete:
            missing.append(name)
        plain = times.get("plain")
        rows.append((name, *(format_time(times[way]) if way in times else "-" for way in WAYS),
                     *(format_ratio(times[way] / plain) if plain and way in times else "-" for way in WAYS[:2]),
                     flag))
    return text_table(rows, left=(0, 6)), flagged, missing


def run(argv: list[str]) -> int:
    cli = parser("check-harness", "Time a panel of benchmarks three ways (the run's worker, compare's lockstep "
                                  "worker, a plain warm loop) and flag where they disagree.")
    add_filter_arguments(cli, cases=False)
    cli.add_argument("--tolerance", metavar="PCT", help=f"the largest of the three medians may exceed the smallest "
                                                        f"by this much (default {TOLERANCE * 100:g}%%)")
    cli.add_argument("--processes", type=int, default=3,
                     help="fresh processes per benchmark for the run and the plain loop, rounds of compare (default 3)")
    cli.add_argument("--plain-worker", metavar="NAME", help=argparse.SUPPRESS)
    args = cli.parse_args(argv)
    if args.plain_worker:
        from serialbench.measure.plain_loop import worker

        return worker(args.plain_worker)
    tolerance = parse_percent(args.tolerance, TOLERANCE, "--tolerance")
    if args.processes < 1:
        raise UsageError(f"--processes {args.processes}: give 1 or more")
    patterns = args.patterns or DEFAULT_PANEL
    names = [bench.name for bench in select((), patterns, args.tier, args.input)[0]]

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    timed: dict[str, dict[str, float]] = {way: {} for way in WAYS}
    groups = list(dict.fromkeys(name.rsplit("/", 2)[0] for name in names))  # FORMAT/IMPL
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="serialbench-check-") as scratch:
        for index, group in enumerate(groups):
            # One FORMAT/IMPL at a time, its three ways back to back in an order that rotates: the
            # machine's speed drifts over minutes here, and ways timed in three blocks of a long
            # session differed by that drift, not by what the harnesses do.
            chosen = [name for name in names if name.rsplit("/", 2)[0] == group]
            order = WAYS[index % 3:] + WAYS[:index % 3]
            say(f"[{index + 1}/{len(groups)}] {group}: {len(chosen)} benchmarks, {', '.join(order)} "
                f"({format_duration(time.monotonic() - started)} so far)")
            for way in order:
                timed[way].update(time_one_way(way, chosen, args.processes, Path(scratch), say))
    lines, flagged, missing = table(names, timed, tolerance)
    print("\n".join(lines))
    print(f"\nmedian time per op, three ways, each the median over {args.processes} processes: the run's pyperf "
          f"workers (--fast), compare's lockstep workers (A/A, one a round), a plain warm loop in a fresh process; "
          f"DISAGREE where the largest exceeds the smallest by more than {tolerance * 100:g}%; NOT TIMED where a "
          f"way gave no time (its error is above)")
    if flagged:
        print(f"{len(flagged)} of {len(names)} disagree: {', '.join(flagged)}")
    if missing:
        print(f"{len(missing)} of {len(names)} not timed by every way: {', '.join(missing)}")
    if flagged or missing:
        return 1
    print(f"all {len(names)} agree within {tolerance * 100:g}%")
    return 0
