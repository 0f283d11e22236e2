"""Rankings only where they are real: the fastest of a group, starred only when a test separates it
from the next; a tie otherwise.

A group is what a table ranks in one cell column: the implementations of one format at one input,
tier and direction (report's tables), or the protocols of the round trip at one tier
(verdicts/round_trips.py). Its members are ordered by their medians; the fastest and the next are then
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

from serialbench.catalog.inputs import tier_size
from serialbench.catalog.registry import FLOOR
from serialbench.core import stats
from serialbench.results.files import Result
from serialbench.verdicts.timings import Timing, floor_ratios

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


GroupKey = tuple[str, str, str, str]  # (input, direction, format, tier): what a table ranks in one cell column


def table_rankings(selected: Sequence[Result], timings: Mapping[str, Timing | None]
                   ) -> dict[GroupKey, tuple[Ranking, bool]]:
    """Each group's test of its fastest against the next, and whether the fastest is starred: the test
    separates them and its fastest is where the table shows the lowest median (a test that ranks
    otherwise is a tie). report's tables, the run's answer, the JSON and the site all read it."""
    grouped: dict[GroupKey, list[str]] = {}
    for result in selected:
        if result.format != FLOOR[0] and timings.get(result.name) is not None:
            grouped.setdefault((result.input, result.direction, result.format, result.tier), []).append(result.name)
    members = list(grouped.values())
    series = {result.name: series_of(result.benchmark) for result in selected
              if any(result.name in group for group in members)}
    found_by_key = {}
    for key, group, found in zip(grouped, members, rank(members, series), strict=True):
        if found is not None:
            lowest = min(group, key=lambda name: timings[name].median)
            found_by_key[key] = (found, found.separated and lowest == found.fastest)
    return found_by_key


def marks(found: Mapping[object, tuple[Ranking, bool]]) -> dict[str, str]:
    """'*' on each group's fastest that a test separates from the next, '=' on both where none does."""
    out: dict[str, str] = {}
    for ranking, starred in found.values():
        if starred:
            out[ranking.fastest] = "*"
        else:
            out[ranking.fastest] = out[ranking.next] = "="
    return out


def fastest_of_each_format(group: Sequence[Result]) -> list[str]:
    """FORMAT/IMPL of each format's fastest implementation: the one with the lowest median at the most
    tiers (ties: the one at the largest tier, then the lower median there); the floor's format is none."""
    by_format_tier: dict[tuple[str, str], list[Result]] = {}
    for r in group:
        if r.format != FLOOR[0] and r.median is not None:
            by_format_tier.setdefault((r.format, r.tier), []).append(r)
    wins: dict[str, dict[str, int]] = {}
    largest: dict[str, tuple[float, float]] = {}
    for (fmt, tier), found in by_format_tier.items():
        best = min(found, key=lambda r: r.median)
        for r in found:
            wins.setdefault(fmt, {}).setdefault(r.row, 0)
            if tier_size(tier) >= largest.get(r.row, (0, 0.0))[0]:
                largest[r.row] = (tier_size(tier), r.median)
        wins[fmt][best.row] += 1
    return [min(rows, key=lambda row: (-rows[row], -largest[row][0], largest[row][1])) for rows in wins.values()]
