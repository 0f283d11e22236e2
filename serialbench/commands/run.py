"""`python -m serialbench [options]`, the run: every selected benchmark timed to a precision, then the table.

The run is a session of one side (measure/engine.py): rounds of one fresh worker process each, every
benchmark not yet settled timed in each round beside its memcpy floor, until its median's interval
(core/medians.py) and its multiple of the floor (verdicts/timings.py) are both within +-precision,
or the cap. `--fast` and `--rigorous` are presets of the same rule. The result is a pyperf file, a
run per process (results/run_files.py), never written over (`-o` is claimed before any work, as
every output: commands/contract.py; `--append` adds to a file on purpose; a long run keeps its rounds
in it as it goes, results/run_files.py's Checkpoint), and the run ends with
the tables of medians, multiples and rankings, then its answer in a few lines (views/summary.py).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from serialbench.catalog.discovery import source_root
from serialbench.catalog.registry import floors_of, refusal_summary, select
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import (
    add_cpus_argument,
    add_filter_arguments,
    add_with_argument,
    interrupt_on_sigterm,
    payload_arguments,
    positive,
    whole,
)
from serialbench.core import medians
from serialbench.core.errors import UsageError
from serialbench.core.gitinfo import commit_and_dirty
from serialbench.core.parsing import parse_percent
from serialbench.measure.engine import run_session
from serialbench.measure.session import MIN_TIME, RUN_DEFAULT, RUN_FAST, RUN_RIGOROUS, Settings, run_settings
from serialbench.results import run_files
from serialbench.results.paths import run_output_path
from serialbench.sides import environment
from serialbench.sides.sides import Side
from serialbench.sides.worktrees import installed_root
from serialbench.views.progress import RoundProgress

DESCRIPTION = ("Time the selected benchmarks, FORMAT/IMPL/INPUT/TIER, each in fresh worker processes, one a round, "
               "until its median is known within +-precision (or the cap), and end with tables of their medians, "
               "multiples of the memcpy floor and rankings, then the answer: the fastest of each format and by how "
               "much. baseline/tobytes, the memcpy floor, always runs for every selected input it covers (float32, "
               "png, int32x3) and tier, so that each of their results has its multiple of memcpy.")


# The fewest processes that give an interval: the cap may be no lower, --rounds is told so.
LEAST_ROUNDS = whole(medians.least_rounds(), f"the fewest processes whose range is a {medians.CONFIDENCE:.0%} "
                                              "interval for the median")
ROUNDS = whole(1, f"{medians.least_rounds()} or more for an interval")


def arguments(cli: Parser) -> None:
    cli.prog = "python -m serialbench"  # the default command
    add_filter_arguments(cli)
    rule = cli.add_argument_group("the rule (docs/reference/run.md)")
    rule.add_argument("--precision", metavar="PCT",
                      help=f"stop a benchmark once the 95%% interval of its median time, and of its multiple of the "
                           f"floor, lie within +-PCT (default {RUN_DEFAULT.precision * 100:g}%%)")
    rule.add_argument("--max-rounds", type=LEAST_ROUNDS, metavar="N",
                      help=f"the cap: at most N processes a benchmark (default {RUN_DEFAULT.max_rounds})")
    rule.add_argument("--rounds", type=ROUNDS, metavar="N", help="exactly N processes for every benchmark, whatever "
                                                              "its precision")
    rule.add_argument("--values", type=whole(), metavar="N",
                      help=f"values of each benchmark per process (default {RUN_DEFAULT.values}; a value of its "
                           "floor beside each)")
    rule.add_argument("--fast", action="store_true",
                      help=f"a quick first answer: {RUN_FAST.max_rounds} processes a benchmark "
                           f"({RUN_FAST.values} values each), the fewest that give an interval")
    rule.add_argument("--rigorous", action="store_true",
                      help=f"+-{RUN_RIGOROUS.precision * 100:g}%%, up to {RUN_RIGOROUS.max_rounds} processes, "
                           f"{RUN_RIGOROUS.values} values each")
    rule.add_argument("--min-time", type=positive("seconds"), default=MIN_TIME, metavar="S",
                      help=f"seconds per value (default {MIN_TIME})")
    rule.add_argument("-l", "--loops", type=whole(), metavar="N",
                      help="calls per value (default: calibrated to --min-time)")
    add_cpus_argument(rule, RUN_DEFAULT.cpus)
    rule.add_argument("--max-time", type=positive("minutes"), metavar="MIN",
                      help="stop after MIN minutes: every benchmark ends with the processes it has")
    output = cli.add_argument_group("output")
    cli.add_output("-o", "--output", group=output, help="the result file (default: results/<commit>.json); "
                                                        "never overwritten")
    output.add_argument("--append", metavar="FILE", help="add this run's processes to FILE")
    output.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    output.add_argument("--no-summary", action="store_true",
                        help="do not end the run with the tables of medians and multiples of the memcpy floor and "
                             "the answer")
    cli.add_argument("--python", metavar="PY", help="run the workers with this interpreter")
    cli.add_argument("--malloc-default", action="store_true",
                     help="keep glibc's default malloc trimming in workers (docs/reference/process-state.md)")
    cli.add_argument("--memcpy-default", action="store_true",
                     help="let glibc's memcpy use rep movsb, whose speed on AMD Zen depends on each worker's "
                          "heap layout (docs/reference/process-state.md)")
    add_with_argument(cli, "the run and its workers (through PYTHONPATH)")
    # pyperf's words for the same settings, from when the run was pyperf's Runner: scripts keep working.
    cli.add_argument("-p", "--processes", dest="rounds", type=ROUNDS, help=argparse.SUPPRESS)
    cli.add_argument("-n", dest="values", type=whole(), help=argparse.SUPPRESS)
    cli.add_argument("-w", "--warmups", type=int, help=argparse.SUPPRESS)  # the warm-up is by time
    cli.add_argument("--debug-single-value", action="store_true", help=argparse.SUPPRESS)
    cli.add_argument("--inherit-environ", help=argparse.SUPPRESS)  # workers inherit the whole environment


def run_settings_from(args) -> Settings:
    """The rule's Settings (the precision asked for among them), from the presets and the options given."""
    if args.fast and args.rigorous:
        raise UsageError("--fast and --rigorous are two presets of the rule; give one")
    preset = RUN_FAST if args.fast else RUN_RIGOROUS if args.rigorous else RUN_DEFAULT
    target = parse_percent(args.precision, preset.precision, "--precision")
    if not 0 < target < 1:
        raise UsageError(f"--precision {args.precision}: give a percentage between 0 and 100, e.g. 3%")
    min_rounds = preset.min_rounds
    max_rounds = preset.max_rounds if args.max_rounds is None else args.max_rounds
    values = preset.values if args.values is None else args.values
    loops = args.loops
    if args.debug_single_value:
        args.rounds, values, loops = args.rounds or 1, 1, loops or 1
    if args.rounds is not None:
        min_rounds = max_rounds = args.rounds
    return run_settings(target, min_rounds, max_rounds, values, args.cpus, min_time=args.min_time, loops=loops,
                        max_minutes=args.max_time)


