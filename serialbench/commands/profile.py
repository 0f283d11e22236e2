"""`python -m serialbench profile NAME [--top K]`: where one benchmark's time goes.

The op is built exactly as the timing run builds it (registry.prepare), timed without the
profiler to know its cost per call, then called for about --seconds under cProfile, outside
pyperf and its workers. The table is per op: own time (in the function itself), total time
(with what it calls) and calls per op, so a `tolist()` that dominates a JSON path, or a
protobuf copy, shows at the top. cProfile adds a fixed cost to every Python-level call: the
"under cProfile" time says how much, and shares of own time are what to read.
"""

from __future__ import annotations

import cProfile
import pstats

from serialbench.catalog.registry import CaseFailed, prepare
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_cases_argument, add_with_argument, one_named, positive, whole
from serialbench.inside import timeloop
from serialbench.measure.profiling import profile_rows, time_per_op
from serialbench.sides.run_with import overlay_active, run_with_overlay
from serialbench.views.profile_table import profile_document

DESCRIPTION = "Run one benchmark (FORMAT/IMPL/INPUT/TIER) under cProfile and print where the time goes, per op."
DEFAULT_TOP = 15
DEFAULT_SECONDS = 2.0


def arguments(cli: Parser) -> None:
    cli.add_argument("name", help="the benchmark's full name, e.g. tfserving-rest/json/float32/100K")
    cli.add_argument("--top", type=whole(), default=DEFAULT_TOP, metavar="K", help=f"functions to show ({DEFAULT_TOP})")
    cli.add_argument("--sort", choices=("own", "total"), default="own",
                     help="order by own time (default) or by total time including callees")
    cli.add_argument("--seconds", type=positive("seconds"), default=DEFAULT_SECONDS, metavar="S",
                     help=f"profile about this long (default {DEFAULT_SECONDS:g}; at least one call)")
    cli.add_output("-o", "--output", metavar="FILE.pstats",
                   help="also save the raw profile (pstats, snakeviz; a new file)")
    cli.add_json("the table")
    add_cases_argument(cli)
    add_with_argument(cli, "the profile")


def run(args, out: Output) -> int:
    if args.with_specs and not overlay_active():  # the command again, its libraries from the overlay
        return run_with_overlay("profile", args.argv, args.with_specs, out.say)
    bench, cases = one_named(args.name, "profile", args.case_dirs)
    try:
        prepared = prepare(bench, cases)
    except CaseFailed as exc:
        out.say(f"serialbench: {exc}")
        return 1
    op = prepared.op
    per_op = time_per_op(op)
    calls = max(1, int(args.seconds / per_op))
    profiler = cProfile.Profile()
    t0 = timeloop.CLOCK()
    profiler.enable()
    for _ in range(calls):
        op()
    profiler.disable()
    profiled = (timeloop.CLOCK() - t0) / calls
    if out.wants("output"):
        profiler.dump_stats(out.path("output"))  # pstats writes it: claimed, like every output, before the work
        out.say(f"profile: {out.path('output')} (python -m pstats {out.path('output')}, or snakeviz)")
    rows = profile_rows(pstats.Stats(profiler), calls)
    out.document(profile_document(bench.name, calls, per_op, profiled, rows, args.top, args.sort))
    return 0
