"""check-harness's table: each benchmark's median three ways, two ratios to the plain loop, the spread
between one way's processes, the verdict (verdicts/harness.py); the panel's document (text, Markdown and JSON)."""

from __future__ import annotations

import statistics

from serialbench.verdicts import harness
from serialbench.views import table
from serialbench.views.table import Column, Document, Table, column, figure, number

FORMAT = 1  # of the --json file


class Row:
    """One benchmark of the panel: its name, each way's per-process medians and their median, its verdict."""

    def __init__(self, name: str, timed: dict[str, dict[str, list[float]]], tolerance: float):
        self.name = name
        self.processes = harness.processes_of(name, timed)
        self.medians = {way: statistics.median(values) for way, values in self.processes.items()}
        self.verdict = harness.verdict(self.processes, tolerance)


def harness_columns() -> list[Column]:
    return [
        column("name", "benchmark", lambda row: row.name, left=True, code=True),
        *(Column(way, lambda row, way=way: figure(row.medians.get(way), "time").text,
                 lambda row, way=way: {way: row.processes.get(way, [])}) for way in harness.WAYS),
        *(column(f"{way}_over_plain", f"{way}/plain",
                 lambda row, way=way: figure(harness.over_plain(row.processes, way), "ratio").text,
                 lambda row, way=way: number(harness.over_plain(row.processes, way))) for way in harness.WAYS[:2]),
        column("spread", "processes", lambda row: figure(harness.spread(row.processes), "ratio").text,
               lambda row: number(harness.spread(row.processes))),
        column("verdict", "", lambda row: row.verdict, left=True),
    ]


def rows(names: list[str], timed: dict[str, dict[str, list[float]]], tolerance: float) -> list[Row]:
    return [Row(name, timed, tolerance) for name in names]


def tolerance_text(tolerance: float) -> str:
    """'2%': the tolerance as the terminal's legend and the site's panel give it."""
    return f"{tolerance * 100:g}%"


class Panel:
    """A panel of check-harness: its benchmarks' per-process medians of each way (`timed`), judged at the
    tolerance, and the lines that say so."""

    def __init__(self, names: list[str], timed: dict[str, dict[str, list[float]]], tolerance: float,
                 processes: int):
        self.names, self.timed, self.tolerance, self.processes = names, timed, tolerance, processes
        self.table = Table.of(harness_columns(), rows(names, timed, tolerance))
        self.found = harness.verdicts(names, timed, tolerance)  # the benchmarks under each verdict

    def legend(self) -> list[str]:
        tolerance = tolerance_text(self.tolerance)
        return [f"median time per op, three ways, each the median over {self.processes} processes: the run's workers "
                "(--rounds, one a round), compare's lockstep workers (A/A, one a round), a plain warm loop in a fresh "
                "process; 'processes': the largest spread between one way's slowest and fastest process",
                f"DISAGREE: two ways' medians differ by more than {tolerance} and none of their processes "
                f"overlap; noisy: they differ by more than {tolerance}, but so do processes of one way; "
                "NOT TIMED: a way gave no time (its error is above)"]

    def ratio_lines(self) -> list[str]:
        lines = []
        for way, ratios in harness.panel_ratios(self.names, self.timed).items():
            if len(ratios) >= 2:
                deciles = statistics.quantiles(ratios, n=10, method="inclusive")
                lines.append(f"{way}/plain over {len(ratios)} benchmarks: median {statistics.median(ratios):.3f}, "
                             f"10-90% {deciles[0]:.2f}-{deciles[-1]:.2f}")
        return lines

    def closing(self) -> list[str]:
        found, total = self.found, len(self.names)
        counts = ", ".join(f"{len(found[flag])} {flag}" for flag in harness.FLAGS if flag in found)
        lines = [f"{total} benchmarks: {counts}"]
        for flag, what in ((harness.DISAGREE, "disagree"), (harness.NOT_TIMED, "not timed by every way")):
            if flag in found:
                lines.append(f"{len(found[flag])} of {total} {what}: {', '.join(found[flag])}")
        return lines

    def document(self) -> Document:
        """The table; under it the legend, the ratios (a blank line of the text where there are none) and the
        closing lines, each a line of the text and a paragraph of the Markdown; its JSON every process's median
        of every way and the verdicts (keys of FORMAT 1 kept: benchmarks by name)."""
        notes = [*self.legend(), *(self.ratio_lines() or [""]), *self.closing()]
        return Document([self.table], notes=notes, keys={
            "serialbench_check_harness": FORMAT, "tolerance": self.tolerance, "processes": self.processes,
            "benchmarks": {record.pop("name"): record for record in table.records(self.table)}})
