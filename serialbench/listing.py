"""`python -m serialbench list`: the selected benchmark names, one per line, in run order."""

from __future__ import annotations

import argparse
import sys

from serialbench.errors import UsageError
from serialbench.registry import select
from serialbench.runner import add_filter_arguments


def parser(prog: str, description: str) -> argparse.ArgumentParser:
    """An argparse parser whose errors are one line and exit status 2."""
    result = argparse.ArgumentParser(prog=f"python -m serialbench {prog}", description=description)

    def error(message):
        raise UsageError(message)

    result.error = error
    return result


def run(argv: list[str]) -> int:
    cli = parser("list", "Print the selected benchmark names in run order.")
    add_filter_arguments(cli)
    args = cli.parse_args(argv)
    benchmarks, _ = select(args.case_dirs, args.patterns, args.tier, args.input,
                           lambda message: print(message, file=sys.stderr))
    for bench in benchmarks:
        print(bench.name)
    return 0
