"""The history page's data: several run files of different commits, each benchmark's multiple of the
floor over them, with its time behind it.

A CI job that keeps its run files has a timeline of times that the machine's drift draws as much as
the code (docs/findings/runs-apart.md); the multiple of the floor, timed in the same processes, is
what the drift barely moves, so it is the line drawn. Beside each point, the time of the row's own
floor (baseline/tobytes of its input and tier) in that run: against the first run that has the row,
how far the machine moved. Runs are in the order of their date; a benchmark is drawn over the runs
that have it.
"""

from __future__ import annotations

import os

from serialbench.catalog.registry import FLOOR
from serialbench.core.formatting import format_change, format_ratio, format_time
from serialbench.results.files import ResultFile, differing_versions
from serialbench.results.sources import Source
from serialbench.verdicts.timings import floor_multiple, timing
from serialbench.views.site.pages import commits_of, date_of
from serialbench.views.table import Column, Table, number
from serialbench.views.table import data as table_data


def history_page(source: Source) -> dict:
    runs = sorted(source.files, key=date_of)
    shown = []
    # a library whose version differs between the runs (--with), named beside each run's commit
    for index, (loaded, libraries) in enumerate(zip(runs, differing_versions(runs)), start=1):
        label = commits_of([loaded]) or os.path.basename(loaded.path)
        shown.append({"label": label, "shown": f"{index}: {label}" + (" (dirty)" if loaded.dirty else ""),
                      "libraries": libraries, "date": date_of(loaded)})
    benchmarks = []
    for name in dict.fromkeys(r.name for loaded in runs for r in loaded.results):
        points = [point(loaded, name) for loaded in runs]
        drawn = [p for p in points if p is not None]
        first = next((p["floor_time"] for p in drawn if p["floor_time"] is not None), None)
        for p in drawn:  # the floor against the first run drawn: how far the machine moved
            p["floor_change"] = format_change(p["floor_time"] / first - 1) if p["floor_time"] and first else "-"
        if len(drawn) >= 2:
            found = next(loaded.get(name) for loaded in runs if loaded.get(name) is not None)
            benchmarks.append({"name": name, "copies": found.copies, "floor": found.format == FLOOR[0],
                               "points": points, "table": table_data(Table.of(COLUMNS, [
                                   (run, p) for run, p in zip(shown, points) if p is not None]))})
    floor = "/".join(FLOOR)
    return {"kind": "history", "floor": floor, "runs": shown, "benchmarks": benchmarks,
            "index": {"date": f"{shown[0]['date']} to {shown[-1]['date']}", "count": len(runs),
                      "libraries": "each benchmark's multiple of the floor over the runs"},
            "legend": f"{len(runs)} runs in the order of their date. A benchmark's multiple of the floor ({floor} "
                      "of its input and tier, timed in the same processes, milliseconds apart), which the machine's "
                      "drift between runs barely moves, with the 95% interval over the run's processes; its time "
                      "behind it (dotted, right axis), which the drift moves as much as the code; its floor's time "
                      "against the first run drawn says how far the machine moved. An op that copies no tensor has "
                      "no multiple: its time alone. Only the runs that have the benchmark are drawn."}


def point(loaded: ResultFile, name: str) -> dict | None:
    """A benchmark in one run: its time, its floor's time, and for an op that copies its multiple of the
    floor with the interval over the run's processes (verdicts/timings.py)."""
    result = loaded.get(name)
    found = timing(result.benchmark) if result is not None else None
    if found is None:
        return None
    floor = loaded.floor(result)
    multiple = floor_multiple(loaded, result, found)  # the one every view prints
    low, high = (number(multiple.low), number(multiple.high)) if multiple is not None else (None, None)
    floor_time = floor.median if floor is not None else None
    return {"time": number(found.median), "floor_time": number(floor_time),
            "multiple": number(multiple.value) if multiple is not None else None, "low": low, "high": high,
            "time_text": format_time(found.median), "floor_time_text": format_time(floor_time) if floor_time else "-",
            "multiple_text": "no copy" if multiple is None else format_ratio(multiple.value)
            + (f" [{format_ratio(multiple.low)}, {format_ratio(multiple.high)}]" if low and high else "")}


# The table under the chart: a row a run that has the benchmark, (run, point) each.
COLUMNS = [Column("run", lambda rp: rp[0]["shown"], left=True),
           Column("libraries that differ", lambda rp: rp[0]["libraries"] or "-", left=True),
           Column("date", lambda rp: rp[0]["date"] or "-", left=True),
           *(Column(header, lambda rp, key=key: rp[1][key]) for key, header in (
               ("multiple_text", "multiple [95%]"), ("time_text", "time"), ("floor_time_text", "its floor's time"),
               ("floor_change", "the floor against the first")))]
