"""Two result files, BASE and NEW: the change of each benchmark, with compare's verdict.

Paired round by round when both files are the two sides of one compare session, unpaired (two
independent runs) otherwise; the same engine, words and correction as `compare`
(verdicts/paired.py). views/changes.py draws them as report's grids. (results/files.py reads the
files; this module judges a pair of them.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from serialbench.core import stats
from serialbench.results.files import Result, ResultFile, load
from serialbench.verdicts import paired as paired_rows


@dataclass
class Change:
    """One benchmark in BASE and NEW: medians, NEW/BASE ratio and the verdict of core/stats.py."""

    name: str
    base: Result
    new: Result
    ratio: float | None  # median NEW / median BASE
    verdict: str  # a word of stats.WORDS; "not timed" when a side has no values
    change: float | None = None  # the engine's estimate, NEW/BASE - 1
    judged: stats.Verdict | None = None  # the whole verdict (interval, level, detectable); None: not timed


def changes_between(base: ResultFile, new: ResultFile, min_effect: float = stats.MIN_EFFECT,
                    names: Sequence[str] | None = None) -> tuple[list[Change], bool, stats.Verdict | None]:
    """Changes for the benchmarks present in both files, in NEW's order, judged as `compare` judges:
    paired round by round when both files come from one compare session, unpaired otherwise; and the
    verdict of the whole selection."""
    pairs = [(base.get(r.name), r) for r in new.results
             if (names is None or r.name in names) and base.get(r.name) is not None]
    timed = [(b, n) for b, n in pairs if b.median is not None and n.median is not None]
    paired = is_one_session(base, new)
    rows, selection = paired_rows.compare_benchmarks({b.name: b.benchmark for b, _ in timed},
                                                     {n.name: n.benchmark for _, n in timed}, paired, min_effect,
                                                     final_rounds(new) if paired else None,
                                                     budget_rounds(new) if paired else None)
    verdicts = {row.name: row.verdict for row in rows}
    changes = []
    for b, n in pairs:
        verdict = verdicts.get(n.name)
        changes.append(Change(n.name, b, n, n.median / b.median if verdict else None,
                              verdict.word if verdict else "not timed", verdict.change if verdict else None,
                              verdict))
    return changes, paired, selection


def final_rounds(results: ResultFile) -> int | None:
    """The rounds of the compare session's look that time (or an interrupt) made final, if one was."""
    found = {run.get_metadata().get("serialbench_final_rounds") for r in results.results
             for run in r.benchmark.get_runs()} - {None}
    return int(found.pop()) if len(found) == 1 else None


def budget_rounds(results: ResultFile) -> dict[str, int]:
    """name -> the rounds of the look that its budget made its last (Settings.budget), where one did."""
    found = {}
    for r in results.results:
        rounds = {run.get_metadata().get("serialbench_budget_rounds") for run in r.benchmark.get_runs()} - {None}
        if len(rounds) == 1:
            found[r.name] = int(rounds.pop())
    return found


def is_one_session(base: ResultFile, new: ResultFile) -> bool:
    """Both files are the two sides of one compare session (their runs were taken in lockstep)."""
    sessions = [{run.get_metadata().get("serialbench_session") for r in f.results for run in r.benchmark.get_runs()}
                for f in (base, new)]
    return len(sessions[0]) == 1 and None not in sessions[0] and sessions[0] == sessions[1]


def compare_files(base_path: str, head_path: str, min_effect: float = stats.MIN_EFFECT
                  ) -> tuple[list, stats.Verdict | None, bool]:
    """The rows of two result files and their selection row, paired when both come from one compare session."""
    files = [load(path, with_memory=False) for path in (base_path, head_path)]
    paired = is_one_session(*files)
    benches = [{r.name: r.benchmark for r in f.results} for f in files]
    rows, selection = paired_rows.compare_benchmarks(*benches, paired=paired, min_effect=min_effect,
                                                     final_at=final_rounds(files[1]) if paired else None,
                                                     budget_at=budget_rounds(files[1]) if paired else None)
    return rows, selection, paired
