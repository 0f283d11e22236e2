"""`python -m serialbench check-harness`: do the run and compare time an op the same?

One op has one time: what a warm, long-running client pays per call. The run and compare both
measure it with one engine (measure/engine.py), loop, clock, warm-up and process state
(inside/timeloop.py, sides/environment.py), in different lanes. This command checks that they agree: it times a
panel of benchmarks three ways, one FORMAT/IMPL at a time with its three ways back to back, and
flags any benchmark that two ways time apart by more than the tolerance (below):
- run: the run's session, as `python -m serialbench --rounds N` times it (a fresh worker a round, each
  benchmark's values alternated with its memcpy floor's);
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
import time

from serialbench.catalog.discovery import PACKAGE_DIR
from serialbench.catalog.registry import floors_of, select, select_named
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_filter_arguments, whole
from serialbench.core.formatting import format_duration
from serialbench.core.parsing import parse_percent
from serialbench.measure.engine import run_session
from serialbench.measure.plain_loop import plain_medians
from serialbench.measure.session import COMPARE, RUN_DEFAULT, Settings, run_settings
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


# This serialbench as a side: the plain loop's processes run it, not whichever one the interpreter finds
# first (another checkout's editable install, from a worktree).
THIS_SERIALBENCH = Side("harness", PACKAGE_DIR.parent)


def time_in_session(way: str, names: list[str], processes: int, say, cpus: int | None) -> dict[str, list[float]]:
    """Each process's median, per benchmark, as the run times them (one side, each benchmark's values alternated
    with its floor's, the rule of `python -m serialbench --rounds N`) or as compare does (an A/A session, a lane
    per side, both sides alive; the first side's values)."""
    floors = None
    with work_tree() as tree:
        if way == "run":
            benchmarks = select_named((), names, floor=True)[0]
            names, floors = [bench.name for bench in benchmarks], floors_of(benchmarks)
            sides = [dataclasses.replace(tree, label="run")]
            settings = run_settings(RUN_DEFAULT.precision, processes, processes, RUN_DEFAULT.values,
                                    cpus or RUN_DEFAULT.cpus)
        else:
            sides = [dataclasses.replace(tree, label=label) for label in ("A", "A'")]
            settings = Settings((processes,), cpus=cpus or COMPARE.cpus)
        session = run_session(sides, names, settings, lambda *args: set(), say, floors=floors)
    # Every round starts new workers: a round's values are one process's.
    return {name: per_process_medians(runs) for name, runs in session.runs[sides[0].label].items() if runs}


def arguments(cli: Parser) -> None:
    add_filter_arguments(cli, cases=False, payloads=False)  # the harness is checked on the built-in inputs
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
    for index, group in enumerate(groups):
        # One FORMAT/IMPL at a time, its three ways back to back in an order that rotates: the
        # machine's speed drifts over minutes here, and ways timed in three blocks of a long
        # session differed by that drift, not by what the harnesses do.
        chosen = [name for name in names if name.rsplit("/", 2)[0] == group]
        order = WAYS[index % 3:] + WAYS[:index % 3]
        out.say(f"[{index + 1}/{len(groups)}] {group}: {len(chosen)} benchmarks, {', '.join(order)} "
                f"({format_duration(time.monotonic() - started)} so far)")
        for way in order:
            timed[way].update(plain_medians(THIS_SERIALBENCH, chosen, args.processes, out.say) if way == "plain"
                              else time_in_session(way, chosen, args.processes, out.say, args.cpus))
    panel = Panel(names, timed, tolerance, args.processes)
    out.document(panel.document())
    return 1 if DISAGREE in panel.found or NOT_TIMED in panel.found else 0
