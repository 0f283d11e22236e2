"""Command line: `python -m serialbench [COMMAND] [options]`; without a command, run.

Each command lives in its own module under serialbench/commands/ and is imported only when used,
so that `list` stays fast and a worker of another command imports nothing it does not need.
"""

from __future__ import annotations

import importlib
import sys

from serialbench.core.errors import UsageError

# command -> (module under serialbench.commands, one-line description)
COMMANDS = {
    "run": ("run", "time the selected benchmarks to a precision, in rounds of fresh processes (the default)"),
    "list": ("list", "print the selected benchmark names in run order"),
    "dump": ("dump", "write the exact wire body of one benchmark"),
    "verify": ("verify", "check that every case decodes back to its input"),
    "report": ("report", "tables and plots of one result file, or of BASE vs NEW"),
    "memory": ("memory", "memory per op of a result file's benchmarks (a separate tracemalloc pass)"),
    "profile": ("profile", "run one benchmark under a profiler"),
    "compare": ("compare", "interleaved timing of two sides: revisions, library versions, interpreters"),
    "sweep": ("sweep", "interleaved timing of a library's releases: the release where each benchmark changed"),
    "bisect": ("bisect", "the first release after GOOD whose cost of one benchmark differs, by paired sessions"),
    "calibrate": ("calibrate", "A/A and injected-slowdown self-check of compare"),
    "check-harness": ("check_harness", "time a panel three ways (run, compare, a plain loop) and flag disagreement"),
    "html": ("html", "a static site of result files: runs, compares, sweeps, bisections (opens from file://)"),
    "budget": ("budget", "wall time of the --fast suite, one format and compare on this machine"),
    "cache": ("cache", "list or prune the library overlays of --with, --base-with/--head-with, sweep and bisect"),
}


def commands_help() -> str:
    """The commands and what each does: what `--help` shows before the run's own options."""
    width = max(len(command) for command in COMMANDS)
    lines = ["usage: python -m serialbench [COMMAND] [options]", "", "commands:"]
    lines += [f"  {command.ljust(width)}  {description}" for command, (_, description) in COMMANDS.items()]
    lines += ["", "'python -m serialbench COMMAND --help' gives a command's options; the run's follow."]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv and not argv[0].startswith("-"):
        command, rest = argv[0], argv[1:]
        if command not in COMMANDS:
            raise UsageError(f"unknown command {command!r}; accepted: {', '.join(COMMANDS)}")
    else:
        command, rest = "run", argv
    if command == "run" and ("-h" in rest or "--help" in rest):
        print(commands_help(), flush=True)
    module_name = "serialbench.commands." + COMMANDS[command][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UsageError(f"command {command!r} is not available in this version") from None
    return module.run(rest)


def entry() -> None:
    try:
        status = main(sys.argv[1:])
    except UsageError as exc:
        print(f"serialbench: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("serialbench: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(status)


if __name__ == "__main__":
    entry()
