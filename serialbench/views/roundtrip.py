"""The round trip: one inference's four serialisations and their sum, per protocol, on the real
libraries' path, the cheapest protocol at each tier marked.

An inference is serialised four times: the client encodes the request, the server decodes it, the
server encodes the response, the client decodes it (catalog/case.py DIRECTIONS). Which benchmark of
each half a user of a protocol runs is a fact of the cases (`Case.roundtrip`): tritonclient and
KServe for the v2 formats, TensorFlow's `make_tensor_proto`/`make_ndarray` for TF Serving gRPC, one
JSON library on both sides for TF Serving REST. A result file records it per benchmark; a file from
before it did is read with the built-in cases' declarations. A table per input kind, a column per
tier, the protocols in name order; a sum needs all four halves at that tier. Shown by `report` and
by the run's summary when the results hold a complete path; nothing is re-run.

The cheapest protocol is marked only where a paired test separates it from the next
(verdicts/rankings.py): each round's sum of the four halves, one process having timed them all,
against the next protocol's in the same round, corrected across every tier and input of the tables;
where none does, the note under the table says "cannot separate" and both sums carry `=`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

from serialbench.catalog.case import DIRECTIONS
from serialbench.catalog.inputs import tier_order
from serialbench.catalog.registry import builtin_roundtrip_halves
from serialbench.core.formatting import format_time
from serialbench.results.files import Result
from serialbench.verdicts.rankings import Ranking, rank, series_of
from serialbench.views.grid import Cell, Table


@dataclass(frozen=True)
class Path:
    label: str
    halves: tuple[tuple[str, str] | None, ...]  # (format, impl) of each direction, in DIRECTIONS order


LEGEND = ("Median time per op of each half of one inference, in its order: the client encodes the request, the "
          "server decodes it, the server encodes the response, the client decodes it; above them their sum. "
          "The real libraries' path: tritonclient and KServe (v2), TensorFlow (tfserving-grpc), one JSON "
          "library on both sides (tfserving-rest). Marked *: the cheapest protocol at that tier, separated from the "
          "next by a paired test over the rounds (Benjamini-Hochberg across the tables); = the two that no test "
          "separates. A '-' half is not in the results (verify says why a library refuses an input); a sum needs "
          "all four.")


def paths(selected: list[Result]) -> list[Path]:
    """Each protocol that a selected benchmark is a half of, in name order, with its four halves:
    as the results recorded them, the built-in cases' declarations filling in the rest."""
    halves = dict(builtin_roundtrip_halves())
    builtin = {half: key for key, half in halves.items()}
    for result in selected:
        label = result.roundtrip
        if label:
            halves[(label, result.direction)] = (result.format, result.impl)
    labels = {result.roundtrip or builtin.get((result.format, result.impl), ("", ""))[0] for result in selected}
    return [Path(label, tuple(halves.get((label, direction)) for direction in DIRECTIONS))
            for label in sorted(labels - {""})]


def roundtrip_tables(selected: list[Result]) -> list[Table]:
    """A table per input kind that has at least one complete path at one tier; [] when none has."""
    found = list(_blocks(selected))
    rankings = _rankings(selected, found)
    return [_table(kind, tiers, blocks, rankings) for kind, tiers, blocks in found]


def _blocks(selected: list[Result]):
    """(input kind, tiers, [(path, medians of each half by tier, sums by tier)]) for each kind that has
    a complete path at one tier at least."""
    medians = {(r.format, r.impl, r.input, r.tier): r.median for r in selected if r.median is not None}
    protocols = paths(selected)
    for kind in dict.fromkeys(r.input for r in selected):
        tiers = tier_order(r.tier for r in selected if r.input == kind)
        blocks = []
        for path in protocols:
            halves = [[medians.get((*half, kind, tier)) if half else None for tier in tiers] for half in path.halves]
            if any(value is not None for half in halves for value in half):
                sums = [None if None in column else sum(column) for column in zip(*halves)]
                blocks.append((path, halves, sums))
        if any(total is not None for _, _, sums in blocks for total in sums):
            yield kind, tiers, blocks


