"""The timing worker: one long-lived process per side per round, timing values when told to.

Started by measure/process.py in a side's process (inside/start.py) with the side's own serialbench
first on PYTHONPATH (its revision, behind its library overlay), so that the cases, `prepare` and the
libraries are the side's, while this file and the timed loop (timeloop.py, beside it) are the timing
serialbench's: every side runs the same loop. It reaches the side's catalog only
through its worker API (side_api.py). The coordinator (measure/engine.py) sends one JSON request a
line on stdin and reads one JSON reply a line on stdout.

A process holds up to two prepared ops at once, in slots: compare's sides have one each, in
processes alive at the same time; the run holds a benchmark and its memcpy floor in one process.

The protocol (side_api.PROTOCOL, named in the hello with the side's API). Every request names
each of its keys; a key missing or unknown is an error, not a default:
- {"do": "prepare", "name", "slot", "loops" (0: calibrate), "inner_loops" (the plan's, or null when
  calibrating), "min_time", "check" (the round trip), "time_call" (answer prepare's own call of the op
  as "first_call", seconds)} -> {"loops", "inner_loops", "metadata"[, "first_call"]};
- {"do": "cycles", "count", "slots", "rewarm_calls"} -> {"values": one list a slot listed}: `count`
  cycles, each a value of every slot listed, in that order (a slot may be listed twice: the floor
  before and after a slow op), each value after that entry's `rewarm_calls` untimed calls;
- {"do": "release"} -> {}: every slot dropped; {"do": "exit"}.
An error is answered {"error": "one line"}.
"""

from __future__ import annotations

import gc
import json
import os
import random
import sys
from pathlib import Path

from . import side_api, timeloop

REQUESTS = {"prepare": ("name", "slot", "loops", "inner_loops", "min_time", "check", "time_call"),
            "cycles": ("count", "slots", "rewarm_calls"), "release": (), "exit": ()}


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

    def value(self, rewarm_calls: int) -> float:
        """One value in seconds per op, after `rewarm_calls` untimed calls."""
        for _ in range(rewarm_calls):
            self.op()
        return self.time_func(self.loops) / self.calls


class Worker:
    """The ops being timed in this process, between prepares and a release."""

    def __init__(self, case_dirs, clock=timeloop.CLOCK, payloads=(), api=None):
        self.case_dirs = list(case_dirs)
        self.payloads = list(payloads)
        self.clock = clock
        self.api = api or side_api.load()
        self.slots: dict[int, Slot] = {}
        self.selection = None  # ({name: benchmark}, cases), made at the first prepare

    def prepare(self, name: str, slot: int, loops: int, inner_loops: int | None, min_time: float, check: bool,
                time_call: bool) -> dict:
        """Build the op in `slot`. Calibrating (loops 0), the calls an iteration follow the tier and
        prepare's own call (timeloop.inner_loops), and the loops double until a value takes min_time;
        an op whose call took TIMED_FIRST_CALL or more fills a value with one call. A plan passes its
        own loops and inner_loops, so that every process times the same loop."""
        padding = random_heap_padding()
        bench, cases = self.find(name)
        prepared = self.api.prepare(bench, cases, check, self.clock if time_call else None)
        first_call = prepared.first_call if time_call else None
        inner = inner_loops or timeloop.inner_loops(bench.tier, None if loops else first_call)
        time_func = timeloop.make_time_func(prepared.op, inner, self.clock)
        if not loops:
            timed = timeloop.timed_by_its_first_call(first_call) and inner == 1
            loops = 1 if timed else timeloop.calibrated_loops(time_func, min_time)
        self.slots[slot] = Slot(prepared.op, time_func, loops, loops * inner, padding)
        if loops > 1 or inner > 1:  # an op that fills a value with one call was warmed by prepare's own call
            time_func(loops)  # warm-up, not recorded
        answer = {"loops": loops, "inner_loops": inner, "metadata": self.api.metadata(bench, prepared)}
        if time_call:
            answer["first_call"] = first_call
        return answer

    def find(self, name: str):
        """The benchmark and every case, from one selection a process: selecting looks for every case's
        libraries on sys.path, 25 ms that each prepare of a round would otherwise repeat."""
        if self.selection is None:
            api = self.api
            benchmarks, cases = api.select(self.case_dirs, [], ",".join(api.TIERS), ",".join(api.INPUT_KINDS),
                                           self.payloads, lambda message: None)
            self.selection = {bench.name: bench for bench in benchmarks}, cases
        benchmarks, cases = self.selection
        if name not in benchmarks:
            raise LookupError(f"no benchmark {name} in this checkout")
        return benchmarks[name], cases

    def cycles(self, count: int, slots: list[int], rewarm_calls: list[int]) -> list[list[float]]:
        """`count` cycles, each a value of every slot listed, in that order; one list of values per
        entry of `slots`, each value after that entry's rewarm_calls untimed calls."""
        values: list[list[float]] = [[] for _ in slots]
        for _ in range(count):
            for slot, rewarm, found in zip(slots, rewarm_calls, values):
                found.append(self.slots[slot].value(rewarm))
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


def answer(worker: Worker, request: dict) -> dict:
    """The reply to one request of the protocol."""
    action = request.get("do")
    if action not in REQUESTS:
        return {"error": f"protocol {side_api.PROTOCOL}: unknown request {action!r}"}
    given = set(request) - {"do"}
    if given != set(REQUESTS[action]):
        return {"error": f"protocol {side_api.PROTOCOL}: {action!r} takes {', '.join(REQUESTS[action]) or 'nothing'}"
                         f", not {', '.join(sorted(given)) or 'nothing'}"}
    try:
        if action == "prepare":
            return worker.prepare(**{key: request[key] for key in REQUESTS[action]})
        if action == "cycles":
            return {"values": worker.cycles(request["count"], request["slots"], request["rewarm_calls"])}
        worker.release()
        return {}
    except Exception as exc:  # noqa: BLE001 - a failing case is reported to the coordinator, not fatal
        return {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}


def serve(requests, reply, worker: Worker) -> None:
    for line in requests:
        request = json.loads(line)
        if request.get("do") == "exit":
            return
        reply.write(json.dumps(answer(worker, request)) + "\n")
        reply.flush()


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


def hello(api, distributions) -> dict:
    """What the worker says first: the protocol it speaks, the side's API, where its serialbench is."""
    import serialbench

    said = {"protocol": side_api.PROTOCOL, "side_api": side_api.name(api),
            "serialbench": str(Path(list(serialbench.__path__)[0]).resolve()), "python": sys.version.split()[0],
            "versions": distribution_versions(distributions)}
    startup = process_age()
    if startup is not None:  # process start to ready: the run records it as each worker's cost
        said["startup_s"] = round(startup, 3)
    return said


def main(config: dict) -> None:
    # Replies travel on the original stdout; anything a case prints goes to stderr instead.
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    heap_padding = random_heap_padding()  # noqa: F841 - kept alive for the process's life
    try:
        api = side_api.load()
    except side_api.SideRefused as exc:
        said = {"protocol": side_api.PROTOCOL, "refused": str(exc)}
    else:
        said = hello(api, config["distributions"])
    reply.write(json.dumps(said) + "\n")
    reply.flush()
    if "refused" not in said:
        serve(sys.stdin, reply, Worker(config["case_dirs"], payloads=config["payloads"], api=api))
    # Skip the interpreter's teardown (a third of a second with TensorFlow's modules loaded, for
    # each side at the end of every round): nothing is left to write but stderr.
    sys.stderr.flush()
    os._exit(0)

