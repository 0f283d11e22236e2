"""`python -m serialbench check-harness`: do the run and compare time an op the same?

One op has one time: what a warm, long-running client pays per call. The run and compare both
measure it with one engine (measure/engine.py), loop, clock, warm-up and process state
(inside/timeloop.py, sides/environment.py), in different lanes. This command checks that they agree: it times a
panel of benchmarks three ways, one FORMAT/IMPL at a time with its three ways back to back, and
flags any benchmark that two ways time apart by more than the tolerance (below):
- run: `python -m serialbench --rounds N` (a fresh worker a round, each benchmark's values alternated
  with its memcpy floor's);
- compare: an A/A `compare` session of this serialbench (a lane per side, both sides alive, values
  of 1 ms in alternation), the first side's values;
- plain: a fresh process per benchmark, `prepare`, the warm-up, then a loop (measure/plain_loop.py).
The default panel is every implementation at float32 100K and 1M, where copies are large enough
for the process's memory state to matter, and the benchmarks where the harnesses once disagreed.

Each way times a benchmark in several fresh processes; verdicts/harness.py says when two ways
disagree (their processes do not overlap) and when they are only noisy, views/harness_table.py
draws the panel.
"""

from __future__ import annotations

import dataclasses
import subprocess
import tempfile
import time
from pathlib import Path

from serialbench.catalog.discovery import PACKAGE_DIR
from serialbench.catalog.registry import select
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_filter_arguments, whole
from serialbench.core.formatting import format_duration, last_line
from serialbench.core.parsing import parse_percent
from serialbench.measure.engine import run_session
from serialbench.measure.plain_loop import plain_medians
from serialbench.measure.session import COMPARE, Settings
from serialbench.results.files import load
from serialbench.results.session_files import runs_of
from serialbench.sides.sides import Side
from serialbench.sides.worktrees import work_tree
from serialbench.verdicts.harness import DISAGREE, NOT_TIMED, WAYS
from serialbench.verdicts.paired import medians as per_process_medians
from serialbench.views.harness_table import Panel

DESCRIPTION = ("Time a panel of benchmarks three ways (the run, compare's sides, a plain warm loop) and flag where "
               "they disagree.")
DEFAULT_PANEL = ["*/*/float32/100K", "*/*/float32/1M", "msgpack/packb/float32/100K",
                 "triton-binary/struct-pack/int32x3/100K", "triton-binary/join/int32x3/100K"]
TOLERANCE = 0.25  # docs/guides/compare.md, 'What the noise is': what the three ways differ by when all is well
PROCESSES = 5  # per way; see verdicts/harness.verdict for what 3 and 5 give on this VM


# This serialbench as a side: its subprocesses run it, not whichever one the interpreter finds first
# (another checkout's editable install, from a worktree).
THIS_SERIALBENCH = Side("harness", PACKAGE_DIR.parent)


def time_with_run(names: list[str], processes: int, scratch: Path, say, cpus: int | None) -> dict[str, list[float]]:
    # A file of its own per call: a run never overwrites a result file, and one shared name made every
    # call after the first read the first call's file back (a whole panel's run column came out empty).
    out = Path(tempfile.mkdtemp(dir=scratch)) / "run.json"
    patterns = [arg for name in names for arg in ("-b", name)]
    argv, env = THIS_SERIALBENCH.serialbench("--rounds", str(processes), "--quiet", "--no-summary", *patterns,
                                             *(["--cpus", str(cpus)] if cpus else []), "-o", str(out))
    done = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True)
    if not out.exists():
        say(f"the run failed: {last_line(done.stderr) or f'exit status {done.returncode}'}")
        return {}
    for line in done.stderr.splitlines():
        if "not timed" in line:
            say(line)
    per_worker = {result.name: per_process_medians(runs_of(result.benchmark))
                  for result in load(out, with_memory=False).results}
    return {name: found for name, found in per_worker.items() if found}


def time_with_compare(names: list[str], rounds: int, say, cpus: int | None) -> dict[str, list[float]]:
    with work_tree() as tree:
        sides = [dataclasses.replace(tree, label=label) for label in ("A", "A'")]
        settings = Settings((rounds,), cpus=cpus or COMPARE.cpus)
        session = run_session(sides, names, settings, lambda *args: set(), say)
    # Every round starts new workers: a round's values are one process's.
    return {name: per_process_medians(runs) for name, runs in session.runs["A"].items() if runs}


def time_one_way(way: str, names: list[str], processes: int, scratch: Path, say,
                 cpus: int | None = None) -> dict[str, list[float]]:
    if way == "run":
        return time_with_run(names, processes, scratch, say, cpus)
    if way == "compare":
        return time_with_compare(names, processes, say, cpus)
    return plain_medians(THIS_SERIALBENCH, names, processes, say)


def arguments(cli: Parser) -> None:
    add_filter_arguments(cli, cases=False)
    cli.add_argument("--tolerance", metavar="PCT", help=f"two ways' medians may differ by this much "
                                                        f"(default {TOLERANCE * 100:g}%%)")
    cli.add_argument("--processes", type=whole(), default=PROCESSES,
                     help=f"fresh processes per benchmark for the run and the plain loop, rounds of compare "
                          f"(default {PROCESSES}; with 3, 6-16%% of unbiased benchmarks read DISAGREE on a noisy VM)")
    cli.add_argument("--cpus", type=whole(), metavar="N",
                     help="benchmarks the run and compare time at once, each on a CPU of its own (default: each "
                          "command's own)")
    cli.add_json("every process's median and the verdicts")
    cli.add_markdown("the table")


def run(args, out: Output) -> int:
    tolerance = parse_percent(args.tolerance, TOLERANCE, "--tolerance")
    patterns = args.patterns or DEFAULT_PANEL
    names = [bench.name for bench in select((), patterns, args.tier, args.input)[0]]
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
            out.say(f"[{index + 1}/{len(groups)}] {group}: {len(chosen)} benchmarks, {', '.join(order)} "
                    f"({format_duration(time.monotonic() - started)} so far)")
            for way in order:
                timed[way].update(time_one_way(way, chosen, args.processes, Path(scratch), out.say, args.cpus))
    panel = Panel(names, timed, tolerance, args.processes)
    out.print(panel.text())
    out.write("json", panel.json)
    out.write("markdown", panel.markdown)
    out.print("\n".join(panel.closing()))
    return 1 if DISAGREE in panel.found or NOT_TIMED in panel.found else 0
