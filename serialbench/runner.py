"""pyperf integration: one `bench_time_func` per selected benchmark, set up lazily in its worker.

pyperf re-executes `python -m serialbench` in each worker with `--worker --worker-task N` and
counts `bench_time_func` calls to find task N. So every process selects the same benchmarks in
the same order (the filters travel to the workers through `add_cmdline_args`), and only the
worker whose task it is builds the payload, imports the case's libraries and checks the output.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
from importlib import metadata as importlib_metadata
from pathlib import Path

import pyperf

from serialbench.case import PROJECT_ROOT
from serialbench.errors import UsageError
from serialbench.gitinfo import commit_and_dirty
from serialbench.progress import Progress
from serialbench.registry import Benchmark, CaseFailed, Prepared, prepare, select
from serialbench.results import RESULTS_FORMAT
from serialbench.timeloop import UNROLLED_TIERS, calibrated_loops, make_time_func

RESULTS_DIR = PROJECT_ROOT / "results"
WORKER_FAILED = 3

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
MAX_LOOPS = 2 ** 32  # pyperf's


def add_filter_arguments(parser) -> None:
    """The selection options shared by run, list and the other commands."""
    parser.add_argument("-b", "--benchmark", dest="patterns", action="append", default=[], metavar="GLOB",
                        help="run benchmarks whose FORMAT/IMPL/INPUT/TIER name matches (repeatable); "
                             "'triton-binary/*' covers every input and tier")
    parser.add_argument("--tier", metavar="T[,T]", help="tiers: 1K, 10K, 100K, 1M (default: all)")
    parser.add_argument("--input", metavar="I[,I]", help="input kinds (default: float32, png, int32x3)")
    parser.add_argument("--cases", dest="case_dirs", action="append", default=[], metavar="DIR",
                        help="also load case modules from DIR (repeatable)")


def _forward_filters(cmd: list[str], args) -> None:
    """Give a worker the same selection as the main process (pyperf's add_cmdline_args hook)."""
    for pattern in args.patterns:
        cmd.extend(["-b", pattern])
    if args.tier:
        cmd.extend(["--tier", args.tier])
    if args.input:
        cmd.extend(["--input", args.input])
    for directory in args.case_dirs:
        cmd.extend(["--cases", str(Path(directory).resolve())])
    if args.malloc_default:
        cmd.append("--malloc-default")
    if args.serialbench_calibrate_loops:
        cmd.append("--serialbench-calibrate-loops")
    cmd.extend(["--serialbench-commit", args.serialbench_commit, "--serialbench-dirty", str(args.serialbench_dirty)])


def _usage_error(message: str):
    raise UsageError(message)


def make_runner() -> pyperf.Runner:
    runner = pyperf.Runner(processes=PROCESSES, values=VALUES, min_time=MIN_TIME,
                           add_cmdline_args=_forward_filters, program_args=("-m", "serialbench"))
    parser = runner.argparser
    parser.prog = "python -m serialbench"
    parser.description = ("Time the selected benchmarks, FORMAT/IMPL/INPUT/TIER, with pyperf, and end with a table "
                          "of their medians. baseline/tobytes, the memcpy floor, always runs for every selected "
                          "input and tier, so that each result has its multiple of memcpy.")
    add_filter_arguments(parser)
    parser.add_argument("--malloc-default", action="store_true",
                        help="keep glibc's default malloc trimming in workers (see steady_allocator)")
    parser.add_argument("--no-summary", action="store_true",
                        help="do not end the run with the table of medians and multiples of the memcpy floor")
    parser.add_argument("--serialbench-commit", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--serialbench-dirty", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--serialbench-calibrate-loops", action="store_true", help=argparse.SUPPRESS)
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
    # The floor always runs, so that every result has its multiple of memcpy; main process and
    # workers alike, so that task N is the same benchmark in every process.
    benchmarks, cases = select(args.case_dirs, args.patterns, args.tier, args.input, warn, floor=True)
    if args.serialbench_commit is None:
        commit, dirty = commit_and_dirty(PROJECT_ROOT)
        args.serialbench_commit, args.serialbench_dirty = commit, int(dirty)
    runner.metadata["serialbench_commit"] = args.serialbench_commit
    runner.metadata["serialbench_dirty"] = args.serialbench_dirty
    if not is_worker and not args.output and not args.append and not args.compare_to:
        args.output = str(unique_results_path(args.serialbench_commit, bool(args.serialbench_dirty)))

    runner.metadata["serialbench_results_format"] = RESULTS_FORMAT
    runner.metadata["serialbench_malloc"] = "default" if args.malloc_default else "steady"
    if is_worker:
        if not args.malloc_default:
            steady_allocator()
        return _run_worker(runner, benchmarks, cases, args.worker_task)
    return _run_main(runner, benchmarks, args)


def steady_allocator() -> bool:
    """Keep freed memory in the worker, as the allocator of a warm, long-running client does.

    With glibc's defaults, an op that frees multi-MB buffers hands them back to the kernel after
    each call (heap trim, or munmap of an mmapped chunk) and page-faults them in again on the
    next: at 1M that measured ~2,000 faults per call (~13 us each on these VMs), and identical
    bytes timed up to 30x apart depending on each worker's allocation history. Raising both
    thresholds makes the time the serializer's own. `--malloc-default` measures glibc as is.
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc: nothing to tune
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    mmap_threshold_max = 4 * 1024 * 1024 * ctypes.sizeof(ctypes.c_long)  # glibc's ceiling: 32 MB
    return bool(mallopt(m_trim_threshold, 1 << 30)) and bool(mallopt(m_mmap_threshold, mmap_threshold_max))


def unique_results_path(commit: str, dirty: bool) -> Path:
    """results/<short-sha>[-dirty].json, or with -2, -3... so no earlier run is overwritten."""
    RESULTS_DIR.mkdir(exist_ok=True)
    stem = commit[:10] + ("-dirty" if dirty else "")
    path = RESULTS_DIR / f"{stem}.json"
    counter = 2
    while path.exists():
        path = RESULTS_DIR / f"{stem}-{counter}.json"
        counter += 1
    return path


def _run_main(runner: pyperf.Runner, benchmarks: list[Benchmark], args) -> int:
    failed = []
    total = len(benchmarks)
    progress = Progress(total)
    say = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
    own_display = _own_display(args)
    for index, bench in enumerate(benchmarks, start=1):
        say(progress.starting(index, bench.name))
        try:
            with _quietly(own_display):
                result = runner.bench_time_func(bench.name, _never_called, inner_loops=UNROLLED_TIERS.get(bench.tier))
        except RuntimeError as exc:
            # The worker printed the reason; pyperf did not count this task, so keep the index in step.
            runner._worker_task += 1
            failed.append(bench.name)
            print(f"[{index}/{total}] {bench.name}: not timed ({exc})", file=sys.stderr, flush=True)
            continue
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
    if failed:
        print(f"{len(failed)} of {total} benchmarks not timed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _own_display(args) -> bool:
    """Whether serialbench prints each result, not pyperf: unless the user asked for pyperf's detail."""
    return not (args.verbose or args.hist or args.stats or args.dump or args.metadata or args.compare_to)


def _quietly(hide: bool):
    """Hide what pyperf prints in this process (workers write to the terminal directly)."""
    return contextlib.redirect_stdout(io.StringIO()) if hide else contextlib.nullcontext()


def _print_summary(path: str, names: set[str]) -> None:
    from serialbench.results import load
    from serialbench.summary import TERMINAL_WIDTH, summary

    width = shutil.get_terminal_size((TERMINAL_WIDTH, 24)).columns  # 80 when not a terminal
    try:
        text = summary(load(path, with_memory=False), names, width)
    except UsageError as exc:  # e.g. --append to a file another serialbench version wrote
        print(f"no summary: {exc}", file=sys.stderr)
        return
    if text:
        print()
        print(text, end="")


def _never_called(loops):  # the main process only spawns workers
    raise AssertionError("time_func runs in workers only")


def _run_worker(runner: pyperf.Runner, benchmarks: list[Benchmark], cases, task: int) -> int:
    for index, bench in enumerate(benchmarks):
        if index != task:
            runner.bench_time_func(bench.name, _never_called)  # counted and skipped by pyperf
            continue
        try:
            prepared = prepare(bench, cases)
        except CaseFailed as exc:
            print(f"serialbench: {exc}", file=sys.stderr, flush=True)
            return WORKER_FAILED
        inner_loops = UNROLLED_TIERS.get(bench.tier, 1)
        metadata = benchmark_metadata(bench, prepared)
        startup = process_age()  # process start to the first timed loop: the worker's own cost
        if startup is not None:
            metadata["serialbench_worker_startup_s"] = round(startup, 3)
        time_func = make_time_func(prepared.op, inner_loops)
        if runner.args.serialbench_calibrate_loops:
            runner.args.loops = calibrated_loops(time_func, runner.args.min_time, MAX_LOOPS)
        runner.bench_time_func(
            bench.name,
            time_func,
            inner_loops=inner_loops if inner_loops > 1 else None,
            metadata=metadata,
        )
    return 0


def process_age() -> float | None:
    """Seconds since this process started, from /proc (Linux); None elsewhere."""
    try:
        with open("/proc/self/stat") as stat:
            start_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as uptime:
            uptime_s = float(uptime.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return uptime_s - start_ticks / os.sysconf("SC_CLK_TCK")


def benchmark_metadata(bench: Benchmark, prepared: Prepared) -> dict:
    case = bench.case
    data = {
        "serialbench_format": case.format,
        "serialbench_impl": case.impl,
        "serialbench_input": bench.input,
        "serialbench_tier": bench.tier,
        "serialbench_direction": case.direction,
        "input_bytes": prepared.payload.input_bytes,
        "payload_bytes": len(prepared.wire),
    }
    for dist in ("numpy", *case.libraries):
        version = library_version(dist)
        if version:
            data[f"{dist.replace('-', '_')}_version"] = version
    return data


def library_version(dist: str) -> str | None:
    try:
        return importlib_metadata.version(dist)
    except importlib_metadata.PackageNotFoundError:
        return None
