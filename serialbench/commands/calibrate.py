"""`python -m serialbench calibrate`: does `compare` tell a known change from noise on this machine?

It times, interleaved exactly as `compare` does (lockstep rounds, adaptive stopping), one snapshot
of the work tree under several generated case modules that wrap the same selected cases: two with
nothing added (the A/A pair) and one per requested slowdown, whose ops do that much more work
(measure/slowdown.py). Then it asks compare's statistics the usual question of each pair: an A/A
benchmark flagged as changed is a false positive; a slowed-down benchmark called "slower" is a
detection. A slowed-down benchmark whose extra work did not land (its own check, or the session's
interval, far from the slowdown) is an injection failure, shown and counted apart: no verdict could
have found work that never happened.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from pathlib import Path

from serialbench.catalog.inputs import tier_order
from serialbench.catalog.registry import slow_at_1m
from serialbench.commands import options
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_session_arguments, filters, interrupt_on_sigterm, settings_from
from serialbench.core.errors import UsageError
from serialbench.core.parsing import parse_percent
from serialbench.measure import slowdown as slowdown_module
from serialbench.measure.engine import run_session
from serialbench.measure.session import Session
from serialbench.measure.slowdown import FORMAT_PREFIX, write_case_modules
from serialbench.sides.checks import check_side
from serialbench.sides.sides import Side
from serialbench.sides.worktrees import work_tree
from serialbench.verdicts.paired import PairedComparison
from serialbench.views import calibrate_table
from serialbench.views.progress import session_round_line

DESCRIPTION = "A/A and injected-slowdown self-check of 'compare' on this machine."

SELECTION_SIZE = 20  # spread evenly over the four tiers
SLOWDOWNS = "5"  # "5,2" adds a variant: a third more time
def default_selection(side: Side, selection: dict, size: int) -> list[str]:
    """`size` names spread evenly over each tier's list: a mix of formats, impls and inputs."""
    listed = check_side(side, selection, list_only=True)
    names = listed.listed
    if not names:
        raise UsageError(f"nothing to calibrate on: {listed.why}")
    if len(names) <= size:
        return names
    # At 1M a JSON op takes up to 2 s a call: a self-check of minutes leaves out the cases that say so.
    slow = slow_at_1m()
    tiers = tier_order(name.rsplit("/", 1)[1] for name in names)
    chosen = []
    for index, tier in enumerate(tiers):
        candidates = [name for name in names if name.endswith("/" + tier)
                      and not (tier == "1M" and name.removeprefix(FORMAT_PREFIX).rsplit("/", 2)[0] in slow)]
        share = size * (index + 1) // len(tiers) - size * index // len(tiers)
        step = max(len(candidates) / share, 1)
        chosen += [candidates[int(i * step)] for i in range(min(share, len(candidates)))]
    return [name for name in names if name in chosen]


def parse_slowdowns(text: str) -> list[float]:
    slowdowns = [parse_percent(word, 0.0, "--slowdown") for word in text.split(",") if word.strip()]
    if not slowdowns or any(s <= 0 for s in slowdowns):
        raise UsageError(f"--slowdown {text!r}: give positive percentages, e.g. 10,5")
    return slowdowns


def arguments(cli: Parser) -> None:
    cli.add_argument("-b", "--benchmark", dest="patterns", action="append", default=[], metavar="GLOB",
                     help=f"benchmarks to calibrate on (default: {SELECTION_SIZE} spread over the four tiers)")
    cli.add_argument("--tier", metavar="T[,T]", help="tiers (default: all four)")
    cli.add_argument("--input", metavar="I[,I]", help="input kinds (default: the default run's)")
    cli.add_argument("--size", type=int, default=SELECTION_SIZE,
                     help=f"how many benchmarks when no -b is given (default {SELECTION_SIZE})")
    cli.add_argument("--slowdown", default=SLOWDOWNS, metavar="PCT[,PCT]",
                     help=f"injected slowdowns in percent (default {SLOWDOWNS})")
    add_session_arguments(cli)
    cli.add_json("the table and the counts")
    cli.add_markdown("the table and the counts")


def run(args, out: Output) -> int:
    settings = settings_from(args)
    min_effect = options.min_effect(args)
    slowdowns = parse_slowdowns(args.slowdown)
    interrupt_on_sigterm()
    say = out.say

    load_before = os.getloadavg()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="serialbench-calibrate-") as tmp, work_tree() as snapshot:
        case_dirs = write_case_modules(Path(tmp), slowdowns)
        labels = ["A", "A'"] + [f"+{s * 100:g}%" for s in slowdowns]
        sides = [dataclasses.replace(snapshot, label=label, case_dirs=(str(directory),))
                 for label, directory in zip(labels, case_dirs)]
        patterns = [FORMAT_PREFIX + p for p in args.patterns]
        selection = filters(patterns or [FORMAT_PREFIX + "*"], args.tier, args.input)
        names = default_selection(sides[0], selection, args.size if not args.patterns else 10**9)
        tree = snapshot.short or "the installed serialbench"
        say(f"calibrating on {len(names)} benchmarks of {tree}, {len(sides)} variants "
            f"({', '.join(labels)}), looks after {', '.join(map(str, settings.looks))} rounds")
        judges = [PairedComparison(labels[0], label, names, settings.looks, min_effect) for label in labels[1:]]

        def settle(session: Session, undecided: list[str], look_index: int, final: set[str]) -> set[str]:
            # A benchmark leaves the rounds when every pair has settled it (a judge ignores names it
            # settled at an earlier look).
            return set.intersection(*[judge.look(session, undecided, look_index, final) for judge in judges])

        session = run_session(sides, names, settings, settle, say,
                              progress=session_round_line(len(names), settings, say))
        landed = [{name: figures[2] for name, figures in slowdown_module.read_measured(directory / "measured.json")
                   .items() if len(figures) > 2} for directory in case_dirs[2:]]
    minutes = (time.monotonic() - started) / 60
    rows = [judge.rows(session) for judge in judges]
    load_after = os.getloadavg()
    closing = (f"{len(names)} benchmarks x {len(sides)} variants, {session.rounds} rounds at most, in "
               f"{minutes:.1f} min; minimum effect {min_effect * 100:g}%; load average {load_before[0]:.1f} before, "
               f"{load_after[0]:.1f} after, on {os.cpu_count()} CPUs")
    # The table, the counts and the closing line (views/calibrate_table.py), the variants named without their prefix.
    table = calibrate_table.calibrated(rows[0], rows[1:], slowdowns, landed, FORMAT_PREFIX)
    out.document(calibrate_table.calibrate_document(table, slowdowns, min_effect, closing))
    if session.failed:
        out.print(f"{len(session.failed)} benchmarks failed: " + "; ".join(session.failed))
    return 0
