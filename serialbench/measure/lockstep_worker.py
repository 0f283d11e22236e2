"""compare's worker: one long-lived process per side per round, timing values when told to.

Started by measure/schedule.py as `PYTHON -P lockstep_worker.py CONFIG` with the side's own
serialbench first on PYTHONPATH (its revision, behind its library overlay), so that the cases,
`prepare` and the libraries are the side's, while this file and the timed loop (timeloop.py,
loaded by path from beside this file) are the comparing serialbench's: both sides run the same
loop. The coordinator sends one JSON request per line on stdin and reads one JSON reply per line;
the worker of the other side is alive at the same time and idle while this one times, so that the
two sides' values alternate milliseconds apart (lockstep) and a change of the machine's speed
within seconds falls on both alike.

The run (commands/run.py) uses the same worker for its one side: a process holds a benchmark and
its memcpy floor at once (two slots) and alternates their values, so that the benchmark's multiple
of the floor is a ratio of values milliseconds apart, as compare's HEAD/BASE is.

Requests: {"do": "prepare", "name", "loops" (0: calibrate), "inner_loops" (the plan's, with its
loops), "min_time", "check" (the round trip), "slot" (0, the default, starts a new benchmark; 1
prepares a second op beside it), "time_call" (answer prepare's own call of the op as "first_call",
in seconds)},
{"do": "sample", "rewarm", "rewarm_calls", "slot"} (one value, in seconds per op, after `rewarm`
seconds or `rewarm_calls` calls of untimed calls), {"do": "cycles", "count", "slots", "warm",
"rewarm_calls"} (each slot's op warmed, then `count` cycles of a value of each slot listed, in turn:
{"values": one list per slot listed}; see Worker.cycles), {"do": "release"}, {"do": "exit"}.
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


class Slot:
    """One prepared op: its timed loop and the live memory that randomises its heap."""

    def __init__(self, op, time_func, loops: int, calls: int, padding):
        self.op, self.time_func, self.loops, self.calls, self.padding = op, time_func, loops, calls, padding

    def value(self, rewarm: float, rewarm_calls: int, clock) -> float:
        """One value in seconds per op, after `rewarm` seconds or `rewarm_calls` calls of untimed calls."""
        if rewarm:
            timeloop.warm_up(self.op, rewarm, clock)
        for _ in range(rewarm_calls):
            self.op()
        return self.time_func(self.loops) / self.calls


class Worker:
    """The benchmark being timed in this process, between a prepare and a release: its op in slot 0,
    and optionally a second op (the run's memcpy floor) in slot 1."""

    def __init__(self, case_dirs, clock=timeloop.CLOCK, payloads=()):
        self.case_dirs = case_dirs
        self.payloads = list(payloads)
        self.clock = clock
        self.slots: dict[int, Slot] = {}
        self.selection = None

    @property
    def op(self):
        return self.slots[0].op if 0 in self.slots else None

    @property
    def time_func(self):
        return self.slots[0].time_func if 0 in self.slots else None

    def prepare(self, name: str, loops: int, min_time: float, check: bool = True, slot: int = 0,
                time_call: bool = False, inner_loops: int | None = None) -> dict:
        """Build the op in `slot`; with time_call, the answer's "first_call" is the seconds of prepare's
        own call of it (None when the side's serialbench cannot time it). Calibrating (loops 0), the
        calls per loop iteration follow the tier and that call (timeloop.inner_loops); a plan passes
        its own inner_loops with its loops, so that every process of it times the same loop."""
        registry, benchmark_metadata, _ = side_api()
        if slot == 0 and self.slots:
            self.release()
        padding = random_heap_padding()
        bench, cases = self.find(name)
        prepared = prepare_benchmark(registry, bench, cases, check, self.clock if time_call else None)
        first_call = getattr(prepared, "first_call", None) if time_call else None
        inner = inner_loops or timeloop.inner_loops(bench.tier, None if loops else first_call)
        time_func = timeloop.make_time_func(prepared.op, inner, self.clock)
        if not loops:
            # An op of seconds a call fills a value with one: its timed call says so without another.
            timed = first_call is not None and first_call >= timeloop.TIMED_FIRST_CALL and inner == 1
            loops = 1 if timed else timeloop.calibrated_loops(time_func, min_time)
        self.slots[slot] = Slot(prepared.op, time_func, loops, loops * inner, padding)
        if loops > 1 or inner > 1:  # an op that fills a value with one call was warmed by prepare's own call
            time_func(loops)  # warm-up, not recorded
        metadata = benchmark_metadata(bench, prepared)
        answer = {"loops": loops, "inner_loops": inner, "metadata": metadata}
        if time_call:
            answer["first_call"] = first_call
        return answer

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

    def sample(self, rewarm: float = 0.0, slot: int = 0, rewarm_calls: int = 0) -> float:
        """One value: seconds per op, after `rewarm` seconds or `rewarm_calls` calls of untimed calls
        (timeloop.SLOW_CALL)."""
        return self.slots[slot].value(rewarm, rewarm_calls, self.clock)

    def cycles(self, count: int, slots=(0,), warm=0.0, rewarm_calls=0) -> list[list[float]]:
        """`count` cycles, each a value of every slot listed, in that order (a slot may be listed twice:
        the floor before and after a slow op); one list of values per entry of `slots`. First each slot's
        op is warmed for `warm` seconds (0: prepare's call was its warm-up), and before each value it is
        called `rewarm_calls` times (the other op's data evicted its own); warm and rewarm_calls are one
        number for every slot or a list indexed by slot."""
        def per_slot(setting, slot):
            return setting[slot] if isinstance(setting, list) else setting

        for slot in dict.fromkeys(slots):
            if per_slot(warm, slot):
                timeloop.warm_up(self.slots[slot].op, per_slot(warm, slot), self.clock)
        values: list[list[float]] = [[] for _ in slots]
        for _ in range(count):
            for slot, found in zip(slots, values):
                found.append(self.slots[slot].value(0.0, per_slot(rewarm_calls, slot), self.clock))
        return values

    def release(self) -> None:
        self.slots.clear()
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


def prepare_benchmark(registry, bench, cases, check: bool, clock=None):
    """registry.prepare, without the round-trip check when told so and with its own call timed on
    `clock` when given, as far as the side's serialbench has the options (a revision older than
    them always checks, and times nothing)."""
    options = inspect.signature(registry.prepare).parameters
    given = {}
    if not check and "check" in options:
        given["check"] = False
    if clock is not None and "clock" in options:
        given["clock"] = clock
    return registry.prepare(bench, cases, **given)


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


def serve(requests, reply, worker: Worker) -> None:
    for line in requests:
        request = json.loads(line)
        action = request["do"]
        if action == "exit":
            return
        try:
            if action == "prepare":
                answer = worker.prepare(request["name"], request["loops"], request["min_time"],
                                        request.get("check", True), request.get("slot", 0),
                                        request.get("time_call", False), request.get("inner_loops"))
            elif action == "sample":
                answer = {"seconds": worker.sample(request.get("rewarm", 0.0), request.get("slot", 0),
                                                   request.get("rewarm_calls", 0))}
            elif action == "cycles":
                answer = {"values": worker.cycles(request["count"], request.get("slots", (0,)),
                                                  request.get("warm", 0.0), request.get("rewarm_calls", 0))}
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
    startup = process_age()
    if startup is not None:  # process start to ready: the run records it as each worker's cost
        hello["startup_s"] = round(startup, 3)
    reply.write(json.dumps(hello) + "\n")
    reply.flush()
    serve(sys.stdin, reply, Worker(config["case_dirs"], payloads=config.get("payloads", ())))
    # Skip the interpreter's teardown (a third of a second with TensorFlow's modules loaded, for
    # each side at the end of every round): nothing is left to write but stderr.
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
