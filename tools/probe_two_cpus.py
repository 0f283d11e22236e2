"""Do this machine's two CPUs change speed together?

Runs the same op on CPU 0 and CPU 1 at the same moment (two processes started on one clock) and
records each 20 ms window's median call time. Prints:
- each CPU's window medians: median and p90/p10 (how much the machine's speed moves);
- the correlation of the two CPUs' window medians;
- the spread of log(cpu0/cpu1) per window: what an A/A timed on both CPUs at once would see;
- on CPU 0 alone, the spread of log(window[i+lag]/window[i]) for lags of 20 ms to 5 s: what an
  A/A alternated on one CPU at that spacing would see.

    python tools/probe_two_cpus.py [SECONDS] [--op loop|copy] [--solo]

--op loop: a fixed pure-Python loop (about 40-100 us a call); --op copy: a 1 MB numpy tobytes.
--solo: CPU 0 only (the other idle), for the lagged spreads without a neighbour.
Run it alone: anything else on the machine is measured with it.
"""
import argparse
import multiprocessing as mp
import os
import statistics
import time

import numpy as np

WINDOW = 0.02
DATA = np.random.default_rng(0).random(262_144).astype(np.float32)  # 1 MB


def python_loop():
    total = 0
    for i in range(2000):
        total += i
    return total


def copy():
    return DATA.tobytes()


OPS = {"loop": python_loop, "copy": copy}


def worker(cpu, op_name, seconds, start, queue):
    os.sched_setaffinity(0, {cpu})
    op, clock = OPS[op_name], time.perf_counter
    while time.time() < start:
        pass
    windows = []
    end = start + seconds
    while time.time() < end:
        values, window_end = [], clock() + WINDOW
        while clock() < window_end:
            t0 = clock()
            op()
            values.append(clock() - t0)
        windows.append(statistics.median(values))
    queue.put((cpu, windows))


def spread(logs):
    return f"sd {np.std(logs) * 100:.1f}%, IQR {(np.percentile(logs, 75) - np.percentile(logs, 25)) * 100:.1f}%"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=15.0)
    parser.add_argument("--op", choices=sorted(OPS), default="loop")
    parser.add_argument("--solo", action="store_true")
    args = parser.parse_args()
    cpus = (0,) if args.solo else (0, 1)
    queue, start = mp.Queue(), time.time() + 1.0
    procs = [mp.Process(target=worker, args=(cpu, args.op, args.seconds, start, queue)) for cpu in cpus]
    for p in procs:
        p.start()
    windows = dict(queue.get() for _ in procs)
    for p in procs:
        p.join()
    n = min(len(w) for w in windows.values())
    series = {cpu: np.array(w[:n]) for cpu, w in windows.items()}
    print(f"op {args.op}, {n} windows of {WINDOW * 1e3:g} ms on CPU(s) {', '.join(map(str, cpus))}")
    for cpu, v in series.items():
        low, high = np.percentile(v, [10, 90])
        print(f"cpu{cpu}: median {np.median(v) * 1e6:.1f} us, p90/p10 {high / low:.2f}")
    if not args.solo:
        x, y = np.log(series[0]), np.log(series[1])
        print(f"correlation of the two CPUs' window medians: {np.corrcoef(x, y)[0, 1]:.2f}")
        print(f"log(cpu0/cpu1), same window (both CPUs at once): {spread(x - y)}, "
              f"offset {np.median(x - y) * 100:+.1f}%")
    v = np.log(series[0])
    for lag in (1, 5, 25, 250):
        if lag < len(v):
            print(f"log(w[i+{lag}]/w[i]) on cpu0, {lag * WINDOW * 1e3:g} ms apart: {spread(v[lag:] - v[:-lag])}")


if __name__ == "__main__":
    main()
