"""The round trip as a table: per input kind, each protocol's sum of the four halves of one inference
and under it each half, a column per tier, the cheapest protocol marked (verdicts/round_trips.py
decides); shown by `report` and by the run's summary when the results hold a complete path."""

from __future__ import annotations

from collections.abc import Sequence

from serialbench.catalog.case import DIRECTIONS
from serialbench.core.formatting import format_time
from serialbench.results.files import Result
from serialbench.verdicts.round_trips import Trips, round_trips
from serialbench.views.table import Cell, Column, Row, Table, figure

LEGEND = ("Median time per op of each half of one inference, in its order: the client encodes the request, the "
          "server decodes it, the server encodes the response, the client decodes it; above them their sum. "
          "The real libraries' path: tritonclient and KServe (v2), TensorFlow (tfserving-grpc), one JSON "
          "library on both sides (tfserving-rest). Marked *: the cheapest protocol at that tier, separated from the "
          "next by a paired test over the rounds (Benjamini-Hochberg across the tables); = the two that no test "
          "separates. A '-' half is not in the results (verify says why a library refuses an input); a sum needs "
          "all four.")


def roundtrip_tables(selected: Sequence[Result]) -> list[Table]:
    """A table per input kind that has at least one complete path at one tier; [] when none has."""
    return [_table(trips) for trips in round_trips(selected)]


def _cell(value: float | None, mark: str = "") -> Cell | None:
    return None if value is None else Cell([format_time(value)], mark, {"median": figure(value, "time")})


def _table(trips: Trips) -> Table:
    table = Table([Column(tier) for tier in trips.tiers], corner="PROTOCOL / HALF", legend=LEGEND,
                  title=f"{trips.kind}, round trip: median time per op of the four halves and their sum")
    for path, halves, sums in trips.paths:
        table.rows.append(Row(f"{path.label} (sum)", [_cell(total, trips.marks.get((path.label, tier), ""))
                                                      for total, tier in zip(sums, trips.tiers, strict=True)],
                              {"protocol": path.label}, group=path.label))
        for half, direction, values in zip(path.halves, DIRECTIONS, halves, strict=True):
            table.rows.append(Row(f"  {half[1] if half else f'({direction}: no case)'}",
                                  [_cell(value) for value in values],
                                  {"protocol": path.label, "half": "/".join(half) if half else direction},
                                  group=path.label))
    table.notes = [_cheapest(tier, ranking, trips.marks.get((ranking[0][1], tier)) == "*")
                   for tier, ranking in trips.ranked.items() if len(ranking) > 1]
    return table


def round_trips_json(selected: Sequence[Result]) -> list[dict]:
    """The round-trip tables as data (report --json): per input kind and protocol, each tier's halves
    (FORMAT/IMPL: seconds per op, None where not in the results), their sum and its mark."""
    return [{"input": trips.kind, "protocol": path.label,
             "tiers": {tier: {"halves": {"/".join(half) if half else direction: value
                                         for half, direction, value in zip(path.halves, DIRECTIONS, column)},
                              "sum": total, "mark": trips.marks.get((path.label, tier), "")}
                       for tier, column, total in zip(trips.tiers, zip(*halves), sums)}}
            for trips in round_trips(selected) for path, halves, sums in trips.paths]


def _cheapest(tier: str, ranking: list[tuple[float, str]], separated: bool) -> str:
    (best, label), (second, runner_up) = ranking[0], ranking[1]
    first = f"{label}, {format_time(best)}"
    then = f"{runner_up}, {format_time(second)} ({second / best:.2f}x)"
    return f"cheapest at {tier}: " + (f"{first}; next {then}" if separated else f"cannot separate {first}, and {then}")
