"""`python -m serialbench memory RESULTS.json`: memory per op, a pass separate from the timings.

pyperf's memory modes replace timings, so memory is measured here, for the benchmarks of a result
file, and written beside it as RESULTS.memory.json, which `report` reads. Each FORMAT/IMPL runs
in a fresh interpreter (`python -m serialbench.memory --worker ...`) so that one case's imports
and caches do not count against another's.

Per benchmark, with tracemalloc on and the garbage collector off, each call of the op records:
- peak: the most traced memory above the level before the call, while the call ran (the
  request's working memory, transient objects included: `tolist()` makes one Python float per
  element);
- retained: traced memory still held when the call returns, its result alive (the body itself,
  or next to nothing for a case that hands back views of its input).
tracemalloc sees Python's allocators and numpy's array buffers; memory a C library allocates on
its own (protobuf's arenas, rapidjson's buffers) is not seen. Like Go's B/op, the numbers are per
op; unlike it, they are not a total of everything allocated, which CPython does not count.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc

from serialbench.errors import UsageError
from serialbench.results import MEMORY_FORMAT, load, memory_path_for

DEFAULT_CALLS = 5
TIME_BUDGET_S = 2.0  # per benchmark: a slow op stops after two calls once the budget is spent
WORKER_TIMEOUT_S = 900


def measure(op, calls: int = DEFAULT_CALLS, budget_s: float = TIME_BUDGET_S) -> dict:
    """{"peak_bytes", "retained_bytes", "calls"} of `op` (peak: the largest; retained: the median)."""
    op()  # first call outside the trace: lazy imports and first-use caches are not per-op costs
    gc.collect()
    gc_was_enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    peaks, retained = [], []
    try:
        deadline = time.perf_counter() + budget_s
        for done in range(1, calls + 1):
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            result = op()
            current, peak = tracemalloc.get_traced_memory()
            del result
            peaks.append(peak - before)
            retained.append(current - before)
            if done >= 2 and time.perf_counter() > deadline:
                break
    finally:
        tracemalloc.stop()
        if gc_was_enabled:
            gc.enable()
    return {"peak_bytes": max(peaks), "retained_bytes": int(statistics.median(retained)), "calls": len(peaks)}


def _worker(names: list[str], case_dirs: list[str], calls: int) -> int:
    """Measure `names` (one FORMAT/IMPL) and print one JSON line per benchmark."""
    from serialbench.registry import CaseFailed, prepare, select

    tiers = ",".join(dict.fromkeys(name.split("/")[3] for name in names))
    inputs = ",".join(dict.fromkeys(name.split("/")[2] for name in names))
    benchmarks, cases = select(case_dirs, names, tiers, inputs)
    for bench in benchmarks:
        try:
            prepared = prepare(bench, cases)
            entry = {"name": bench.name, **measure(prepared.op, calls)}
        except CaseFailed as exc:
            entry = {"name": bench.name, "error": str(exc)}
        except MemoryError as exc:
            entry = {"name": bench.name, "error": f"MemoryError: {exc}"}
        print(json.dumps(entry), flush=True)
    return 0


def run(argv: list[str]) -> int:
    from serialbench.listing import parser

    cli = parser("memory", "Measure memory per op (tracemalloc) for the benchmarks of a result file; "
                           "write RESULTS.memory.json beside it for 'report'.")
    cli.add_argument("results", nargs="?", metavar="RESULTS.json", help="result file whose benchmarks to measure")
    cli.add_argument("-b", "--benchmark", dest="patterns", action="append", default=[], metavar="GLOB",
                     help="only benchmarks whose FORMAT/IMPL/INPUT/TIER name matches (repeatable)")
    cli.add_argument("--tier", metavar="T[,T]", help="only these tiers")
    cli.add_argument("--input", metavar="I[,I]", help="only these input kinds")
    cli.add_argument("--cases", dest="case_dirs", action="append", default=[], metavar="DIR",
                     help="also load case modules from DIR (as the timing run did)")
    cli.add_argument("--calls", type=int, default=DEFAULT_CALLS, metavar="N",
                     help=f"traced calls per benchmark (default {DEFAULT_CALLS}; fewer for slow ops)")
    cli.add_argument("--force", action="store_true", help="overwrite an existing RESULTS.memory.json")
    cli.add_argument("--worker", nargs="+", metavar="NAME", help=argparse_suppress())
    args = cli.parse_args(argv)
    if args.calls < 1:
        raise UsageError(f"--calls {args.calls}: give 1 or more")
    if args.worker:
        return _worker(args.worker, args.case_dirs, args.calls)
    if not args.results:
        raise UsageError("give the result file whose benchmarks to measure: memory RESULTS.json")

    from serialbench.report import select_results

    results = load(args.results, with_memory=False)
    out_path = memory_path_for(args.results)
    if out_path.exists() and not args.force:
        raise UsageError(f"{out_path} exists; pass --force to measure again and overwrite it")
    selected = select_results(results, args.patterns, args.tier, args.input)
    groups: dict[str, list[str]] = {}
    for result in selected:
        groups.setdefault(result.row, []).append(result.name)
    measured, failed = {}, []
    for index, (row, names) in enumerate(groups.items(), start=1):
        print(f"[{index}/{len(groups)}] {row}: {len(names)} benchmarks", flush=True)
        for entry in _run_worker(names, args.case_dirs, args.calls):
            if "error" in entry:
                failed.append(entry["name"])
                print(f"  {entry['name']}: not measured ({entry['error']})", file=sys.stderr, flush=True)
            else:
                measured[entry.pop("name")] = entry
        missing = [name for name in names if name not in measured and name not in failed]
        failed.extend(missing)
        for name in missing:
            print(f"  {name}: not measured (the case is not available here)", file=sys.stderr, flush=True)
    _write(out_path, results, measured, args.calls, args.force)
    print(f"memory: {out_path} ({len(measured)} benchmarks)")
    if failed:
        print(f"{len(failed)} of {len(selected)} benchmarks not measured: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _run_worker(names: list[str], case_dirs: list[str], calls: int) -> list[dict]:
    cmd = [sys.executable, "-m", "serialbench.memory", "--calls", str(calls)]
    for directory in case_dirs:
        cmd += ["--cases", os.path.abspath(directory)]
    cmd += ["--worker", *names]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return [{"name": name, "error": f"no answer within {WORKER_TIMEOUT_S} s"} for name in names]
    entries = []
    for line in done.stdout.splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a case that prints: not ours to parse
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        seen = {entry["name"] for entry in entries}
        entries.extend({"name": name, "error": reason} for name in names if name not in seen)
    return entries


def _write(out_path, results, measured: dict, calls: int, force: bool) -> None:
    from serialbench.case import PROJECT_ROOT
    from serialbench.gitinfo import commit_and_dirty

    commit, dirty = commit_and_dirty(PROJECT_ROOT)
    data = {
        "serialbench_memory": MEMORY_FORMAT,
        "results_file": os.path.basename(results.path),
        "serialbench_commit": commit,
        "serialbench_dirty": int(dirty),
        "python_version": sys.version.split()[0],
        "calls": calls,
        "method": "tracemalloc, gc off; peak = max over calls of peak above the level before the call; "
                  "retained = median over calls of memory held when the call returns, result alive",
        "benchmarks": measured,
    }
    with open(out_path, "w" if force else "x", encoding="utf-8") as out:
        json.dump(data, out, indent=1, sort_keys=False)
        out.write("\n")


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":  # the pass runs its workers as `python -m serialbench.memory`
    try:
        sys.exit(run(sys.argv[1:]))
    except UsageError as exc:
        print(f"serialbench: error: {exc}", file=sys.stderr)
        sys.exit(2)
