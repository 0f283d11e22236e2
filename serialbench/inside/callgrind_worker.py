"""compare --instructions' worker: prepare one benchmark, then count its calls under callgrind.

Run in a side's process (inside/start.py) under valgrind, with the side's serialbench first
on PYTHONPATH (serialbench/measure/instructions.py). A first region of one call chooses how many calls
make a region long enough; then regions of K and 2K calls, each inside `sys.call_tracing`, whose
C function toggles collection and dumps the count when it returns.
"""

import gc
import itertools
import json
import sys

from . import side_api


def calls(op, count):
    # itertools.repeat, not range: range makes an int object each call past 256, and whether freeing
    # it moves its pymalloc pool between lists depends on the heap's history (up to 51 instructions a
    # call, 1% of a 40 KB copy, between two processes of one op beside different code).
    for _ in itertools.repeat(None, count):
        op()


def counted(out: str, dump: int) -> int:
    with open(f"{out}.{dump}") as profile:
        for line in profile:
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit("callgrind wrote no summary")


def main(request: dict) -> None:
    api = side_api.load_or_exit("counted")
    benchmarks, cases = api.select_named(request["case_dirs"], [request["name"]], request["payloads"])
    bench = next(b for b in benchmarks if b.name == request["name"])
    op = api.prepare(bench, cases, True, None).op
    calls(op, 2)
    # As the timing worker does between benchmarks (inside/worker.py, release): what exists now is
    # frozen, so that a collection inside a counted region scans the op's own objects, not every
    # object of the libraries and case modules loaded before it (tritonclient's response decoder at
    # 1K was counted 16% dearer beside a case module of unrelated code, the op unchanged).
    gc.collect()
    gc.freeze()
    sys.call_tracing(calls, (op, 1))
    single = max(counted(request["out"], 1), 1)
    count = request["calls"] or 1
    while not request["calls"] and count * 2 * single <= request["target"] and count < request["max_calls"]:
        count *= 2
    calls(op, count)
    sys.call_tracing(calls, (op, count))
    sys.call_tracing(calls, (op, 2 * count))
    print(json.dumps({"calls": count}))
