"""check-harness's table: each benchmark's median three ways, two ratios to the plain loop, the spread
between one way's processes, the verdict (verdicts/harness.py); as text, Markdown and JSON."""

from __future__ import annotations

import json
import statistics

from serialbench.core.formatting import format_ratio, format_time
from serialbench.verdicts.harness import DISAGREE, FLAGS, NOT_TIMED, WAYS, panel_ratios, processes_of, spread, verdict
from serialbench.views import table
from serialbench.views.table import Column, Table, column, number

FORMAT = 1  # of the --json file


def _median(way: str):
    def text(row) -> str:
        values = row.processes.get(way)
        return format_time(statistics.median(values)) if values else "-"
    return text


def _ratio(way: str):
    def value(row) -> float | None:
        if "plain" not in row.processes or way not in row.processes:
            return None
        return statistics.median(row.processes[way]) / statistics.median(row.processes["plain"])
    return value


class Row:
    """One benchmark of the panel: its name, each way's per-process medians, its verdict."""

    def __init__(self, name: str, timed: dict[str, dict[str, list[float]]], tolerance: float):
        self.name = name
        self.processes = processes_of(name, timed)
        self.verdict = verdict(self.processes, tolerance)


def harness_columns() -> list[Column]:
    ratio_columns = []
    for way in WAYS[:2]:
        ratio = _ratio(way)
        ratio_columns.append(column(f"{way}_over_plain", f"{way}/plain",
                                    lambda row, ratio=ratio: "-" if ratio(row) is None else format_ratio(ratio(row)),
                                    lambda row, ratio=ratio: number(ratio(row))))
    return [
        column("name", "benchmark", lambda row: row.name, left=True, code=True),
        *(Column(way, _median(way), lambda row, way=way: {way: row.processes.get(way, [])}) for way in WAYS),
        *ratio_columns,
        column("spread", "processes", lambda row: "-" if spread(row.processes) is None else
               format_ratio(spread(row.processes)), lambda row: number(spread(row.processes))),
        column("verdict", "", lambda row: row.verdict, left=True),
    ]


def rows(names: list[str], timed: dict[str, dict[str, list[float]]], tolerance: float) -> list[Row]:
    return [Row(name, timed, tolerance) for name in names]


def table_lines(names: list[str], timed: dict[str, dict[str, list[float]]], tolerance: float) -> list[str]:
    return table.text(Table.of(harness_columns(), rows(names, timed, tolerance)))


def legend(processes: int, tolerance: float) -> list[str]:
    return [f"median time per op, three ways, each the median over {processes} processes: the run's workers "
            "(--rounds, one a round), compare's lockstep workers (A/A, one a round), a plain warm loop in a fresh "
            "process; 'processes': the largest spread between one way's slowest and fastest process",
            f"DISAGREE: two ways' medians differ by more than {tolerance * 100:g}% and none of their processes "
            f"overlap; noisy: they differ by more than {tolerance * 100:g}%, but so do processes of one way; "
            "NOT TIMED: a way gave no time (its error is above)"]


def ratio_lines(names: list[str], timed: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = []
    for way, ratios in panel_ratios(names, timed).items():
        if len(ratios) >= 2:
            deciles = statistics.quantiles(ratios, n=10, method="inclusive")
            lines.append(f"{way}/plain over {len(ratios)} benchmarks: median {statistics.median(ratios):.3f}, "
                         f"10-90% {deciles[0]:.2f}-{deciles[-1]:.2f}")
    return lines


def closing_lines(names: list[str], found: dict[str, list[str]]) -> list[str]:
    counts = ", ".join(f"{len(found[flag])} {flag}" for flag in FLAGS if flag in found)
    lines = [f"{len(names)} benchmarks: {counts}"]
    for flag, what in ((DISAGREE, "disagree"), (NOT_TIMED, "not timed by every way")):
        if flag in found:
            lines.append(f"{len(found[flag])} of {len(names)} {what}: {', '.join(found[flag])}")
    return lines


def markdown(names: list[str], timed: dict[str, dict[str, list[float]]], tolerance: float, processes: int,
             closing: list[str]) -> str:
    return "\n".join([*table.markdown(Table.of(harness_columns(), rows(names, timed, tolerance))), "",
                      *(line + "\n" for line in [*legend(processes, tolerance), *ratio_lines(names, timed),
                                                 *closing])])


def harness_json(names: list[str], timed: dict[str, dict[str, list[float]]], tolerance: float,
                 processes: int) -> str:
    """Every process's median of every way, and the verdicts (keys of FORMAT 1 kept: benchmarks by name)."""
    return json.dumps({"serialbench_check_harness": FORMAT, "tolerance": tolerance, "processes": processes,
                       "benchmarks": {record.pop("name"): record for record in
                                      table.records(Table.of(harness_columns(), rows(names, timed, tolerance)))}},
                      indent=1) + "\n"
