"""compare --instructions' worker: prepare one benchmark, then count its calls under callgrind.

Run as `PYTHON -P callgrind_worker.py REQUEST` under valgrind, with the side's serialbench first
on PYTHONPATH (serialbench/measure/instructions.py). A first region of one call chooses how many calls
make a region long enough; then regions of K and 2K calls, each inside `sys.call_tracing`, whose
C function toggles collection and dumps the count when it returns.
"""

import json
import runpy
import sys
from pathlib import Path


def calls(op, count):
    for _ in range(count):
        op()


def counted(out: str, dump: int) -> int:
    with open(f"{out}.{dump}") as profile:
        for line in profile:
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit("callgrind wrote no summary")


def main() -> None:
    api = runpy.run_path(str(Path(__file__).with_name("side_api.py")))["load_or_exit"]("counted")
    request = json.loads(sys.argv[1])
    benchmarks, cases = api.select_named(request["case_dirs"], [request["name"]], request["payloads"])
    bench = next(b for b in benchmarks if b.name == request["name"])
    op = api.prepare(bench, cases, True, None).op
    calls(op, 2)
    sys.call_tracing(calls, (op, 1))
    single = max(counted(request["out"], 1), 1)
    count = request["calls"] or 1
    while not request["calls"] and count * 2 * single <= request["target"] and count < request["max_calls"]:
        count *= 2
    calls(op, count)
    sys.call_tracing(calls, (op, count))
    sys.call_tracing(calls, (op, 2 * count))
    print(json.dumps({"calls": count}))


if __name__ == "__main__":
    main()
