"""`python -m serialbench memory RESULTS.json`: memory per op, a pass separate from the timings.

pyperf's memory modes replace timings, so memory is measured here (measure/memory.py), for the
benchmarks of a result file, and written beside it as RESULTS.memory.json, which `report` reads:
B/op and allocs/op (memray, native allocations included), peak and retained (tracemalloc). Each
FORMAT/IMPL runs in a fresh interpreter (`python -m serialbench memory --worker ...`) so that one
case's imports and caches do not count against another's. When done, it prints the figures as
`go test -benchmem` does, one line per benchmark beside its median time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from serialbench.catalog.discovery import source_root
from serialbench.catalog.payloads import parse_payload
from serialbench.commands.options import parser, payload_arguments
from serialbench.core.errors import UsageError
from serialbench.core.gitinfo import commit_and_dirty
from serialbench.measure import allocations
from serialbench.measure.memory import DEFAULT_CALLS, worker
from serialbench.results.files import MEMORY_FORMAT, load, memory_path_for
from serialbench.results.selection import select_results
from serialbench.views.benchmem import benchmem

WORKER_TIMEOUT_S = 900


def run(argv: list[str]) -> int:
    cli = parser("memory", "Measure allocations (B/op, allocs/op) and memory per op for the benchmarks of a "
                           "result file; write RESULTS.memory.json beside it for 'report'.")
    cli.add_argument("results", nargs="?", metavar="RESULTS.json", help="result file whose benchmarks to measure")
    cli.add_argument("-b", "--benchmark", dest="patterns", action="append", default=[], metavar="GLOB",
                     help="only benchmarks whose FORMAT/IMPL/INPUT/TIER name matches (repeatable)")
    cli.add_argument("--tier", metavar="T[,T]", help="only these tiers")
    cli.add_argument("--input", metavar="I[,I]", help="only these input kinds")
    cli.add_argument("--payload", dest="payloads", action="append", default=[], metavar="SPEC|FILE|DIR",
                     help="only this payload's benchmarks (repeatable); without it, a payload's benchmarks are "
                          "rebuilt from the spec or file its result file records")
    cli.add_argument("--cases", dest="case_dirs", action="append", default=[], metavar="DIR",
                     help="also load case modules from DIR (as the timing run did)")
    cli.add_argument("--calls", type=int, default=DEFAULT_CALLS, metavar="N",
                     help=f"traced calls per benchmark (default {DEFAULT_CALLS}; fewer for slow ops)")
    cli.add_argument("--force", action="store_true", help="overwrite an existing RESULTS.memory.json")
    cli.add_argument("--worker", nargs="+", metavar="NAME", help=argparse.SUPPRESS)
    args = cli.parse_args(argv)
    if args.calls < 1:
        raise UsageError(f"--calls {args.calls}: give 1 or more")
    if args.worker:
        return worker(args.worker, args.case_dirs, args.calls, args.payloads)
    if not args.results:
        raise UsageError("give the result file whose benchmarks to measure: memory RESULTS.json")

    results = load(args.results, with_memory=False)
    out_path = memory_path_for(args.results)
    if out_path.exists() and not args.force:
        raise UsageError(f"{out_path} exists; pass --force to measure again and overwrite it")
    words = [parse_payload(payload).word for payload in args.payloads]
    inputs = ",".join([*([args.input] if args.input else []), *words]) or None
    selected = select_results(results, args.patterns, args.tier, inputs)
    payloads = payload_arguments(args.payloads) or recorded_payloads(selected)
    groups: dict[str, list[str]] = {}
    for result in selected:
        groups.setdefault(result.row, []).append(result.name)
    missing_counter = allocations.available()
    if missing_counter:
        print(f"B/op and allocs/op not counted: {missing_counter}", file=sys.stderr, flush=True)
    measured, failed, overheads = {}, [], {}
    for index, (row, names) in enumerate(groups.items(), start=1):
        print(f"[{index}/{len(groups)}] {row}: {len(names)} benchmarks", flush=True)
        for entry in _run_worker(names, args.case_dirs, args.calls, payloads):
            if "overhead" in entry:
                overheads[row] = entry["overhead"]
            elif "error" in entry:
                failed.append(entry["name"])
                print(f"  {entry['name']}: not measured ({entry['error']})", file=sys.stderr, flush=True)
            else:
                measured[entry.pop("name")] = entry
        missing = [name for name in names if name not in measured and name not in failed]
        failed.extend(missing)
        for name in missing:
            print(f"  {name}: not measured (the case is not available here)", file=sys.stderr, flush=True)
    _write(out_path, results, measured, overheads, args.calls, args.force)
    table = benchmem([result for result in load(args.results).results if result.name in measured])
    if table:
        print()
        print(table, end="")
    print(f"memory: {out_path} ({len(measured)} benchmarks)")
    if failed:
        print(f"{len(failed)} of {len(selected)} benchmarks not measured: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def recorded_payloads(selected) -> list[str]:
    """The --payload arguments the run of these results was given, as its metadata records them."""
    recorded = (result.benchmark.get_metadata().get("serialbench_payload") for result in selected)
    return list(dict.fromkeys(str(payload) for payload in recorded if payload))


def _run_worker(names: list[str], case_dirs: list[str], calls: int, payloads: list[str]) -> list[dict]:
    cmd = [sys.executable, "-m", "serialbench", "memory", "--calls", str(calls)]
    for directory in case_dirs:
        cmd += ["--cases", os.path.abspath(directory)]
    for payload in payloads:
        cmd += ["--payload", payload]
    cmd += ["--worker", *names]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return [{"name": name, "error": f"no answer within {WORKER_TIMEOUT_S} s"} for name in names]
    entries = []
    for line in done.stdout.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a case that prints: not ours to parse
        if isinstance(entry, dict) and ("name" in entry or "overhead" in entry):
            entries.append(entry)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        seen = {entry.get("name") for entry in entries}
        entries.extend({"name": name, "error": reason} for name in names if name not in seen)
    return entries


def _write(out_path, results, measured: dict, overheads: dict, calls: int, force: bool) -> None:
    root = source_root()
    commit, dirty = commit_and_dirty(root) if root else ("unknown", False)
    data = {
        "serialbench_memory": MEMORY_FORMAT,
        "results_file": os.path.basename(results.path),
        "serialbench_commit": commit,
        "serialbench_dirty": int(dirty),
        "python_version": sys.version.split()[0],
        "calls": calls,
        "method": "bytes_per_op, allocs_per_op: memray (Python and native allocators), regions of K and 2K "
                  "calls (alloc_calls = K), the profiler's frame objects and the harness's overhead (baseline/noop, "
                  "per FORMAT/IMPL worker) taken off; peak, retained: tracemalloc, gc off; peak = max over calls "
                  "of peak above the level before the call; retained = median over calls of memory held when the "
                  "call returns, result alive",
        "overhead": overheads,
        "benchmarks": measured,
    }
    with open(out_path, "w" if force else "x", encoding="utf-8") as out:
        json.dump(data, out, indent=1, sort_keys=False)
        out.write("\n")