def run(args, out: Output) -> int:
    settings = run_settings_from(args)
    say = (lambda line: None) if args.quiet else out.print  # the run's progress lines are its answer, on stdout
    warn = out.say

    installed = []
    if args.with_specs:  # before the selection, which looks for the libraries on sys.path
        from serialbench.sides.run_with import overlay_here

        installed = overlay_here(args.with_specs, warn)  # the workers find it on PYTHONPATH
    python = sys.executable
    if args.python:
        from serialbench.sides.building import resolve_python

        python = resolve_python(args.python)
    benchmarks, cases = select(args.case_dirs, args.patterns, args.tier, args.input, warn, floor=True,
                               payloads=args.payloads)
    root = source_root()
    commit, dirty = commit_and_dirty(root) if root else ("unknown", False)
    path = run_output_path(args.output, args.append, commit, dirty, installed)
    metadata = run_files.run_metadata(commit, dirty, settings, args.malloc_default, args.memcpy_default,
                                      args.with_specs, installed)
    side = Side("run", root or installed_root(), tuple(str(Path(d).resolve()) for d in args.case_dirs), python,
                payloads=payload_arguments(args.payloads),  # a worker builds the payloads again
                variables=tuple(environment.worker_variables(args.malloc_default, args.memcpy_default).items()))
    names = [bench.name for bench in benchmarks]
    floors = floors_of(benchmarks)
    progress = RoundProgress(names, floors, settings, say)
    interrupt_on_sigterm()  # a terminated run writes its file and table, as on Ctrl-C
    say(progress.opening())
    checkpoint = run_files.Checkpoint(path, metadata) if not args.append else (lambda session: None)
    session = run_session([side], names, settings, progress.settle, warn, floors=floors,
                          progress=progress.round_done, checkpoint=checkpoint)
    refusals = refusal_summary(cases, args.payloads, args.patterns)  # what the tables leave out of a payload
    return _finish(session, names, path, metadata, args, progress, say, refusals, out)


def _finish(session, names: list[str], path: str, metadata: dict, args, progress: RoundProgress, say,
            refusals: list[str], out: Output) -> int:
    benches = run_files.run_benchmarks(session, metadata)
    if session.interrupted:
        out.say(f"interrupted after {session.rounds} rounds" + (f": the {len(benches)} benchmarks timed are in {path}"
                                                                 if benches else ": nothing written"))
    if benches:
        run_files.write(path, benches, append=bool(args.append))
        closing = progress.closing()
        if closing:
            say(closing)
        out.print(f"results: {path}")
        if not args.no_summary:
            if refusals:  # what the tables leave out, before them: the run ends with its answer
                out.print()
                out.print("\n".join(refusals))
            _print_summary(path, {bench.get_name() for bench in benches}, out)
    if session.interrupted:
        return 130
    if session.failed:
        out.say(f"{len(session.failed)} of {len(names)} benchmarks not timed: {', '.join(session.failed)}")
        return 1
    return 0


def _print_summary(path: str, names: set[str], out: Output) -> None:
    from serialbench.results.files import load
    from serialbench.views.summary import TERMINAL_WIDTH, summary

    width = shutil.get_terminal_size((TERMINAL_WIDTH, 24)).columns  # 80 when not a terminal
    try:
        text = summary(load(path, with_memory=True), names, width)
    except UsageError as exc:  # e.g. --append to a file another serialbench version wrote
        out.say(f"no summary: {exc}")
        return
    if text:
        out.print()
        out.print(text, end="")
