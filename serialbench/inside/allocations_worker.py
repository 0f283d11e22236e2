"""compare --memory's worker: B/op and allocs/op of some benchmarks of one FORMAT/IMPL on one side.

Run in a side's process (inside/start.py, measure/allocations.py) with the side's serialbench first on
PYTHONPATH: the benchmarks come from the side's catalog, the counting from the allocations.py beside
this file, since the side's serialbench may predate it. It
prints the harness's own counts (baseline/noop) first, then one JSON line per benchmark, the
harness's taken off.
"""

import json

from . import allocations, side_api


def main(request: dict) -> None:
    api = side_api.load_or_exit("counted")
    missing = allocations.available()
    if missing:
        raise SystemExit(missing)
    names = request["names"]
    noops, noop_cases = api.select_named([], ["baseline/noop/float32/1K"], [])
    noop = api.prepare(noops[0], noop_cases, True, None).op
    noop()
    overhead = allocations.count(noop)
    print(json.dumps({"overhead": [overhead.bytes_per_op, overhead.allocs_per_op]}), flush=True)
    benchmarks, cases = api.select_named(request["case_dirs"], names, request["payloads"])
    for bench in benchmarks:
        try:
            op = api.prepare(bench, cases, True, None).op
            op()
            counted = allocations.count(op).minus(overhead)
            entry = {"name": bench.name, "bytes_per_op": counted.bytes_per_op, "allocs_per_op": counted.allocs_per_op}
        except Exception as exc:  # noqa: BLE001 - one benchmark's failure is reported on its row
            entry = {"name": bench.name, "error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(entry), flush=True)

