"""report's grids, FORMAT/IMPL by tier: which results a grid shows, and its rows in order, grouped by
format (views/table.py lays them out)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from serialbench.catalog.case import DIRECTIONS
from serialbench.catalog.inputs import tier_order
from serialbench.catalog.registry import FLOOR
from serialbench.results.files import Result
from serialbench.views.table import Cell, Column, Row, Table, by_format


def groups(selected: list[Result]) -> Iterator[tuple[str, str, list[Result]]]:
    """(input kind, direction, results) in the order the file has them, the directions in the order
    of one inference (encode, decode, encode-response, decode-response)."""
    for kind in dict.fromkeys(r.input for r in selected):
        for direction in DIRECTIONS:
            group = [r for r in selected if r.input == kind and r.direction == direction]
            if group:
                yield kind, direction, group


def rows(group: list[Result]) -> dict[str, dict[str, Result]]:
    """FORMAT/IMPL -> {tier: result}, the formats in file order, the floor's first."""
    found: dict[str, dict[str, Result]] = {}
    for result in sorted(group, key=lambda r: r.format != FLOOR[0]):  # stable: file order otherwise
        found.setdefault(result.row, {})[result.tier] = result
    return found


def grid(title: str, legend: str, group: list[Result], cell: Callable[[Result], Cell | None]) -> Table:
    """A table of `group`, FORMAT/IMPL by tier, a cell per result (`-` where a tier has none)."""
    tiers = tier_order(r.tier for r in group)
    table = Table([Column(tier) for tier in tiers], title=title, legend=legend, corner="FORMAT/IMPL")
    for label, by_tier in rows(group).items():
        table.rows.append(Row(label, [cell(by_tier[tier]) if tier in by_tier else None for tier in tiers],
                              group=by_format(label)))
    return table
