"""report's cost tables: per input kind and direction, each FORMAT/IMPL's fixed cost per request and
cost per byte (verdicts/costmodel.py), how well the line holds, and whether the op grows faster
than its size. The numbers that answer "which protocol for small requests, which for large"."""

from __future__ import annotations

from serialbench.core.formatting import format_throughput, format_time
from serialbench.results.files import Result
from serialbench.verdicts.costmodel import MAX_EXPONENT, MIN_TIERS, Fit, fits
from serialbench.views.grid import groups, rows
from serialbench.views.table import Cell, Column, Row, Table, by_format

COLUMNS = ["fixed", "per byte", "worst tier", "growth"]
LEGEND = (f"time = fixed + per byte x input bytes, fitted on the medians of {MIN_TIERS} tiers or more by least "
          "squares on relative errors (every tier weighs the same). fixed: what a request costs whatever its size; "
          "per byte: what each byte of tensor data adds, and its inverse in MB/s; worst tier: the largest "
          "|fit - median| / median; growth: time ~ size^k over the three largest tiers, flagged past "
          f"k = {MAX_EXPONENT:g} (a linear op is at most 1; caches alone did not pass 1.32).")


def cost_tables(selected: list[Result]) -> list[Table]:
    found = fits(selected)
    tables = []
    for kind, direction, group in groups([r for r in selected if (r.input, r.direction, r.row) in found]):
        tables.append(Table([Column(header) for header in COLUMNS],
                            [Row(label, _cells(found[(kind, direction, label)]), group=by_format(label))
                             for label in rows(group)],
                            f"{kind}, {direction}: cost per request and per byte", LEGEND, corner="FORMAT/IMPL"))
    return tables


def _cells(fit: Fit) -> list[Cell | None]:
    per_byte = f"{fit.per_byte_s * 1e9:.3g} ns/B" if fit.per_byte_s > 0 else "0"
    if fit.mb_per_s is not None:  # (a zero-copy op's few picoseconds a byte are noise: no rate for them)
        per_byte += f"  {format_throughput(fit.mb_per_s)}" if fit.mb_per_s < 1e6 else "  >1,000,000 MB/s"
    growth = f"size^{fit.exponent:.2f}" + ("" if fit.linear else "  not linear")
    return [Cell([format_time(fit.fixed_s)]), Cell([per_byte]),
            Cell([f"{fit.worst_error * 100:.0f}% at {fit.worst_tier}"]), Cell([growth], "" if fit.linear else "*")]
