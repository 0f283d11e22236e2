"""`python -m serialbench memory RESULTS.json`: memory per op, a pass separate from the timings.

pyperf's memory modes replace timings, so memory is measured here (measure/memory.py), for the
benchmarks of a result file, and written beside it as RESULTS.memory.json, which `report` reads:
B/op and allocs/op (memray, native allocations included), peak and retained (tracemalloc). Each
FORMAT/IMPL runs in a fresh interpreter (the hidden `worker memory`, serialbench/workers.py) so that
one case's imports and caches do not count against another's. When done, it prints the figures as
`go test -benchmem` does, one line per benchmark beside its median time (views/benchmem.py).

The companion file is never overwritten: when it exists, its figures are shown (and written to
--json and --markdown) without measuring again; remove it to measure again.
"""

from __future__ import annotations

from serialbench import workers
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_filter_arguments, payload_arguments, selected_inputs, whole
from serialbench.inside import allocations
from serialbench.measure.allocations import json_lines
from serialbench.measure.memory import DEFAULT_CALLS
from serialbench.results.files import load, memory_companion, memory_file, memory_path_for, recorded_payloads
from serialbench.results.selection import select_results
from serialbench.views.benchmem import benchmem_document

DESCRIPTION = ("Measure allocations (B/op, allocs/op) and memory per op for the benchmarks of a result file; "
               "write RESULTS.memory.json beside it for 'report'.")


def arguments(cli: Parser) -> None:
    cli.add_argument("results", metavar="RESULTS.json", help="result file whose benchmarks to measure")
    add_filter_arguments(cli)
    cli.add_argument("--calls", type=whole(), default=DEFAULT_CALLS, metavar="N",
                     help=f"traced calls per benchmark (default {DEFAULT_CALLS}; fewer for slow ops)")
    cli.add_json("the table")
    cli.add_markdown("the table")


def run(args, out: Output) -> int:
    results = load(args.results, with_memory=False)
    existing = memory_companion(args.results)
    if existing is not None:
        return show_measured(args, out, existing)
    out_path = memory_path_for(args.results)
    out.claim(out_path, "the memory file")
    selected = select_results(results, args.patterns, args.tier, selected_inputs(args))
    payloads = payload_arguments(args.payloads) or recorded_payloads(selected)
    groups: dict[str, list[str]] = {}
    for result in selected:
        groups.setdefault(result.row, []).append(result.name)
    missing_counter = allocations.available()
    if missing_counter:
        out.say(f"B/op and allocs/op not counted: {missing_counter}")
    measured, failed, overheads = {}, [], {}
    for index, (row, names) in enumerate(groups.items(), start=1):
        out.say(f"[{index}/{len(groups)}] {row}: {len(names)} benchmarks")
        for entry in _run_worker(names, args.case_dirs, args.calls, payloads):
            if "overhead" in entry:
                overheads[row] = entry["overhead"]
            elif "error" in entry:
                failed.append(entry["name"])
                out.say(f"  {entry['name']}: not measured ({entry['error']})")
            else:
                measured[entry.pop("name")] = entry
        missing = [name for name in names if name not in measured and name not in failed]
        failed.extend(missing)
        for name in missing:
            out.say(f"  {name}: not measured (the case is not available here)")
    out.write_file(out_path, memory_file(results.path, measured, overheads, args.calls), "memory")
    show(args, out, out_path)
    if failed:
        out.say(f"{len(failed)} of {len(selected)} benchmarks not measured: {', '.join(failed)}")
        return 1
    return 0


def show_measured(args, out: Output, path) -> int:
    """A companion that exists is never measured over: its figures are the answer."""
    out.say(f"{path} exists and is never overwritten: its figures follow; remove it to measure again")
    show(args, out, path)
    return 0


def show(args, out: Output, path) -> None:
    """The figures of the companion `path` for the selected benchmarks (views/benchmem.py shows those it has)."""
    selected = select_results(load(args.results), args.patterns, args.tier, selected_inputs(args))
    out.document(benchmem_document(selected, str(path)))


def _run_worker(names: list[str], case_dirs: list[str], calls: int, payloads: list[str]) -> list[dict]:
    printed, reason, exited_0 = json_lines(workers.memory_command(names, case_dirs, calls, payloads))
    entries = [entry for entry in printed if "name" in entry or "overhead" in entry]
    seen = {entry.get("name") for entry in entries}
    return entries + ([] if exited_0 else [{"name": name, "error": reason} for name in names if name not in seen])
