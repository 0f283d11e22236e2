"""compare's worker: one long-lived process per side per round, timing values when told to.

Started by serialbench/schedule.py as `PYTHON -P lockstep_worker.py CONFIG` with the side's own
serialbench first on PYTHONPATH (its revision, behind its library overlay), so that the cases,
`prepare` and the libraries are the side's, while this file and the timed loop (timeloop.py,
loaded by path from beside this file) are the comparing serialbench's: both sides run the same
loop. The coordinator sends one JSON request per line on stdin and reads one JSON reply per line;
the worker of the other side is alive at the same time and idle while this one times, so that the
two sides' values alternate milliseconds apart (lockstep) and a change of the machine's speed
within seconds falls on both alike.

Requests: {"do": "prepare", "name", "loops" (0: calibrate), "min_time", "check" (the round trip)},
{"do": "sample", "rewarm"} (one value, in seconds per op, after `rewarm` seconds of untimed calls),
{"do": "release"}, {"do": "exit"}.
"""

from __future__ import annotations

import gc
import importlib.util
import inspect
import json
import os
import random
import sys
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

    def __init__(self, case_dirs, clock=timeloop.CLOCK, payloads=()):
        self.case_dirs = case_dirs
        self.payloads = list(payloads)
        self.clock = clock
        self.time_func = self.op = None
        self.calls = 1
        self.padding = None
        self.selection = None

    def prepare(self, name: str, loops: int, min_time: float, check: bool = True) -> dict:
        registry, benchmark_metadata, _ = side_api()
        if self.op is not None:
            self.release()
        self.padding = random_heap_padding()
        bench, cases = self.find(name)
        prepared = prepare_benchmark(registry, bench, cases, check)
        inner = timeloop.UNROLLED_TIERS.get(bench.tier, 1)
        self.op = prepared.op
        self.time_func = timeloop.make_time_func(self.op, inner, self.clock)
        if not loops:
            loops = timeloop.calibrated_loops(self.time_func, min_time)
        self.loops, self.calls = loops, loops * inner
        if loops > 1 or inner > 1:  # an op that fills a value with one call was warmed by prepare's own call
            self.time_func(loops)  # warm-up, not recorded
        metadata = benchmark_metadata(bench, prepared)
        return {"loops": loops, "inner_loops": inner, "metadata": metadata}

    def find(self, name: str):
        """The benchmark and every case, from one selection per process: selecting looks for every
        case's libraries on sys.path, 25 ms that each prepare of a round would otherwise repeat."""
        registry, _, inputs = side_api()
        if self.selection is None:
            # Only a side whose serialbench knows --payload gets payloads (its `list` checked them).
            mine = {"payloads": self.payloads} if self.payloads else {}
            benchmarks, cases = registry.select(self.case_dirs, [], ",".join(inputs.TIERS),
                                                ",".join(inputs.INPUT_KINDS), **mine)
            self.selection = {bench.name: bench for bench in benchmarks}, cases
        benchmarks, cases = self.selection
        if name not in benchmarks:
            raise LookupError(f"no benchmark {name} in this checkout")
        return benchmarks[name], cases

    def sample(self, rewarm: float = 0.0) -> float:
        """One value: seconds per op, after `rewarm` seconds of untimed calls (timeloop.SLOW_CALL)."""
        if rewarm:
            timeloop.warm_up(self.op, rewarm, self.clock)
        return self.time_func(self.loops) / self.calls

    def release(self) -> None:
        self.time_func = self.op = self.padding = None
        # Collect the benchmark's garbage, then freeze what survives (mostly the libraries that the
        # round's benchmarks imported so far): a full collection scans every live object, and with
        # KServe's server code imported it took 150 ms here, paid on both sides after every
        # benchmark of a round. Frozen, they are skipped by the next collections, including any
        # that falls inside a timed loop, which then scans the objects of the benchmark being
        # timed, not those of whichever libraries the shuffled order imported before it.
        gc.collect()
        gc.freeze()


def side_api():
    """The side's own serialbench, in either layout: (registry, benchmark_metadata, inputs).

    A side may be a revision from before the package had layers (serialbench.registry,
    serialbench.runner.benchmark_metadata, serialbench.inputs); this worker times both."""
    try:
        from serialbench.catalog import inputs, registry
    except ImportError:
        from serialbench import inputs, registry, runner

        return registry, runner.benchmark_metadata, inputs
    return registry, registry.benchmark_metadata, inputs


def prepare_benchmark(registry, bench, cases, check: bool):
    """registry.prepare, without the round-trip check when told so and the side's serialbench
    has the option (a revision older than it always checks)."""
    if check or "check" not in inspect.signature(registry.prepare).parameters:
        return registry.prepare(bench, cases)
    return registry.prepare(bench, cases, check=False)


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
                answer = worker.prepare(request["name"], request["loops"], request["min_time"],
                                        request.get("check", True))
            elif action == "sample":
                answer = {"seconds": worker.sample(request.get("rewarm", 0.0))}
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
    import serialbench

    side_api()  # fails here, in the hello, when the side's serialbench cannot be imported
    hello = {"serialbench": str(Path(list(serialbench.__path__)[0]).resolve()), "python": sys.version.split()[0],
             "versions": distribution_versions(config.get("distributions", ()))}
    reply.write(json.dumps(hello) + "\n")
    reply.flush()
    serve(sys.stdin, reply, Worker(config["case_dirs"], payloads=config.get("payloads", ())))
    # Skip the interpreter's teardown (a third of a second with TensorFlow's modules loaded, for
    # each side at the end of every round): nothing is left to write but stderr.
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
