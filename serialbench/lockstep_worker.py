"""compare's worker: one long-lived process per side per round, timing values when told to.

Started by serialbench/schedule.py as `PYTHON -P lockstep_worker.py CONFIG` with the side's own
serialbench first on PYTHONPATH (its revision, behind its library overlay), so that the cases,
`prepare` and the libraries are the side's, while this file and the timed loop (timeloop.py,
loaded by path from beside this file) are the comparing serialbench's: both sides run the same
loop. The coordinator sends one JSON request per line on stdin and reads one JSON reply per line;
the worker of the other side is alive at the same time and idle while this one times, so that the
two sides' values alternate milliseconds apart (lockstep) and a change of the machine's speed
within seconds falls on both alike.

Requests: {"do": "prepare", "name", "loops" (0: calibrate), "min_time"}, {"do": "sample"} (one
value, in seconds per op), {"do": "release"}, {"do": "exit"}.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import random
import sys
import time
from pathlib import Path


def load_timeloop():
    spec = importlib.util.spec_from_file_location("serialbench_timeloop", Path(__file__).with_name("timeloop.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


timeloop = load_timeloop()


def random_heap_padding():
    """A random amount of live memory: the same code in two checkouts otherwise gets the same heap
    layout in every process, and a layout can make a memory-bound op 1-10% faster or slower for a
    whole comparison. Randomised per process and benchmark, layout is noise that the rounds
    sample, not a bias (Curtsinger and Berger's Stabilizer, in miniature)."""
    return (bytearray(random.randrange(16, 4096)),
            [bytes(random.randrange(1, 500)) for _ in range(random.randrange(256))])


class Worker:
    """The benchmark being timed in this process, between a prepare and a release."""

    def __init__(self, case_dirs, clock=time.thread_time):
        # The calling thread's CPU clock: on a shared machine a process waits for a core for part
        # of its wall time; a thread's clock also leaves out other threads (numpy's OpenBLAS
        # thread spinning after import). An op that hands work to other threads is under-counted;
        # no serializer here does.
        self.case_dirs = case_dirs
        self.clock = clock
        self.time_func = self.op = None
        self.calls = 1
        self.padding = None

    def prepare(self, name: str, loops: int, min_time: float) -> dict:
        from serialbench import registry, runner

        self.release()
        self.padding = random_heap_padding()
        _, _, kind, tier = name.split("/")
        benchmarks, cases = registry.select(self.case_dirs, [name], tier, kind)
        bench = next(b for b in benchmarks if b.name == name)
        prepared = registry.prepare(bench, cases)
        inner = timeloop.UNROLLED_TIERS.get(bench.tier, 1)
        self.op = prepared.op
        self.time_func = timeloop.make_time_func(self.op, inner, self.clock)
        if not loops:
            loops = timeloop.calibrated_loops(self.time_func, min_time)
        self.loops, self.calls = loops, loops * inner
        self.time_func(loops)  # warm-up, not recorded
        metadata = runner.benchmark_metadata(bench, prepared)
        return {"loops": loops, "inner_loops": inner, "metadata": metadata}

    def sample(self) -> float:
        """One value: seconds per op."""
        return self.time_func(self.loops) / self.calls

    def release(self) -> None:
        self.time_func = self.op = self.padding = None
        gc.collect()


def distribution_versions(names) -> dict:
    """The version of each distribution as this process finds it: the overlay's, first on sys.path."""
    from importlib import metadata

    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not found"
    return found


def serve(requests, reply, worker: Worker) -> None:
    for line in requests:
        request = json.loads(line)
        action = request["do"]
        if action == "exit":
            return
        try:
            if action == "prepare":
                answer = worker.prepare(request["name"], request["loops"], request["min_time"])
            elif action == "sample":
                answer = {"seconds": worker.sample()}
            elif action == "release":
                worker.release()
                answer = {}
            else:
                answer = {"error": f"unknown request {action!r}"}
        except Exception as exc:  # noqa: BLE001 - a failing case is reported to the coordinator, not fatal
            answer = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
        reply.write(json.dumps(answer) + "\n")
        reply.flush()


def main() -> None:
    config = json.loads(sys.argv[1])
    # Replies travel on the original stdout; anything a case prints goes to stderr instead.
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    heap_padding = random_heap_padding()  # noqa: F841 - kept alive for the process's life
    from serialbench import registry

    hello = {"serialbench": str(Path(registry.__file__).resolve().parent), "python": sys.version.split()[0],
             "versions": distribution_versions(config.get("distributions", ()))}
    reply.write(json.dumps(hello) + "\n")
    reply.flush()
    serve(sys.stdin, reply, Worker(config["case_dirs"]))


if __name__ == "__main__":
    main()
