"""`python -m serialbench cache list|prune`: the library overlays that --with, compare's --*-with, sweep
and bisect installed (sides/overlays.py), the wheels built of commits (sides/commits.py), and the
environments made for bare interpreters (--*-python, sweep --pythons; sides/environments.py),
kept in the user's cache directory so that the next call installs (or builds) nothing. `list` shows
each with its size, specs and last use (views/cache_table.py); `prune` removes those unused for
--keep-days, or the least recently used until the cache fits --max-size.
"""

from __future__ import annotations

import argparse

from serialbench.commands.contract import Output, Parser
from serialbench.core.errors import UsageError
from serialbench.core.formatting import format_bytes
from serialbench.sides import commits, environments, overlays
from serialbench.views.cache_table import counted, describe, listing

DESCRIPTION = ("List or prune the library overlays installed for --with, compare's --*-with, sweep and bisect, "
               "the wheels built of commits, and the environments made for interpreters (in "
               "$XDG_CACHE_HOME/serialbench/overlays, .../builds and .../environments, by default "
               "~/.cache/serialbench/).")


def arguments(cli: Parser) -> None:
    actions = cli.add_subparsers(dest="action", metavar="ACTION", parser_class=argparse.ArgumentParser)
    actions.add_parser("list", help="each overlay, build and environment: size, specs, interpreter, last use")
    prune = actions.add_parser("prune", help="remove overlays, builds and environments: unused for --keep-days, "
                                             "or beyond --max-size")
    prune.add_argument("--keep-days", type=float, metavar="N", help="remove those not used in the last N days")
    prune.add_argument("--max-size", type=float, metavar="MB",
                       help="remove the least recently used until the cache holds at most MB megabytes")
    prune.add_argument("--all", action="store_true", help="remove every overlay, build and environment")
    prune.add_argument("--dry-run", action="store_true", help="say what would be removed, remove nothing")
    for sub in (actions.choices["list"], prune):
        sub.error = cli.error  # one line and exit status 2, as every command's errors


def run(args, out: Output) -> int:
    if args.action is None:
        raise UsageError("give an action: 'cache list' or 'cache prune --keep-days N | --max-size MB | --all'")
    cached = overlays.cached_overlays([commits.builds_root(), environments.environments_root()])
    if args.action == "list":
        out.document(listing(cached))
        return 0
    if args.keep_days is None and args.max_size is None and not args.all:
        raise UsageError("cache prune: give --keep-days N, --max-size MB or --all")
    if (args.keep_days is not None and args.keep_days < 0) or (args.max_size is not None and args.max_size < 0):
        raise UsageError("--keep-days and --max-size take a number of 0 or more")
    doomed = cached if args.all else overlays.to_prune(
        cached, args.keep_days, None if args.max_size is None else int(args.max_size * 1e6))
    for item in doomed:
        if not args.dry_run:
            overlays.remove(item)
        out.print(f"{'would remove' if args.dry_run else 'removed'} {item.kind} {item.directory.name}: "
                  f"{describe(item)}, {format_bytes(item.size)}")
    kept = sum(item.size for item in cached if item not in doomed)
    out.print(f"{len(doomed)} of {counted(cached)} {'to remove' if args.dry_run else 'removed'} "
              f"({format_bytes(sum(item.size for item in doomed))}); {format_bytes(kept)} kept")
    return 0