def round_trips(selected: list[Result]) -> list[dict]:
    """The round-trip tables as data (report --json): per input kind and protocol, each tier's halves
    (FORMAT/IMPL: seconds per op, None where not in the results) and their sum."""
    return [{"input": kind, "protocol": path.label,
             "tiers": {tier: {"halves": {"/".join(half) if half else direction: value
                                         for half, direction, value in zip(path.halves, DIRECTIONS, column)},
                              "sum": total}
                       for tier, column, total in zip(tiers, zip(*halves), sums)}}
            for kind, tiers, blocks in _blocks(selected) for path, halves, sums in blocks]


def _rankings(selected: list[Result], found: list) -> dict[tuple[str, str], Ranking]:
    """(input kind, tier) -> the test of its cheapest protocol against the next, all corrected together."""
    by_key = {(r.format, r.impl, r.input, r.tier): r for r in selected}
    groups, series, keys = [], {}, []
    for kind, tiers, blocks in found:
        for index, tier in enumerate(tiers):
            members = []
            for path, _, sums in blocks:
                if sums[index] is None:
                    continue
                halves = [series_of(by_key[(*half, kind, tier)].benchmark) for half in path.halves]
                member = "\0".join((path.label, tier, kind))
                series[member] = _sums(halves)
                members.append(member)
            groups.append(members)
            keys.append((kind, tier))
    return {key: ranking for key, ranking in zip(keys, rank(groups, series)) if ranking is not None}


def _sums(halves: list[dict[Hashable, float]]) -> dict[Hashable, float]:
    """Each round's log of the sum of the four halves, over the rounds in which one process timed all
    four (files without rounds: one key per process, so the protocols are compared unpaired)."""
    shared = [key for key in halves[0] if all(key in half for half in halves[1:])]
    if shared:
        return {key: math.log(sum(math.exp(half[key]) for half in halves)) for key in shared}
    # No round in common: the halves were timed in processes of their own (pyperf's runs); the sum of
    # their medians stands alone, and no test can separate two protocols from one value each.
    return {("sum", id(halves)): math.log(sum(math.exp(sorted(half.values())[len(half) // 2]) for half in halves))}


def _table(kind: str, tiers: list[str], blocks: list, rankings: dict[tuple[str, str], Ranking]) -> Table:
    ranked = [sorted((sums[i], path.label) for path, _, sums in blocks if sums[i] is not None)
              for i in range(len(tiers))]
    marks: dict[tuple[str, str], str] = {}
    for tier, ranking in zip(tiers, ranked):
        found = rankings.get((kind, tier))
        if found is None or len(ranking) < 2:
            continue
        fastest, following = (name.split("\0")[0] for name in (found.fastest, found.next))
        if found.separated and ranking[0][1] == fastest:
            marks[(fastest, tier)] = "*"
        else:
            marks[(fastest, tier)] = marks[(following, tier)] = "="
    table = Table(f"{kind}, round trip: median time per op of the four halves and their sum", LEGEND, tiers,
                  corner="PROTOCOL / HALF")
    for path, halves, sums in blocks:
        if table.rows:
            table.group_starts.add(len(table.rows))
        totals = [None if total is None else Cell([format_time(total)], marks.get((path.label, tier)) == "*",
                                                  marks.get((path.label, tier)) == "=")
                  for total, tier in zip(sums, tiers, strict=True)]
        table.rows.append((f"{path.label} (sum)", totals))
        for half, direction, values in zip(path.halves, DIRECTIONS, halves, strict=True):
            cells = [None if value is None else Cell([format_time(value)]) for value in values]
            table.rows.append((f"  {half[1] if half else f'({direction}: no case)'}", cells))
    table.notes = [_cheapest(tier, ranking, marks.get((ranking[0][1], tier)) == "*")
                   for tier, ranking in zip(tiers, ranked, strict=True) if len(ranking) > 1]
    return table


def _cheapest(tier: str, ranking: list[tuple[float, str]], separated: bool) -> str:
    (best, label), (second, runner_up) = ranking[0], ranking[1]
    if not separated:
        return (f"cheapest at {tier}: cannot separate {label}, {format_time(best)}, and {runner_up}, "
                f"{format_time(second)} ({second / best:.2f}x)")
    return (f"cheapest at {tier}: {label}, {format_time(best)}; next {runner_up}, {format_time(second)} "
            f"({second / best:.2f}x)")
