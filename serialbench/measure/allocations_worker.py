"""compare --memory's worker: B/op and allocs/op of some benchmarks of one FORMAT/IMPL on one side.

Run as `PYTHON -P allocations_worker.py REQUEST` with the side's serialbench first on PYTHONPATH
(measure/sides.py): the benchmarks come from the side's catalog, the counting from the
allocations.py beside this file, loaded by path, since the side's serialbench may predate it. It
prints the harness's own counts (baseline/noop) first, then one JSON line per benchmark, the
harness's taken off.
"""

import importlib.util
import json
import runpy
import sys
from pathlib import Path


def load_counter():
    counter = Path(__file__).with_name("allocations.py")
    spec = importlib.util.spec_from_file_location("_serialbench_allocations", counter)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> None:
    api = runpy.run_path(str(Path(__file__).with_name("side_api.py")))["load_or_exit"]("counted")
    allocations = load_counter()
    missing = allocations.available()
    if missing:
        raise SystemExit(missing)
    request = json.loads(sys.argv[1])
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


if __name__ == "__main__":
    main()
