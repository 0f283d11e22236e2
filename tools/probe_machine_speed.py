"""How steady is this machine's speed? (docs/reference/run.md, "Why no time here is known within ±3%")

Times a fixed pure-Python loop (about 60 us a call) and a 1 MB copy (numpy's tobytes), alternately,
without a pause, for SECONDS on one CPU, and prints the median of each 50 ms window, then the 10th
and 90th percentiles of those windows, their ratio, and how many times the loop's window median
crossed the midpoint between them. No serialbench code is involved: this is the machine alone.
On a quiet dedicated core the windows agree within a few percent; on a shared VM whose core is
taken in turns (a busy hyperthread sibling, a host's frequency), they fall in speeds seconds long.

    python tools/probe_machine_speed.py [SECONDS] [--cpu CPU]

(run alone: anything else on the machine is measured with it)
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

WINDOW = 0.05


def loop() -> int:
    total = 0
    for i in range(2000):
        total += i
    return total


def probe(seconds: float, cpu: int | None) -> list[tuple[float, float]]:
    """The median of each window: (the loop's, the copy's), in seconds."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    data = np.random.default_rng(0).random(262_144, dtype=np.float32)  # 1 MB
    windows: list[tuple[float, float]] = []
    clock = time.perf_counter
    end = clock() + seconds
    while clock() < end:
        loops, copies = [], []
        window_end = clock() + WINDOW
        while clock() < window_end:
            t0 = clock()
            loop()
            t1 = clock()
            data.tobytes()
            t2 = clock()
            loops.append(t1 - t0)
            copies.append(t2 - t1)
        windows.append((statistics.median(loops), statistics.median(copies)))
    return windows


def summary(windows: list[tuple[float, float]], seconds: float) -> list[str]:
    """Two lines for each of the loop and the copy: the windows' median, spread and crossings, then
    every window's median in microseconds."""
    lines = []
    for name, column in (("python loop", 0), ("1 MB copy", 1)):
        values = np.array([w[column] for w in windows]) * 1e6
        low, high = np.percentile(values, [10, 90])
        middle = (low + high) / 2
        crossings = int(np.sum(np.diff(values > middle) != 0))
        lines.append(f"{name}: {len(values)} windows of {WINDOW * 1e3:g} ms, median {np.median(values):.1f} us; "
                     f"p10 {low:.1f} us, p90 {high:.1f} us, p90/p10 {high / low:.2f}; "
                     f"{crossings} crossings of the midpoint ({crossings / seconds:.1f} a second)")
        lines.append("  " + " ".join(f"{v:.0f}" for v in values))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/probe_machine_speed.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("seconds", nargs="?", type=float, default=20.0, help="how long to probe (default 20)")
    parser.add_argument("--cpu", type=int, help="pin the probe to this CPU")
    args = parser.parse_args(argv)
    if args.seconds < WINDOW:
        parser.error(f"SECONDS {args.seconds:g}: give at least one window, {WINDOW:g} s")
    if args.cpu is not None and args.cpu not in os.sched_getaffinity(0):
        parser.error(f"--cpu {args.cpu}: give one of the CPUs this process may use, "
                     f"{', '.join(map(str, sorted(os.sched_getaffinity(0))))}")
    print("\n".join(summary(probe(args.seconds, args.cpu), args.seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
