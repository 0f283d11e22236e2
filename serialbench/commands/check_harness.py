"""`python -m serialbench check-harness`: do the run and compare time an op the same?

One op has one time: what a warm, long-running client pays per call. The run's pyperf workers and
compare's lockstep workers both measure it with one loop, clock, warm-up and process state
(measure/timeloop.py, measure/environment.py). This command checks that they agree: it times a
panel of benchmarks three ways, one FORMAT/IMPL at a time with its three ways back to back, and
flags any benchmark that two ways time apart by more than the tolerance (below):
- run: `python -m serialbench --rounds N` (a fresh worker a round, each benchmark's values alternated
  with its memcpy floor's);
- compare: an A/A `compare` session of this serialbench (lockstep workers, both sides alive, values
  of 2 ms in alternation), the first side's values;
- plain: a fresh process per benchmark, `prepare`, the warm-up, then a loop (measure/plain_loop.py).
The default panel is every implementation at float32 100K and 1M, where copies are large enough
for the process's memory state to matter, and the benchmarks where the harnesses once disagreed.

Each way times a benchmark in several fresh processes, and on a shared VM two processes of one way
can differ by more than the tolerance (at 1M the machine's speed moves by up to 2x over seconds,
results/README.md). So two ways disagree only when their medians differ by more than the tolerance
and none of one way's processes reaches the other's: a harness that shifts an op's time moves all
its processes. Where the medians differ as much as the processes of one way do, the row says
"noisy": no harness is shown to be at fault, and more processes would tell.
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

from serialbench.catalog.discovery import PACKAGE_DIR
from serialbench.catalog.registry import select
from serialbench.commands.options import add_filter_arguments, new_output, parser
from serialbench.core.errors import UsageError
from serialbench.core.formatting import format_duration, format_ratio, format_time, last_line
from serialbench.core.parsing import parse_percent
from serialbench.core.tables import text_table
from serialbench.measure.environment import worker_variables
from serialbench.measure.schedule import MIN_TIME, Budget, run_session
from serialbench.measure.worktrees import work_tree
from serialbench.results.files import load
from serialbench.results.session_files import runs_of
from serialbench.verdicts.paired import medians as per_process_medians

DEFAULT_PANEL = ["*/*/float32/100K", "*/*/float32/1M", "msgpack/packb/float32/100K",
                 "triton-binary/struct-pack/int32x3/100K", "triton-binary/join/int32x3/100K"]
TOLERANCE = 0.25  # see the README's noise section: what the three ways differ by when all is well
WAYS = ("run", "compare", "plain")
PROCESSES = 5  # per way; see verdict() for what 3 and 5 give on this VM


def this_serialbench() -> dict[str, str]:
    """The environment of a `python -m serialbench` subprocess that runs this serialbench, not whichever
    one the interpreter finds first (another checkout's editable install, from a worktree)."""
    inherited = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE_DIR.parent), *([inherited] if inherited else [])])}


def time_with_run(names: list[str], processes: int, scratch: Path, say) -> dict[str, list[float]]:
    # A file of its own per call: a run never overwrites a result file, and one shared name made every
    # call after the first read the first call's file back (a whole panel's run column came out empty).
    out = Path(tempfile.mkdtemp(dir=scratch)) / "run.json"
    patterns = [arg for name in names for arg in ("-b", name)]
    done = subprocess.run([sys.executable, "-m", "serialbench", "--rounds", str(processes), "--quiet",
                           "--no-summary", *patterns, "-o", str(out)], cwd=scratch, env=this_serialbench(),
                          capture_output=True, text=True)
    if not out.exists():
        say(f"the run failed: {last_line(done.stderr) or f'exit status {done.returncode}'}")
        return {}
    for line in done.stderr.splitlines():
        if "not timed" in line:
            say(line)
    per_worker = {result.name: per_process_medians(runs_of(result.benchmark))
                  for result in load(out, with_memory=False).results}
    return {name: found for name, found in per_worker.items() if found}


