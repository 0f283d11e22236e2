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
"""

from __future__ import annotations

from dataclasses import dataclass

from serialbench.catalog.case import DIRECTIONS
from serialbench.catalog.inputs import tier_order
from serialbench.catalog.registry import builtin_roundtrip_halves
from serialbench.core.formatting import format_time
from serialbench.results.files import Result
from serialbench.views.grid import Cell, Table


@dataclass(frozen=True)
class Path:
    label: str
    halves: tuple[tuple[str, str] | None, ...]  # (format, impl) of each direction, in DIRECTIONS order


LEGEND = ("Median time per op of each half of one inference, in its order: the client encodes the request, the "
          "server decodes it, the server encodes the response, the client decodes it; above them their sum. "
          "The real libraries' path: tritonclient and KServe (v2), TensorFlow (tfserving-grpc), one JSON "
          "library on both sides (tfserving-rest). Marked: the cheapest protocol at that tier. A '-' half is "
          "not in the results (verify says why a library refuses an input); a sum needs all four.")


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
    medians = {(r.format, r.impl, r.input, r.tier): r.median for r in selected if r.median is not None}
    tables = []
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
            tables.append(_table(kind, tiers, blocks))
    return tables


def _table(kind: str, tiers: list[str], blocks: list) -> Table:
    ranked = [sorted((sums[i], path.label) for path, _, sums in blocks if sums[i] is not None)
              for i in range(len(tiers))]
    table = Table(f"{kind}, round trip: median time per op of the four halves and their sum", LEGEND, tiers,
                  corner="PROTOCOL / HALF")
    for path, halves, sums in blocks:
        if table.rows:
            table.group_starts.add(len(table.rows))
        marked = [len(ranking) > 1 and ranking[0][1] == path.label for ranking in ranked]
        totals = [None if total is None else Cell([format_time(total)], mark)
                  for total, mark in zip(sums, marked, strict=True)]
        table.rows.append((f"{path.label} (sum)", totals))
        for half, direction, values in zip(path.halves, DIRECTIONS, halves, strict=True):
            cells = [None if value is None else Cell([format_time(value)]) for value in values]
            table.rows.append((f"  {half[1] if half else f'({direction}: no case)'}", cells))
    table.notes = [_cheapest(tier, ranking) for tier, ranking in zip(tiers, ranked, strict=True) if len(ranking) > 1]
    return table


def _cheapest(tier: str, ranking: list[tuple[float, str]]) -> str:
    (best, label), (second, runner_up) = ranking[0], ranking[1]
    return (f"cheapest at {tier}: {label}, {format_time(best)}; next {runner_up}, {format_time(second)} "
            f"({second / best:.2f}x)")
