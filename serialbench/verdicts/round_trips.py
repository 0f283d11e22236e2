"""The round trip: one inference's four serialisations and their sum, per protocol, on the real
libraries' path, and the cheapest protocol at each tier where a test says so.

An inference is serialised four times: the client encodes the request, the server decodes it, the
server encodes the response, the client decodes it (catalog/case.py DIRECTIONS). Which benchmark of
each half a user of a protocol runs is a fact of the cases (`Case.roundtrip`); a result file records
it per benchmark, and a file from before it did is read with the built-in cases' declarations. A sum
needs all four halves at that tier.

The cheapest protocol is marked only where a paired test separates it from the next (rankings.rank):
each round's sum of the four halves, one process having timed them all, against the next protocol's in
the same round, corrected across every tier and input kind; where none does, both carry `=`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from serialbench.catalog.case import DIRECTIONS
from serialbench.catalog.inputs import tier_order
from serialbench.catalog.registry import builtin_roundtrip_halves
from serialbench.results.files import Result
from serialbench.verdicts.rankings import rank, series_of


@dataclass(frozen=True)
class Path:
    label: str
    halves: tuple[tuple[str, str] | None, ...]  # (format, impl) of each direction, in DIRECTIONS order


@dataclass
class Trips:
    """One input kind's round trips: per protocol its halves' medians by tier and their sums, each
    tier's protocols cheapest first, and the marks ('*', '=') by (protocol, tier)."""

    kind: str
    tiers: list[str]
    paths: list[tuple[Path, list[list[float | None]], list[float | None]]]
    ranked: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    marks: dict[tuple[str, str], str] = field(default_factory=dict)


def paths(selected: Sequence[Result]) -> list[Path]:
    """Each protocol that a selected benchmark is a half of, in name order, with its four halves:
    as the results recorded them, the built-in cases' declarations filling in the rest."""
    halves = dict(builtin_roundtrip_halves())
    builtin = {half: key for key, half in halves.items()}
    for result in selected:
        if result.roundtrip:
            halves[(result.roundtrip, result.direction)] = (result.format, result.impl)
    labels = {result.roundtrip or builtin.get((result.format, result.impl), ("", ""))[0] for result in selected}
    return [Path(label, tuple(halves.get((label, direction)) for direction in DIRECTIONS))
            for label in sorted(labels - {""})]


def round_trips(selected: Sequence[Result]) -> list[Trips]:
    """A Trips per input kind that has a complete path at one tier at least, ranked and marked."""
    found = list(_trips(selected))
    by_key = {(r.format, r.impl, r.input, r.tier): r for r in selected}
    groups, series, keys = [], {}, []
    for trips in found:
        for index, tier in enumerate(trips.tiers):
            trips.ranked[tier] = sorted((sums[index], path.label) for path, _, sums in trips.paths
                                        if sums[index] is not None)
            members = []
            for path, _, sums in trips.paths:
                if sums[index] is not None:
                    member = "\0".join((path.label, tier, trips.kind))
                    series[member] = _sums([series_of(by_key[(*half, trips.kind, tier)].benchmark)
                                            for half in path.halves])
                    members.append(member)
            groups.append(members)
            keys.append((trips, tier))
    for (trips, tier), ranking in zip(keys, rank(groups, series)):
        if ranking is None or len(trips.ranked[tier]) < 2:
            continue
        fastest, following = (name.split("\0")[0] for name in (ranking.fastest, ranking.next))
        if ranking.separated and trips.ranked[tier][0][1] == fastest:
            trips.marks[(fastest, tier)] = "*"
        else:
            trips.marks[(fastest, tier)] = trips.marks[(following, tier)] = "="
    return found


def _trips(selected: Sequence[Result]):
    medians = {(r.format, r.impl, r.input, r.tier): r.median for r in selected if r.median is not None}
    protocols = paths(selected)
    for kind in dict.fromkeys(r.input for r in selected):
        tiers = tier_order(r.tier for r in selected if r.input == kind)
        blocks = []
        for path in protocols:
            halves = [[medians.get((*half, kind, tier)) if half else None for tier in tiers] for half in path.halves]
            if any(value is not None for half in halves for value in half):
                blocks.append((path, halves, [None if None in column else sum(column) for column in zip(*halves)]))
        if any(total is not None for _, _, sums in blocks for total in sums):
            yield Trips(kind, tiers, blocks)


def _sums(halves: list[dict[Hashable, float]]) -> dict[Hashable, float]:
    """Each round's log of the sum of the four halves, over the rounds in which one process timed all
    four (files without rounds: one key per process, so the protocols are compared unpaired)."""
    shared = [key for key in halves[0] if all(key in half for half in halves[1:])]
    if shared:
        return {key: math.log(sum(math.exp(half[key]) for half in halves)) for key in shared}
    # No round in common: the halves were timed in processes of their own (pyperf's runs); the sum of
    # their medians stands alone, and no test can separate two protocols from one value each.
    return {("sum", id(halves)): math.log(sum(math.exp(sorted(half.values())[len(half) // 2]) for half in halves))}