def time_with_compare(names: list[str], rounds: int, say) -> dict[str, list[float]]:
    with work_tree() as tree:
        sides = [dataclasses.replace(tree, label=label) for label in ("A", "A'")]
        session = run_session(sides, names, Budget((rounds,), None, MIN_TIME), lambda *args: set(), say)
    # Every round starts new workers: a round's values are one process's.
    return {name: per_process_medians(runs) for name, runs in session.runs["A"].items() if runs}


def time_with_plain_loop(names: list[str], processes: int, say) -> dict[str, list[float]]:
    """Each of `processes` fresh processes' median, per benchmark."""
    environment = {**this_serialbench(), **worker_variables()}
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
            medians[name] = found
    return medians


def time_one_way(way: str, names: list[str], processes: int, scratch: Path, say) -> dict[str, list[float]]:
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


def verdict(processes: dict[str, list[float]], tolerance: float) -> str:
    """"agree", "noisy", "DISAGREE" or "NOT TIMED", from each way's per-process medians.

    DISAGREE: two ways' medians differ by more than the tolerance and their processes do not overlap
    (every process of one way slower than every process of the other). On unbiased benchmarks with
    this VM's process-to-process noise (the workers of the reference run of 1ea4795 resampled into
    three ways by results/simulate_check_harness.py, or processes at two speeds 1.6x apart as in
    tests/test_check_harness.py), the medians alone said DISAGREE for 25-50% of them; this verdict
    for 0.3-2% at 5 processes a way and 6-16% at 3, and for over 90% of benchmarks whose run took
    twice as long.
    """
    medians = {way: statistics.median(values) for way, values in processes.items() if values}
    for slow in medians:
        for fast in medians:
            if (medians[slow] > medians[fast] * (1 + tolerance)
                    and min(processes[slow]) > max(processes[fast])):
                return "DISAGREE"
    if len(medians) < len(WAYS):
        return "NOT TIMED"
    return "noisy" if disagreement(medians) > tolerance else "agree"


def table(names: list[str], timed: dict[str, dict[str, list[float]]],
          tolerance: float) -> tuple[list[str], dict[str, list[str]]]:
    """The panel's lines, and the benchmarks under each verdict. A check with a way missing has not
    been made, and never reads as agreement."""
    rows = [("benchmark", "run", "compare", "plain", "run/plain", "compare/plain", "processes", "")]
    verdicts: dict[str, list[str]] = {}
    for name in names:
        processes = {way: timed[way][name] for way in WAYS if timed[way].get(name)}
        times = {way: statistics.median(values) for way, values in processes.items()}
        flag = verdict(processes, tolerance)
        verdicts.setdefault(flag, []).append(name)
        plain = times.get("plain")
        rows.append((name, *(format_time(times[way]) if way in times else "-" for way in WAYS),
                     *(format_ratio(times[way] / plain) if plain and way in times else "-" for way in WAYS[:2]),
                     within_way_spread(processes), flag))
    return text_table(rows, left=(0, 7)), verdicts


def within_way_spread(processes: dict[str, list[float]]) -> str:
    """The largest, over the ways, of their slowest process over their fastest: the noise a row's
    ratios are to be read against ("-" with one process a way)."""
    spreads = [max(values) / min(values) for values in processes.values() if len(values) > 1]
    return format_ratio(max(spreads)) if spreads else "-"


def panel_ratios(names: list[str], timed: dict[str, dict[str, list[float]]]) -> list[str]:
    """Each harness against the plain loop over the whole panel: a harness that adds or removes
    something shifts the median ratio; noise only widens the range."""
    lines = []
    for way in WAYS[:2]:
        ratios = sorted(statistics.median(timed[way][name]) / statistics.median(timed["plain"][name])
                        for name in names if timed[way].get(name) and timed["plain"].get(name))
        if len(ratios) >= 2:
            deciles = statistics.quantiles(ratios, n=10, method="inclusive")
            lines.append(f"{way}/plain over {len(ratios)} benchmarks: median {statistics.median(ratios):.3f}, "
                         f"10-90% {deciles[0]:.2f}-{deciles[-1]:.2f}")
    return lines


