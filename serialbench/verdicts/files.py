"""Two result files, BASE and NEW: the change of each benchmark, with compare's verdict.

Paired round by round when both files are the two sides of one compare session, unpaired (two
independent runs) otherwise; the same engine, words and correction as `compare`
(verdicts/paired.py). views/changes.py draws them as report's grids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from serialbench.core import stats
from serialbench.results.files import Result, ResultFile, load
from serialbench.verdicts import paired as paired_rows


@dataclass
class Change:
    """One benchmark in BASE and NEW: medians, NEW/BASE ratio and the verdict of serialbench/stats.py."""

    name: str
    base: Result
    new: Result
    ratio: float | None  # median NEW / median BASE
    verdict: str  # stats.SLOWER, FASTER, NO_CHANGE, TOO_NOISY; "not timed" when a side has no values
    change: float | None = None  # the engine's estimate, NEW/BASE - 1


def changes_between(base: ResultFile, new: ResultFile, min_effect: float = stats.MIN_EFFECT,
            names: Sequence[str] | None = None) -> tuple[list[Change], bool]:
    """Changes for the benchmarks present in both files, in NEW's order, judged as `compare` judges:
    paired round by round when both files come from one compare session, unpaired otherwise."""
    pairs = [(base.get(r.name), r) for r in new.results
             if (names is None or r.name in names) and base.get(r.name) is not None]
    timed = [(b, n) for b, n in pairs if b.median is not None and n.median is not None]
    paired = is_one_session(base, new)
    rows = paired_rows.compare_benchmarks({b.name: b.benchmark for b, _ in timed},
                                         {n.name: n.benchmark for _, n in timed}, paired, min_effect)
    verdicts = {row.name: row.verdict for row in rows}
    changes = []
    for b, n in pairs:
        verdict = verdicts.get(n.name)
        changes.append(Change(n.name, b, n, n.median / b.median if verdict else None,
                              verdict.verdict if verdict else "not timed", verdict.change if verdict else None))
    return changes, paired


def is_one_session(base: ResultFile, new: ResultFile) -> bool:
    """Both files are the two sides of one compare session (their runs were taken in lockstep)."""
    sessions = [{run.get_metadata().get("serialbench_session") for r in f.results for run in r.benchmark.get_runs()}
                for f in (base, new)]
    return len(sessions[0]) == 1 and None not in sessions[0] and sessions[0] == sessions[1]


def compare_files(base_path: str, head_path: str, min_effect: float = stats.MIN_EFFECT) -> tuple[list, bool]:
    """The rows of two result files, paired when both come from one compare session."""
    files = [load(path, with_memory=False) for path in (base_path, head_path)]
    paired = is_one_session(*files)
    benches = [{r.name: r.benchmark for r in f.results} for f in files]
    return paired_rows.compare_benchmarks(*benches, paired=paired, min_effect=min_effect), paired
