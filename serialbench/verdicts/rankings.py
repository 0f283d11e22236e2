"""Rankings only where they are real: the fastest of a group, starred only when a test separates it
from the next; a tie otherwise.

A group is what a table ranks in one cell column: the implementations of one format at one input,
tier and direction (views/timing.py), or the protocols of the round trip at one tier
(views/roundtrip.py). Its members are ordered by their medians; the fastest and the next are then
tested against each other over the rounds both ran, paired as compare pairs HEAD and BASE: each
round gives log(next / fastest) from one process, and compare's test and rule decide (core/stats/evidence.py:
the estimate must reach the minimum effect and the whole interval clear half of it). Every group of
the table is corrected together (Benjamini-Hochberg at stats.ALPHA), as compare corrects its rows.

The fastest is chosen by the same rounds that test it. Under no difference the order of the two is a
coin flip and the test is two-sided, so choosing costs nothing when two members are close; among
three or more alike, the two lowest medians lean apart, which tests/test_rankings.py measures on
simulated groups (the false stars stay under stats.ALPHA).

A round's value for a member is what the file pairs best: log of its multiple of the floor where the
run recorded one (the floor's values alternated with the member's, so the machine's speed of the
moment cancels), else log of the round's median time. Files without rounds (pyperf's runs: one
process each, never the same one for two members) are tested unpaired, the Mann-Whitney test on one
median per process, as `report BASE NEW` does.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyperf

from serialbench.core import stats
from serialbench.verdicts.timings import floor_ratios

LEAST_SHARED_ROUNDS = 2  # paired only on at least this many rounds in common


@dataclass(frozen=True)
class Ranking:
    """One group's first two members and whether a test separates them."""

    fastest: str
    next: str
    separated: bool
    ratio: float  # next over fastest (the test's estimate)
    rounds: int  # rounds (or, unpaired, the smaller count of processes) the test used
    paired: bool


def rank(groups: Sequence[Sequence[str]], series: Mapping[str, Mapping[Hashable, float]],
         min_effect: float = stats.MIN_EFFECT, alpha: float = stats.ALPHA) -> list[Ranking | None]:
    """One Ranking per group (None for a group of fewer than two members with values).

    series: name -> {round key: log value} (a key per process; files without rounds key each run by
    its own index, and no two members share one)."""
    tested = []
    for members in groups:
        present = [name for name in members if series.get(name)]
        if len(present) < 2:
            tested.append(None)
            continue
        ordered = sorted(present, key=lambda name: statistics.median(series[name].values()))
        fastest, following = ordered[0], ordered[1]
        tested.append((fastest, following, _evidence(series[fastest], series[following], min_effect)))
    p_values = np.array([item[2][0] for item in tested if item is not None] or [1.0])
    flagged, _ = stats.benjamini_hochberg(p_values, alpha)
    out: list[Ranking | None] = []
    index = 0
    for item in tested:
        if item is None:
            out.append(None)
            continue
        fastest, following, (_, direction, estimate, rounds, paired) = item
        separated = bool(flagged[index]) and direction > 0
        out.append(Ranking(fastest, following, separated, math.exp(estimate), rounds, paired))
        index += 1
    return out


def _evidence(fastest: Mapping[Hashable, float], following: Mapping[Hashable, float], min_effect: float):
    """(p, direction, log estimate, rounds, paired) of `following` against `fastest`."""
    shared = [key for key in fastest if key in following]
    if len(shared) >= LEAST_SHARED_ROUNDS:
        x = np.array([[following[key] - fastest[key] for key in shared]])
        estimate, p, direction, _ = stats.paired_batch(x, min_effect)
        return float(p[0]), int(direction[0]), float(estimate[0]), len(shared), True
    # Unpaired: exp() back to times, which unpaired_evidence takes (it works on their logs).
    evidence = stats.unpaired_evidence(np.exp(list(fastest.values())), np.exp(list(following.values())), min_effect)
    return evidence.p_change, evidence.direction, evidence.estimate, evidence.rounds, False


def series_of(bench: pyperf.Benchmark) -> dict[Hashable, float]:
    """A benchmark's value per round, as `rank` pairs them: {(session, round): log value}.

    The log of its multiple of the floor where every run has one, else of the run's median; runs
    without a round (pyperf's) get keys of their own, which no other benchmark shares."""
    runs = [run for run in bench.get_runs() if run.values]
    ratios = floor_ratios([run.get_metadata() for run in runs])
    series = {}
    for index, run in enumerate(runs):
        metadata = run.get_metadata()
        key = ((metadata.get("serialbench_session"), metadata["serialbench_round"]) if "serialbench_round" in metadata
               else (bench.get_name(), index))
        series[key] = ratios[index] if ratios is not None else math.log(statistics.median(run.values))
    return series
