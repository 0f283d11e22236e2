"""bisect's answer as text: the steps found, each with its verdict, interval and share of the whole
change, then what the budget left unsearched and what makes the answer uncertain; and, as the search
goes, a line per session.

One step keeps the line bisect always printed ('BENCH: changed at 3.0 (after 2.0): slower, ...');
several are a list under a line that gives the whole change from GOOD to BAD, and a last line says
how much of it the steps found account for (the rest: steps not found, spread, or unsearched).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from serialbench.verdicts.bisection import Result
from serialbench.verdicts.steps import Step, change_text
from serialbench.views.explain_table import block_table
from serialbench.views.table import text

if TYPE_CHECKING:
    from serialbench.sides.commits import Commit


def step_text(step: Step) -> str:
    """'3.10.1 -> 3.10.2: slower, +9.1% [+8.0%, +10.2%]'."""
    return f"{step.before} -> {step.after}: {verdict_text(step)}"


def verdict_text(step: Step) -> str:
    """'slower, +9.1% [+8.0%, +10.2%]'."""
    return f"{step.verdict}, {change_text(step)}"


def session_line(number: int, record: dict) -> str:
    """'session 2 (16 rounds, 1.2 min): 3.10.0 -> 3.10.5: slower, ...; 3.10.5 -> 3.11.0: no change, ...' (its
    adjacent steps; a session's record also holds first to last)."""
    adjacent = record["steps"][:len(record["sides"]) - 1]
    return f"session {number} ({record['rounds']} rounds, {record['minutes']:.1f} min): " + "; ".join(
        step_text(step) for step in adjacent)


def commit_text(commit: Commit) -> str:
    """'9f9bdae0 2026-08-14 Convert Packer's buf_size once (#726); files: msgpack/_packer.pyx, test/test_pack.py'."""
    shown = ", ".join(commit.files[:6]) + (f" and {len(commit.files) - 6} more" if len(commit.files) > 6 else "")
    return f"{commit.label} {commit.date} {commit.subject}; files: {shown or 'none'}"


def share_text(result: Result, step: Step) -> str:
    share = result.share(step)
    return "" if share is None else f", {share * 100:.0f}% of the whole change"


def answer_lines(benchmark: str, result: Result, good: str, bad: str, direction: str, took: str,
                 history: Mapping[str, Commit] | None = None, skipped: Mapping[str, str] | None = None,
                 explained: Mapping[tuple[str, str], dict] | None = None) -> list[str]:
    """The answer; over commits (history: label -> commit), each step's commit is named under it, with
    its date, subject and files, and every commit skipped is named with why; with --explain (explained:
    (before, after) -> its `explain` object), each explained step's block under it."""
    history, skipped, explained = history or {}, skipped or {}, explained or {}

    def named(step: Step) -> list[str]:
        commit = history.get(step.after)
        found = explained.get((step.before, step.after))
        block = text(block_table(found, f"{step.before} -> {step.after}"), indent="    ") if found else []
        return [*([f"  commit {commit_text(commit)}"] if commit else []), *block]

    lines = []
    steps = result.steps
    if len(steps) == 1:
        (step,) = steps
        lines.append(f"{benchmark}: changed at {step.after} (after {step.before}): {verdict_text(step)}"
                     f"{share_text(result, step)}; {took}")
        lines += named(step)
    elif steps:
        lines.append(f"{benchmark}: {len(steps)} steps from {good} to {bad}, whose whole change is "
                     f"{verdict_text(result.whole)}; {took}")
        for step in steps:
            lines += [f"  {step_text(step)}{share_text(result, step)}", *(" " + line for line in named(step))]
        shares = [result.share(step) for step in steps]
        if all(share is not None for share in shares):
            lines.append(f"  the steps found: {sum(shares) * 100:.0f}% of the whole change")
    elif result.complete:
        what = direction if direction != "changed" else "change"
        lines.append(f"{benchmark}: no {what} from {good} to {bad}; {took}")
    else:
        said = f", whose whole change is {verdict_text(result.whole)}" if result.whole else ""
        lines.append(f"{benchmark}: no step found from {good} to {bad}{said}; {took}")
    lines += [f"skipped: {label}{f' ({history[label].subject})' if label in history else ''}: {why}"
              for label, why in skipped.items()]
    for bracket, why in result.unsearched:
        verdict = f" ({verdict_text(bracket.step)})" if bracket.step else ""
        lines.append(f"unsearched: {bracket.low} -> {bracket.high}{verdict}: {why}")
    lines += [f"uncertain: {note}" for note in result.notes]
    return lines
