"""The keys of the machine-readable verdicts (`--json FILE`) of sweep and bisect, their Documents' (a
sweep's is read back by verdicts/steps.sweep_from_json); compare's and report BASE NEW's are compare's
document's (views/verdict_table.compare_document).

A step's keys are the verdict columns' (views/verdict_table.py): the JSON has every column the tables
have. Changes are fractions (+0.05: 5% more time), times are seconds per op, verdicts are the table's
words; a number that is not finite (an interval that a round or two cannot give) is null.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from serialbench.verdicts import vocabulary
from serialbench.verdicts.bisection import Result
from serialbench.verdicts.steps import ANCHORED, Step, Sweep
from serialbench.views.table import Table, records
from serialbench.views.table import number as _number
from serialbench.views.verdict_table import verdict_columns

if TYPE_CHECKING:
    from serialbench.sides.commits import Commit

SWEEP_FORMAT = 1


# A step holds its word in `verdict` and no level: its verdict's columns read it as a vocabulary.Verdict.
def _as_verdict(step: Step) -> vocabulary.Verdict:
    return vocabulary.Verdict(change=step.change, low=step.low, high=step.high, level=math.nan,
                         detectable=None if math.isinf(step.detectable) else step.detectable, word=step.verdict,
                         rounds=step.rounds, p_value=math.nan)


STEP_COLUMNS = [c for c in verdict_columns(of=_as_verdict) if c.header != "level"]


def _step(step: Step) -> dict:
    return {"from": step.before, "to": step.after, **records(Table.of(STEP_COLUMNS, [step]))[0]}


def sweep_keys(sweep: Sweep) -> dict:
    """A sweep's --json keys (views/sweep_table.sweep_document's)."""
    return {
        "sides": sweep.sides,
        "benchmarks": [{"name": row.name, "medians": [_number(row.median(side)) for side in sweep.sides],
                        "steps": [{**_step(step), **_explained(sweep.explained, (row.name, step.before, step.after))}
                                  for step in row.steps],
                        "from_anchor": [_step(step) for step in row.from_anchor]} for row in sweep.rows],
        "anchor": sweep.anchor, "min_effect": sweep.min_effect, "machines": sweep.machines,
        "releases": sweep.releases, "own": sweep.own,
        "shard": f"{sweep.shard[0]}/{sweep.shard[1]}" if sweep.shard else None,
        "left_out": sweep.left_out, "format": SWEEP_FORMAT,
        "selection": [{**_step(step), "benchmarks": step.benchmarks, "names": list(step.names)}
                      for step in sweep.selections],
        "files": sweep.files,  # the side files it wrote: the site gives its page these and no others
        "commits": sweep.commits, "history": sweep.history or None,  # sides that are commits of a git history
        # a sweep of interpreters: each step is the anchor -> a later side (a sweep of releases has neither key)
        **({"steps_judged": ANCHORED} if sweep.against_anchor else {}),
        **({"side_noun": sweep.noun} if sweep.noun != "release" else {}),
        **({"libraries": sweep.libraries} if sweep.libraries else {}),  # side -> its versions, where they differ
        **({"explain_failed": sweep.explain_failed} if sweep.explain_failed is not None else {}),  # --explain
    }


def _explained(explained: Mapping[tuple, dict], key: tuple) -> dict:
    """A step's `explain` object (views/explain_table.record), where --explain explained it."""
    return {"explain": explained[key]} if explained.get(key) else {}


def bisect_keys(benchmark: str, good: str, bad: str, result: Result, sessions: Sequence[dict],
                history: Mapping[str, Commit] | None = None, skipped: Mapping[str, str] | None = None,
                named: str = "", explained: Mapping[tuple[str, str], dict] | None = None,
                explain_failed: Mapping[str, str] | None = None, direction: str = "changed",
                minutes: float | None = None) -> dict:
    """bisect's --json keys: the steps found (each with its share of the whole change), the whole change,
    what was left unsearched and why, and every session; the direction searched and the minutes it took, so
    that the site says what the terminal did. changed_at ... verdict: the first step, as before bisect found
    several; uncertain: the notes, joined (notes: each). Over commits (--repo): each commit of the range
    (commits, in order), those skipped and why, and the range (history). With --explain: each explained
    step's `explain` object, and the steps it could not explain (explain_failed)."""
    first = _step(result.steps[0]) if result.steps else {}
    commits = {label: commit.as_json() for label, commit in (history or {}).items()}
    return {
        **({"commits": commits, "order": list(commits), "skipped": dict(skipped or {}), "history": named}
           if commits else {}),
        "benchmark": benchmark, "good": good, "bad": bad,
        "changed_at": first.get("to"), "previous": first.get("from"),
        **{key: first.get(key) for key in ("change", "low", "high", "verdict")},
        "uncertain": "; ".join(result.notes) or None, "notes": list(result.notes),
        "direction": direction, "minutes": _number(minutes, 3),
        "steps": [{**_step(step), "share": _number(result.share(step), 3),
                   **_explained(explained or {}, (step.before, step.after))} for step in result.steps],
        "whole": _step(result.whole) if result.whole else None,
        "unsearched": [{"from": bracket.low, "to": bracket.high, "why": why,
                        **({"step": _step(bracket.step)} if bracket.step else {})}
                       for bracket, why in result.unsearched],
        "complete": result.complete,
        "sessions": [{"sides": session["sides"], "rounds": session["rounds"], "minutes": session["minutes"],
                      "steps": [_step(step) for step in session["steps"]]} for session in sessions],
        **({"explain_failed": dict(explain_failed)} if explain_failed is not None else {}),  # --explain
    }
