"""`python -m serialbench [options]`, the run: every selected benchmark timed by pyperf, then the table.

pyperf's Runner is both the main process and, re-executed with `--worker`, each worker
(measure/pyperf_worker.py); the filters travel to the workers through `add_cmdline_args`. The main
process prints a line per benchmark (views/progress.py) and ends with the medians and their
multiples of the memcpy floor (views/summary.py).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
from pathlib import Path

import pyperf

from serialbench.catalog.discovery import source_root
from serialbench.catalog.registry import Benchmark, library_version, refusal_summary, select
from serialbench.commands.options import add_filter_arguments, add_with_argument, payload_arguments
from serialbench.core.errors import UsageError
from serialbench.core.gitinfo import commit_and_dirty
from serialbench.measure import environment
from serialbench.measure.pyperf_worker import never_called, run_worker
from serialbench.measure.timeloop import UNROLLED_TIERS
from serialbench.results.files import RESULTS_FORMAT
from serialbench.results.paths import run_stem, safe_stem, unique_paths
from serialbench.views.progress import Progress

# Run-time parameters (issue 6, run-time budget). pyperf's defaults, 20 workers x 3 values of
# 0.1 s (--fast: 10 x 2), cost ~7 s per benchmark here, most of it worker start-up (0.15-0.5 s
# each on a 2-core VM, by load: Python, numpy, pyperf, prepare), and the suite has 500+
# benchmarks. So: fewer workers, and shorter values.
PROCESSES = 6  # workers per benchmark in the default run, besides the one that calibrates loops
VALUES = 3  # values per worker after one warm-up
MIN_TIME = 0.05  # seconds per value
# --fast, a first look: one worker process per benchmark, three short values. pyperf would spend
# a process of its own on calibrating the loop count (start-up and values thrown away: a third
# of the run); this worker calibrates its loops itself, the same way (double until a value takes
# --min-time), and the doubling warms the op up, as does the round-trip check before it
# (registry.prepare): at 1M a JSON op takes up to 2 s a call. Its std dev sees only the noise
# within one process, not between processes; `compare` is the tool for small differences.
# Options given explicitly win (with --loops N, no calibration at all).
FAST = {"processes": 1, "values": 3, "warmups": 0, "min_time": 0.02}


def _forward_filters(cmd: list[str], args) -> None:
    """Give a worker the same selection as the main process (pyperf's add_cmdline_args hook)."""
    for pattern in args.patterns:
        cmd.extend(["-b", pattern])
    if args.tier:
        cmd.extend(["--tier", args.tier])
    if args.input:
        cmd.extend(["--input", args.input])
    for payload in payload_arguments(args.payloads):  # a worker reads a payload's file again
        cmd.extend(["--payload", payload])
    for directory in args.case_dirs:
        cmd.extend(["--cases", str(Path(directory).resolve())])
    if args.malloc_default:
        cmd.append("--malloc-default")
    if args.memcpy_default:
        cmd.append("--memcpy-default")
    if args.serialbench_calibrate_loops:
        cmd.append("--serialbench-calibrate-loops")
    cmd.extend(["--serialbench-commit", args.serialbench_commit, "--serialbench-dirty", str(args.serialbench_dirty)])
    if args.serialbench_with:  # the workers find the overlay on PYTHONPATH; this names it in their metadata
        cmd.extend(["--serialbench-with", args.serialbench_with])


def _usage_error(message: str):
    raise UsageError(message)


def make_runner() -> pyperf.Runner:
    runner = pyperf.Runner(processes=PROCESSES, values=VALUES, min_time=MIN_TIME,
                           add_cmdline_args=_forward_filters, program_args=("-m", "serialbench"))
    parser = runner.argparser
    parser.prog = "python -m serialbench"
    parser.description = ("Time the selected benchmarks, FORMAT/IMPL/INPUT/TIER, with pyperf, and end with a table "
                          "of their medians. baseline/tobytes, the memcpy floor, always runs for every selected "
                          "input it covers (float32, png, int32x3) and tier, so that each of their results has "
                          "its multiple of memcpy.")
    add_filter_arguments(parser)
    parser.add_argument("--malloc-default", action="store_true",
                        help="keep glibc's default malloc trimming in workers (README, 'What the noise is')")
    parser.add_argument("--memcpy-default", action="store_true",
                        help="let glibc's memcpy use rep movsb, whose speed on AMD Zen depends on each worker's "
                             "heap layout (README, 'What the noise is')")
    parser.add_argument("--no-summary", action="store_true",
                        help="do not end the run with the table of medians and multiples of the memcpy floor")
    add_with_argument(parser, "the run and its workers (through PYTHONPATH)")
    parser.add_argument("--serialbench-commit", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--serialbench-dirty", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--serialbench-calibrate-loops", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serialbench-with", default=None, help=argparse.SUPPRESS)
    parser.error = _usage_error  # one line and exit status 2, not argparse's usage block
    return runner


def _given_timing_options(argv: list[str]) -> dict:
    """The timing options on the command line (None where absent); pyperf has already checked them."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("-p", "--processes", type=int)
    pre.add_argument("-n", "--values", type=int)
    pre.add_argument("-w", "--warmups", type=int)
    pre.add_argument("--min-time", type=float)
    known, _ = pre.parse_known_args(argv)
    return vars(known)


def _refuse_existing_output(argv: list[str]) -> None:
    """pyperf refuses an existing -o file with exit status 1; say it our way, before any work."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("-o", "--output")
    known, _ = pre.parse_known_args(argv)
    if known.output and os.path.exists(known.output) and "--worker" not in argv:
        raise UsageError(f"{known.output} exists and is never overwritten; "
                         "give a new -o FILE, or --append FILE to add runs to it")


def run(argv: list[str]) -> int:
    _refuse_existing_output(argv)
    runner = make_runner()
    args = runner.parse_args(argv)
    is_worker = args.worker
    if args.fast and not is_worker:
        given = _given_timing_options(argv)  # pyperf's --fast overrides even an explicit -p
        for option, value in FAST.items():
            setattr(args, option, value if given[option] is None else given[option])
        if not args.loops:
            # pyperf's manager calibrates when loops is 0; 1 stands in, each worker calibrates
            args.loops, args.serialbench_calibrate_loops = 1, True
    warn = (lambda message: None) if is_worker else (lambda message: print(message, file=sys.stderr))
    installed = []
    if args.with_specs and not is_worker:  # before the selection, which looks for the libraries on sys.path
        from serialbench.measure.side_setup import overlay_here

        installed = overlay_here(args.with_specs, warn)  # pyperf passes PYTHONPATH on to its workers
        args.serialbench_with = ", ".join(installed) or "nothing"
    if args.serialbench_with:
        runner.metadata["serialbench_with"] = args.serialbench_with
    # The floor always runs, so that every result has its multiple of memcpy; main process and
    # workers alike, so that task N is the same benchmark in every process.
    benchmarks, cases = select(args.case_dirs, args.patterns, args.tier, args.input, warn, floor=True,
                               payloads=args.payloads)
    if args.serialbench_commit is None:
        root = source_root()
        commit, dirty = commit_and_dirty(root) if root else ("unknown", False)
        args.serialbench_commit, args.serialbench_dirty = commit, int(dirty)
    runner.metadata["serialbench_commit"] = args.serialbench_commit
    runner.metadata["serialbench_dirty"] = args.serialbench_dirty
    runner.metadata["serialbench_version"] = library_version("serialbench") or "unknown"
    runner.metadata["serialbench_results_format"] = RESULTS_FORMAT
    state = environment.metadata(args.malloc_default, args.memcpy_default)
    if is_worker:
        return run_worker(runner, benchmarks, cases, args.worker_task, args.serialbench_calibrate_loops, state)
    # The workers' process state travels in their environment, set before they start (glibc reads
    # its tunables at start-up): pyperf passes on only the variables it is told to.
    variables = environment.worker_variables(args.malloc_default, args.memcpy_default)
    os.environ.update(variables)
    args.inherit_environ = [*(args.inherit_environ or []), *variables]
    if not args.output and not args.append and not args.compare_to:
        stem = run_stem(args.serialbench_commit, bool(args.serialbench_dirty))
        args.output = str(unique_paths(stem + (f"-with-{safe_stem(', '.join(installed))}" if installed else ""))[0])
    return _run_main(runner, benchmarks, args, cases)


def _run_main(runner: pyperf.Runner, benchmarks: list[Benchmark], args, cases=()) -> int:
    failed = []
    total = len(benchmarks)
    progress = Progress(total)
    say = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
    own_display = _own_display(args)
    finished: list[str] = []
    for index, bench in enumerate(benchmarks, start=1):
        say(progress.starting(index, bench.name))
        try:
            with _quietly(own_display):
                result = runner.bench_time_func(bench.name, never_called, inner_loops=UNROLLED_TIERS.get(bench.tier))
        except (KeyboardInterrupt, SystemExit) as exc:
            # pyperf turns Ctrl-C into "Benchmark interrupted: exit" and sys.exit(1); it has written
            # every finished benchmark to the file, which the user should hear.
            if isinstance(exc, SystemExit) and not isinstance(exc.__context__, KeyboardInterrupt):
                raise
            return _interrupted(args, finished, total)
        except RuntimeError as exc:
            # The worker printed the reason; pyperf did not count this task, so keep the index in step.
            runner._worker_task += 1
            failed.append(bench.name)
            print(f"[{index}/{total}] {bench.name}: not timed ({exc})", file=sys.stderr, flush=True)
            continue
        finished.append(bench.name)
        if result is not None:  # None with --compare-to, whose display is pyperf's
            line = progress.finished(result)
            if own_display:
                say(line)
    closing = progress.closing()
    if closing:
        say(closing)
    written = args.output or args.append
    if written and os.path.exists(written):
        print(f"results: {written}")
        if not args.no_summary:
            _print_summary(written, {b.name for b in benchmarks} - set(failed))
            refusals = refusal_summary(cases, args.payloads, args.patterns)
            if refusals:  # what the tables leave out of a payload, and why
                print()
                print("\n".join(refusals))
    if failed:
        print(f"{len(failed)} of {total} benchmarks not timed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _interrupted(args, finished: list[str], total: int) -> int:
    written = args.output or args.append
    if finished and written and os.path.exists(written):
        print(f"interrupted: the {len(finished)} finished benchmarks of {total} are in {written}", file=sys.stderr)
        if not args.no_summary:
            _print_summary(written, set(finished))
    else:
        print("interrupted before any benchmark finished: nothing written", file=sys.stderr)
    return 130


def _own_display(args) -> bool:
    """Whether serialbench prints each result, not pyperf: unless the user asked for pyperf's detail."""
    return not (args.verbose or args.hist or args.stats or args.dump or args.metadata or args.compare_to)


def _quietly(hide: bool):
    """Hide what pyperf prints in this process (workers write to the terminal directly)."""
    return contextlib.redirect_stdout(io.StringIO()) if hide else contextlib.nullcontext()


def _print_summary(path: str, names: set[str]) -> None:
    from serialbench.results.files import load
    from serialbench.views.summary import TERMINAL_WIDTH, summary

    width = shutil.get_terminal_size((TERMINAL_WIDTH, 24)).columns  # 80 when not a terminal
    try:
        text = summary(load(path, with_memory=True), names, width)
    except UsageError as exc:  # e.g. --append to a file another serialbench version wrote
        print(f"no summary: {exc}", file=sys.stderr)
        return
    if text:
        print()
        print(text, end="")
