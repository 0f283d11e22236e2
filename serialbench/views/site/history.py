"""The history page's data: several run files of different commits, each benchmark's multiple of the
floor over them, with its time behind it.

A CI job that keeps its run files has a timeline of times that the machine's drift draws as much as
the code (docs/findings/runs-apart.md); the multiple of the floor, timed in the same processes, is
what the drift barely moves, so it is the line drawn. The floor's own time over the runs is drawn
beside it (relative to the first run): how far the machine moved. Runs are in the order of their date.
"""

from __future__ import annotations

import os
import statistics

from serialbench.catalog.registry import FLOOR
from serialbench.results.files import ResultFile
from serialbench.verdicts.timings import timing
from serialbench.views.site.pages import date_of, number
from serialbench.views.site.sources import Source


def history_page(source: Source) -> dict:
    runs = sorted(source.files, key=date_of)
    first_floors = floor_medians(runs[0])
    names = list(dict.fromkeys(r.name for loaded in runs for r in loaded.results))
    benchmarks = []
    for name in names:
        points = [point(loaded, name) for loaded in runs]
        if sum(p is not None for p in points) >= 2:
            found = next(loaded.get(name) for loaded in runs if loaded.get(name) is not None)
            benchmarks.append({"name": name, "copies": found.copies, "floor": found.format == FLOOR[0],
                               "points": points})
    return {"kind": "history", "floor": "/".join(FLOOR),
            "runs": [{"label": ", ".join(c[:10] for c in loaded.commits) or os.path.basename(loaded.path),
                      "date": date_of(loaded), "path": loaded.path,
                      "floor_change": number(floor_change(first_floors, floor_medians(loaded)))} for loaded in runs],
            "benchmarks": benchmarks}


def point(loaded: ResultFile, name: str) -> dict | None:
    """A benchmark in one run: its time and, for an op that copies, its multiple of the floor with the
    interval over the run's processes (verdicts/timings.py)."""
    result = loaded.get(name)
    found = timing(result.benchmark) if result is not None else None
    if found is None:
        return None
    multiple = found.multiple if result.copies else None
    return {"time": number(found.median), "multiple": number(multiple),
            "low": number(found.multiple_low) if multiple is not None else None,
            "high": number(found.multiple_high) if multiple is not None else None}


def floor_medians(loaded: ResultFile) -> dict[str, float]:
    return {r.name: r.median for r in loaded.results if r.format == FLOOR[0] and r.median}


def floor_change(first: dict[str, float], here: dict[str, float]) -> float | None:
    """The median over the floor rows of both runs of their time here against the first run: the machine's
    drift since then (+0.12: 12% slower)."""
    ratios = [here[name] / first[name] for name in first if name in here]
    return statistics.median(ratios) - 1 if ratios else None
