"""Two result files, BASE and NEW: the change of each benchmark, with compare's verdict.

Paired round by round when both files are the two sides of one compare session (verdicts/paired.py).
Otherwise they are two runs taken at different moments, and each benchmark is judged by its multiple
of the memcpy floor, which the machine's drift between them cannot move, beside the floor's own
drift (verdicts/apart.py); the same words and correction. views/changes.py draws them as report's
grids. (results/files.py reads the files; this module judges a pair of them.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from serialbench.core import stats
from serialbench.results.files import Result, ResultFile, load
from serialbench.verdicts import apart, vocabulary
from serialbench.verdicts import paired as paired_rows
from serialbench.verdicts.timings import paired_multiple


@dataclass
class Change:
    """One benchmark in BASE and NEW: medians, NEW/BASE ratio and the verdict of core/stats/evidence.py."""

    name: str
    base: Result
    new: Result
    ratio: float | None  # median NEW / median BASE
    verdict: str  # a word of vocabulary.WORDS; "not timed" when a side has no values
    change: float | None = None  # the engine's estimate, NEW/BASE - 1
    judged: vocabulary.Verdict | None = None  # the whole verdict (interval, level, detectable); None: not timed
    basis: str = apart.TIME  # what the verdict judged: apart.TIME, or apart.MULTIPLE (two runs apart)
    base_multiple: float | None = None  # each side's multiple of the floor, where a MULTIPLE basis judged it
    new_multiple: float | None = None


@dataclass
class FileChanges:
    """What report of two files shows: the changes, how they were judged, the selection's verdict and,
    for two runs apart, how far the floor moved between them (None for one compare session's files)."""

    changes: list[Change]
    paired: bool
    selection: vocabulary.Verdict | None
    drift: apart.Drift | None = None


def changes_between(base: ResultFile, new: ResultFile, min_effect: float | None = None,
                    names: Sequence[str] | None = None) -> FileChanges:
    """Changes for the benchmarks present in both files, in NEW's order, and the verdict of the whole
    selection: paired round by round when both files come from one compare session, as `compare`
    judged (its looks and minimum effect replayed as the files record them); otherwise by the
    multiples of the floor, beside the floor's drift (verdicts/apart.py). min_effect: None for the
    session's own (session_min_effect)."""
    pairs = [(base.get(r.name), r) for r in new.results
             if (names is None or r.name in names) and base.get(r.name) is not None]
    timed = [(b, n) for b, n in pairs if b.median is not None and n.median is not None]
    if min_effect is None:
        min_effect = session_min_effect(base, new)
    if not is_one_session(base, new):
        return changes_apart(base, new, pairs, timed, min_effect)
    rows, selection = paired_rows.compare_benchmarks({b.name: b.benchmark for b, _ in timed},
                                                     {n.name: n.benchmark for _, n in timed}, True, min_effect,
                                                     final_rounds(new), budget_rounds(new), session_looks(new))
    verdicts = {row.name: row.verdict for row in rows}
    changes = []
    for b, n in pairs:
        verdict = verdicts.get(n.name)
        changes.append(Change(n.name, b, n, n.median / b.median if verdict else None,
                              verdict.word if verdict else "not timed", verdict.change if verdict else None,
                              verdict))
    return FileChanges(changes, True, selection)


def changes_apart(base: ResultFile, new: ResultFile, pairs, timed, min_effect: float) -> FileChanges:
    """Two runs taken at different moments: each timed row judged on its multiples where both files have
    them, else on its times where the floor's drift allows (verdicts/apart.py), else FLOOR_MOVED."""
    drift = apart.floor_drift(base, new, min_effect)
    verdicts, bases, selection = apart.judge_apart(timed, drift, min_effect)
    changes = []
    for b, n in pairs:
        basis = bases.get(n.name)
        if basis is None:
            changes.append(Change(n.name, b, n, None, "not timed"))
            continue
        judged = verdicts.get(n.name)
        verdict = judged.verdict if judged else None
        # each side's multiple as the one-file report shows it (verdicts/timings.py)
        multiples = tuple(paired_multiple([math.log(v) for v in side])[0] for side in (basis.base, basis.new)) \
            if basis.kind == apart.MULTIPLE else (None, None)
        changes.append(Change(n.name, b, n, n.median / b.median, verdict.word if verdict else apart.FLOOR_MOVED,
                              verdict.change if verdict else None, verdict, basis.kind, *multiples))
    return FileChanges(changes, False, selection, drift)


def recorded(results: ResultFile, key: str) -> object | None:
    """One value of the session's metadata, when every run of the file records the same."""
    found = {run.get_metadata().get(key) for r in results.results for run in r.benchmark.get_runs()} - {None}
    return found.pop() if len(found) == 1 else None


def session_looks(results: ResultFile) -> tuple[int, ...] | None:
    """The looks of the session that wrote the file (its --rounds, --max-rounds); None for a file
    that does not record them (written before they were): the default looks."""
    looks = recorded(results, "serialbench_looks")
    return tuple(int(n) for n in str(looks).split(",")) if looks else None


def session_min_effect(base: ResultFile, new: ResultFile) -> float:
    """The minimum effect the compare session of both files judged with, else the default."""
    if not is_one_session(base, new):
        return stats.MIN_EFFECT
    found = recorded(new, "serialbench_min_effect")
    return float(found) if found is not None else stats.MIN_EFFECT


def final_rounds(results: ResultFile) -> int | None:
    """The rounds of the compare session's look that time (or an interrupt) made final, if one was."""
    found = recorded(results, "serialbench_final_rounds")
    return int(found) if found is not None else None


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


def compare_files(base_path: str, head_path: str, min_effect: float | None = None
                  ) -> tuple[list, vocabulary.Verdict | None, bool, float]:
    """The rows of two result files, their selection row, whether they were paired (both from one compare
    session, whose looks and minimum effect they replay) and the minimum effect judged with."""
    files = [load(path, with_memory=False) for path in (base_path, head_path)]
    paired = is_one_session(*files)
    min_effect = session_min_effect(*files) if min_effect is None else min_effect
    benches = [{r.name: r.benchmark for r in f.results} for f in files]
    rows, selection = paired_rows.compare_benchmarks(*benches, paired=paired, min_effect=min_effect,
                                                     final_at=final_rounds(files[1]) if paired else None,
                                                     budget_at=budget_rounds(files[1]) if paired else None,
                                                     looks=session_looks(files[1]) if paired else None)
    return rows, selection, paired, min_effect
