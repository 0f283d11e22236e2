"""`python -m serialbench budget`: how long serialbench's own commands take on this machine.

It runs, as a user would and one after the other, the whole default suite with `--fast`, one
format's benchmarks with `--fast` (by default triton-binary, the README's fast run and the format a
Triton client change touches), and an A/A `compare` of this serialbench against itself on that
format, and prints each wall time against its target, echoing each step's progress lines. Every
command runs in a temporary directory, where its result files go and are removed afterwards.
`--estimate N` times N benchmarks spread over the suite instead of the whole suite and
extrapolates, for a first answer that does not take the shared machine for ten minutes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from serialbench.catalog.registry import select
from serialbench.commands.contract import Output, Parser
from serialbench.core.errors import UsageError
from serialbench.core.formatting import last_line
from serialbench.views.budget_table import Timed, report

DESCRIPTION = "Measure the wall time of serialbench's own commands on this machine."
TARGETS = {"suite": 600.0, "format": 120.0}  # seconds: the --fast suite in 10 minutes, one format in 2
DEFAULT_FORMAT = "triton-binary"
STEPS = ("suite", "format", "compare")


def serialbench_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "serialbench", *args]


def timed(command: list[str], log, cwd: Path, what: str, say) -> tuple[float, int, str]:
    """Run a command in `cwd` (its result files stay there), its output to the log; its progress
    lines (`[k/N] NAME`, compare's `round N: ...`) are echoed, so that minutes do not pass silently."""
    started = time.monotonic()
    tail: list[str] = []
    with subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as process:
        for line in process.stdout:
            log.write(line)
            tail = [*tail[-19:], line]
            if line.startswith(("[", "round ")):
                say(f"  {what}: {line.rstrip()}")
    return time.monotonic() - started, process.returncode, "".join(tail)


def run_fast(names_or_patterns: list[str], output: Path, log, what: str, say) -> tuple[float, int]:
    filters = [arg for pattern in names_or_patterns for arg in ("-b", pattern)]
    seconds, status, output_tail = timed(serialbench_command("--fast", "--no-summary", *filters, "-o", str(output)),
                                         log, output.parent, what, say)
    if status not in (0, 1):  # 1: some benchmark failed, the others were timed
        raise UsageError(f"the --fast run failed: {last_line(output_tail) or status}")
    return seconds, status


def arguments(cli: Parser) -> None:
    cli.add_argument("--format", default=DEFAULT_FORMAT, help=f"the one format to time (default {DEFAULT_FORMAT})")
    cli.add_argument("--skip", default="", metavar="STEP[,STEP]", help=f"leave out steps: {', '.join(STEPS)}")
    cli.add_argument("--estimate", type=int, default=0, metavar="N",
                     help="time N benchmarks spread over the suite and extrapolate, instead of the whole suite")


def run(args, out: Output) -> int:
    skip = {word.strip() for word in args.skip.split(",") if word.strip()}
    if skip - set(STEPS):
        raise UsageError(f"--skip {args.skip!r}: accepted steps are {', '.join(STEPS)}")

    names = [bench.name for bench in select()[0]]  # the default run, as `list` prints it
    per_format = Counter(name.split("/")[0] for name in names)
    fmt = args.format
    if fmt not in per_format:
        raise UsageError(f"--format {fmt!r} has no benchmark in the default run; formats: {', '.join(per_format)}")
    load_before = os.getloadavg()[0]
    rows: list[Timed] = []
    with tempfile.TemporaryDirectory(prefix="serialbench-budget-") as tmp, \
            open(Path(tmp) / "output.log", "w") as log:
        if "suite" not in skip:
            if args.estimate:
                step = max(len(names) // args.estimate, 1)
                sample = names[::step][: args.estimate]
                seconds, status = run_fast(sample, Path(tmp) / "sample.json", log, "suite sample", out.say)
                ran = len(select(patterns=sample, floor=True)[0])  # the sample and the floor it adds
                rows.append(Timed(f"whole suite --fast (from {ran})", len(names),
                                  seconds * len(names) / ran, TARGETS["suite"], True, status))
            else:
                seconds, status = run_fast([], Path(tmp) / "suite.json", log, "suite", out.say)
                rows.append(Timed("whole suite --fast", len(names), seconds, TARGETS["suite"], status=status))
            out.say(f"timed: {rows[-1].what}")
        if "format" not in skip:
            seconds, status = run_fast([f"{fmt}/*"], Path(tmp) / "format.json", log, fmt, out.say)
            ran = len(select(patterns=[f"{fmt}/*"], floor=True)[0])  # the format and the floor it adds
            rows.append(Timed(f"{fmt} --fast", ran, seconds, TARGETS["format"], status=status))
            out.say(f"timed: {rows[-1].what}")
        if "compare" not in skip:
            # An A/A compare of this serialbench against itself (two sides on this interpreter): what a round
            # costs does not depend on what differs, and it needs no git checkout.
            command = serialbench_command("compare", "--base-python", sys.executable, "--head-python", sys.executable,
                                          "-b", f"{fmt}/*")
            seconds, status, _ = timed(command, log, Path(tmp), "compare", out.say)
            rows.append(Timed(f"compare (A/A) -b '{fmt}/*'", per_format[fmt], seconds, None, status=status))
    out.document(report(rows, f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on "
                              f"{os.cpu_count()} CPUs; {len(names)} benchmarks in the default run"))
    return 0
