"""`python -m serialbench list`: the selected benchmark names, one per line, in run order.

The run adds the memcpy floor (baseline/tobytes) of every selected input and tier to any selection
that lacks it; `list` names those on stderr, so that stdout stays the selection itself, which
`compare` and `calibrate` read (they time only what they are asked to).
"""

from __future__ import annotations

import sys

from serialbench.catalog.registry import name_matches, select
from serialbench.commands.options import add_filter_arguments, parser


def run(argv: list[str]) -> int:
    cli = parser("list", "Print the selected benchmark names in run order. A run also times baseline/tobytes "
                         "(the memcpy floor) for every selected input it covers and tier; those it adds are named on "
                         "stderr.")
    add_filter_arguments(cli)
    args = cli.parse_args(argv)
    warn = lambda message: print(message, file=sys.stderr)  # noqa: E731
    benchmarks, _ = select(args.case_dirs, args.patterns, args.tier, args.input, warn, floor=True,
                           payloads=args.payloads)
    added = [b.name for b in benchmarks if args.patterns and not any(name_matches(b.name, p) for p in args.patterns)]
    for bench in benchmarks:
        if bench.name not in added:
            print(bench.name)
    if added:
        warn(f"a run also times the memcpy floor of the selected inputs and tiers ({len(added)} more): "
             + ", ".join(added))
    return 0
