"""Command line: `python -m serialbench [COMMAND] [options]`; without a command, run.

Each command lives in its own module under serialbench/commands/ and is imported only when used,
so that `list` stays fast and a worker of another command imports nothing it does not need. Every
command runs the same way (commands/contract.py): `main(argv, stdout, stderr)`
is the whole program as a function, which tests call in-process. `worker` is not a command: it is
the hidden entry point of the processes serialbench starts itself (serialbench/workers.py).
"""

from __future__ import annotations

import os
import sys
from typing import IO

# command -> (module under serialbench.commands, one-line description)
COMMANDS = {
    "run": ("run", "time the selected benchmarks to a precision, in rounds of fresh processes (the default)"),
    "list": ("list", "print the selected benchmark names in run order"),
    "dump": ("dump", "write the exact wire body of one benchmark"),
    "verify": ("verify", "check that every case decodes back to its input"),
    "report": ("report", "tables and plots of one result file, or of BASE vs NEW"),
    "memory": ("memory", "memory per op of a result file's benchmarks (B/op, allocs/op, peak, retained)"),
    "profile": ("profile", "run one benchmark under a profiler"),
    "compare": ("compare", "interleaved timing of two sides: revisions, library versions, interpreters"),
    "sweep": ("sweep", "interleaved timing of a library's releases (or commits): where each benchmark changed"),
    "bisect": ("bisect", "every release (or commit) from GOOD to BAD where one benchmark's cost steps"),
    "calibrate": ("calibrate", "A/A and injected-slowdown self-check of compare"),
    "check-harness": ("check_harness", "time a panel three ways (run, compare, a plain loop) and flag disagreement"),
    "html": ("html", "a static site of result files: runs, compares, sweeps, bisections (opens from file://)"),
    "budget": ("budget", "wall time of the --fast suite, one format and compare on this machine"),
    "cache": ("cache", "list or prune the overlays of --with, --*-with, sweep and bisect, and commits' builds"),
}
WORKER = "worker"  # the hidden entry point (serialbench/workers.py), never listed


def commands_help() -> str:
    """The commands and what each does: what `--help` shows before the run's own options."""
    width = max(len(command) for command in COMMANDS)
    lines = ["usage: python -m serialbench [COMMAND] [options]", "", "commands:"]
    lines += [f"  {command.ljust(width)}  {description}" for command, (_, description) in COMMANDS.items()]
    lines += ["", "'python -m serialbench COMMAND --help' gives a command's options; the run's follow."]
    return "\n".join(lines) + "\n"


def main(argv: list[str], stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """The program: the command's exit status (2 and one line on stderr for a usage error)."""
    from serialbench.commands import contract

    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    if argv and argv[0] == WORKER:
        from serialbench import workers

        return workers.main(argv[1:])
    if argv and not argv[0].startswith("-"):
        command, rest = argv[0], argv[1:]
        if command not in COMMANDS:
            stderr.write(f"serialbench: error: unknown command {command!r}; accepted: {', '.join(COMMANDS)}\n")
            return 2
    else:
        command, rest = "run", argv
    if command == "run" and ("-h" in rest or "--help" in rest):
        stdout.write(commands_help() + "\n")
        stdout.flush()
    return contract.main(command, COMMANDS[command][0], rest, stdout, stderr)


def entry() -> None:
    try:
        status = main(sys.argv[1:])
        sys.stdout.flush()
    except BrokenPipeError:  # `... | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)


if __name__ == "__main__":
    entry()