def save(path: str, names: list[str], timed: dict[str, dict[str, list[float]]], verdicts: dict[str, list[str]],
         tolerance: float, processes: int) -> None:
    flag_of = {name: flag for flag, flagged in verdicts.items() for name in flagged}
    data = {"serialbench_check_harness": 1, "tolerance": tolerance, "processes": processes,
            "benchmarks": {name: {"verdict": flag_of[name],
                                  **{way: timed[way][name] for way in WAYS if timed[way].get(name)}}
                           for name in names}}
    with open(path, "x", encoding="utf-8") as file:
        json.dump(data, file, indent=1)
        file.write("\n")


def run(argv: list[str]) -> int:
    cli = parser("check-harness", "Time a panel of benchmarks three ways (the run's worker, compare's lockstep "
                                  "worker, a plain warm loop) and flag where they disagree.")
    add_filter_arguments(cli, cases=False)
    cli.add_argument("--tolerance", metavar="PCT", help=f"two ways' medians may differ by this much "
                                                        f"(default {TOLERANCE * 100:g}%%)")
    cli.add_argument("--processes", type=int, default=PROCESSES,
                     help=f"fresh processes per benchmark for the run and the plain loop, rounds of compare "
                          f"(default {PROCESSES}; with 3, 6-16%% of unbiased benchmarks read DISAGREE on a noisy VM)")
    cli.add_argument("--json", metavar="FILE", help="also write every process's median and the verdicts to FILE "
                                                    "(a new file)")
    cli.add_argument("--plain-worker", metavar="NAME", help=argparse.SUPPRESS)
    args = cli.parse_args(argv)
    if args.plain_worker:
        from serialbench.measure.plain_loop import worker

        return worker(args.plain_worker)
    tolerance = parse_percent(args.tolerance, TOLERANCE, "--tolerance")
    new_output(args.json, "--json")
    if args.processes < 1:
        raise UsageError(f"--processes {args.processes}: give 1 or more")
    patterns = args.patterns or DEFAULT_PANEL
    names = [bench.name for bench in select((), patterns, args.tier, args.input)[0]]

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    timed: dict[str, dict[str, list[float]]] = {way: {} for way in WAYS}
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
    lines, verdicts = table(names, timed, tolerance)
    print("\n".join(lines))
    print(f"\nmedian time per op, three ways, each the median over {args.processes} processes: the run's "
          f"workers (--rounds, one a round), compare's lockstep workers (A/A, one a round), a plain warm loop in a "
          f"fresh process; "
          f"'processes': the largest spread between one way's slowest and fastest process")
    print(f"DISAGREE: two ways' medians differ by more than {tolerance * 100:g}% and none of their processes "
          f"overlap; noisy: they differ by more than {tolerance * 100:g}%, but so do processes of one way; "
          f"NOT TIMED: a way gave no time (its error is above)")
    print("\n".join(panel_ratios(names, timed)))
    if args.json:
        save(args.json, names, timed, verdicts, tolerance, args.processes)
    counts = ", ".join(f"{len(verdicts[flag])} {flag}" for flag in ("agree", "noisy", "DISAGREE", "NOT TIMED")
                       if flag in verdicts)
    print(f"{len(names)} benchmarks: {counts}")
    for flag, what in (("DISAGREE", "disagree"), ("NOT TIMED", "not timed by every way")):
        if flag in verdicts:
            print(f"{len(verdicts[flag])} of {len(names)} {what}: {', '.join(verdicts[flag])}")
    return 1 if "DISAGREE" in verdicts or "NOT TIMED" in verdicts else 0
