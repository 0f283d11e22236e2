"""check-harness's verdict: do two ways of timing one op (the run, compare, a plain loop) disagree?

Each way times a benchmark in several fresh processes, and on a shared VM two processes of one way
can differ by more than the tolerance (at 1M the machine's speed moves by up to 2x over seconds,
docs/results/index.md). So two ways disagree only when their medians differ by more than the tolerance
and none of one way's processes reaches the other's: a harness that shifts an op's time moves all
its processes. Where the medians differ as much as the processes of one way do, the row is "noisy":
no harness is shown to be at fault, and more processes would tell.
"""

from __future__ import annotations

import statistics

WAYS = ("run", "compare", "plain")
AGREE, NOISY, DISAGREE, NOT_TIMED = "agree", "noisy", "DISAGREE", "NOT TIMED"
FLAGS = (AGREE, NOISY, DISAGREE, NOT_TIMED)


def disagreement(times: dict[str, float]) -> float | None:
    """The largest over the smallest of the medians the ways gave, minus 1; None with fewer than two."""
    if len(times) < 2:
        return None
    return max(times.values()) / min(times.values()) - 1


def verdict(processes: dict[str, list[float]], tolerance: float) -> str:
    """"agree", "noisy", "DISAGREE" or "NOT TIMED", from each way's per-process medians.

    DISAGREE: two ways' medians differ by more than the tolerance and their processes do not overlap
    (every process of one way slower than every process of the other). On unbiased benchmarks with
    this VM's process-to-process noise (the workers of a reference run resampled into three ways,
    docs/findings/one-op-one-time.md, or processes at two speeds 1.6x apart as in
    tests/test_check_harness.py), the medians alone said DISAGREE for 25-50% of them; this verdict
    for 0.3-2% at 5 processes a way and 6-16% at 3, and for over 90% of benchmarks whose run took
    twice as long.
    """
    medians = {way: statistics.median(values) for way, values in processes.items() if values}
    for slow in medians:
        for fast in medians:
            if (medians[slow] > medians[fast] * (1 + tolerance)
                    and min(processes[slow]) > max(processes[fast])):
                return DISAGREE
    if len(medians) < len(WAYS):
        return NOT_TIMED
    return NOISY if disagreement(medians) > tolerance else AGREE


def verdicts(names: list[str], timed: dict[str, dict[str, list[float]]], tolerance: float) -> dict[str, list[str]]:
    """The benchmarks under each verdict. A check with a way missing has not been made, and never
    reads as agreement."""
    found: dict[str, list[str]] = {}
    for name in names:
        found.setdefault(verdict(processes_of(name, timed), tolerance), []).append(name)
    return found


def processes_of(name: str, timed: dict[str, dict[str, list[float]]]) -> dict[str, list[float]]:
    """The per-process medians each way gave one benchmark (ways that gave none left out)."""
    return {way: timed[way][name] for way in WAYS if timed[way].get(name)}


def spread(processes: dict[str, list[float]]) -> float | None:
    """The largest, over the ways, of their slowest process over their fastest: the noise a row's
    ratios are to be read against (None with one process a way)."""
    spreads = [max(values) / min(values) for values in processes.values() if len(values) > 1]
    return max(spreads) if spreads else None


def over_plain(processes: dict[str, list[float]], way: str) -> float | None:
    """A way's median over the plain loop's, for one benchmark; None without both."""
    if not processes.get(way) or not processes.get("plain"):
        return None
    return statistics.median(processes[way]) / statistics.median(processes["plain"])


def panel_ratios(names: list[str], timed: dict[str, dict[str, list[float]]]) -> dict[str, list[float]]:
    """Each harness's median over the plain loop's, per benchmark, sorted: a harness that adds or
    removes something shifts the median ratio; noise only widens the range."""
    ratios = {way: [over_plain(processes_of(name, timed), way) for name in names] for way in WAYS[:2]}
    return {way: sorted(ratio for ratio in found if ratio is not None) for way, found in ratios.items()}
