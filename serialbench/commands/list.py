"""`python -m serialbench list`: the selected benchmark names, one per line, in run order.

The run adds the memcpy floor (baseline/tobytes) of every selected input and tier to any selection
that lacks it; `list` names those on stderr, so that stdout stays the selection itself, which
`compare` and `calibrate` read (they time only what they are asked to).
"""

from __future__ import annotations

from serialbench.catalog.registry import name_matches, select
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_filter_arguments

DESCRIPTION = ("Print the selected benchmark names in run order. A run also times baseline/tobytes (the memcpy "
               "floor) for every selected input it covers and tier; those it adds are named on stderr.")


def arguments(cli: Parser) -> None:
    add_filter_arguments(cli)


def run(args, out: Output) -> int:
    benchmarks, _ = select(args.case_dirs, args.patterns, args.tier, args.input, out.say, floor=True,
                           payloads=args.payloads)
    added = [b.name for b in benchmarks if args.patterns and not any(name_matches(b.name, p) for p in args.patterns)]
    for bench in benchmarks:
        if bench.name not in added:
            out.print(bench.name)
    if added:
        out.say(f"a run also times the memcpy floor of the selected inputs and tiers ({len(added)} more): "
                + ", ".join(added))
    return 0
