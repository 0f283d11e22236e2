"""The hidden entry points: the processes serialbench starts itself, in one place.

`python -m serialbench worker KIND ...` is not a command: it is in no --help, and its stdout is a
protocol between two serialbench processes (JSON lines), not an answer for a user. Its kinds:
- `memory [--calls N] [--cases DIR] [--payload P] NAME...`: memory per op of one FORMAT/IMPL's benchmarks in a
  fresh interpreter (measure/memory.py), for the `memory` command;
- `plain NAME`: one benchmark timed by a plain warm loop (measure/plain_loop.py), for `check-harness`.

The timing worker, the counts' workers and the side check (serialbench/inside/) run in a side's
process from inside/start.py, this serialbench's files with the side's serialbench first on
sys.path (inside/side_api.py); they have no entry point here.
"""

from __future__ import annotations

import os
import sys

from serialbench.core.errors import UsageError
from serialbench.core.parsing import OneLineParser

KINDS = ("memory", "plain")


def command(kind: str, *args: str) -> list[str]:
    """The command line that starts a worker of `kind` with this interpreter."""
    return [sys.executable, "-m", "serialbench", "worker", kind, *args]


def memory_command(names: list[str], case_dirs: list[str], calls: int, payloads: list[str] = ()) -> list[str]:
    cases = [arg for directory in case_dirs for arg in ("--cases", os.path.abspath(directory))]
    given = [arg for payload in payloads for arg in ("--payload", payload)]
    return command("memory", "--calls", str(calls), *cases, *given, *names)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in KINDS:
        print(f"serialbench: error: a worker is one of {', '.join(KINDS)}; this is an internal entry point, "
              "see 'python -m serialbench --help' for the commands", file=sys.stderr)
        return 2
    kind, rest = argv[0], argv[1:]
    cli = OneLineParser(prog=f"python -m serialbench worker {kind}", description="an internal entry point")
    try:
        if kind == "memory":
            from serialbench.measure.memory import DEFAULT_CALLS, worker

            cli.add_argument("--calls", type=int, default=DEFAULT_CALLS)
            cli.add_argument("--cases", dest="case_dirs", action="append", default=[])
            cli.add_argument("--payload", dest="payloads", action="append", default=[])
            cli.add_argument("names", nargs="+")
            args = cli.parse_args(rest)
            return worker(args.names, args.case_dirs, args.calls, args.payloads)
        from serialbench.measure.plain_loop import worker

        cli.add_argument("name")
        return worker(cli.parse_args(rest).name)
    except UsageError as exc:
        print(f"serialbench: error: {exc}", file=sys.stderr)
        return 2
