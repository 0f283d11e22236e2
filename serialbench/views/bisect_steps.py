"""bisect's answer as text: the steps found, each with its verdict, interval and share of the whole
change, then what the budget left unsearched and what makes the answer uncertain.

One step keeps the line bisect always printed ('BENCH: changed at 3.0 (after 2.0): slower, ...');
several are a list under a line that gives the whole change from GOOD to BAD, and a last line says
how much of it the steps found account for (the rest: steps not found, spread, or unsearched).
"""

from __future__ import annotations

from serialbench.core.formatting import format_interval
from serialbench.verdicts.bisection import Result
from serialbench.verdicts.steps import Step


def step_text(step: Step) -> str:
    """'3.10.1 -> 3.10.2: slower, +9.1% [+8.0%, +10.2%]'."""
    return f"{step.before} -> {step.after}: {step.verdict}, {format_interval(step.change, step.low, step.high)}"


def share_text(result: Result, step: Step) -> str:
    share = result.share(step)
    return "" if share is None else f", {share * 100:.0f}% of the whole change"


def answer_lines(benchmark: str, result: Result, good: str, bad: str, direction: str, took: str) -> list[str]:
    lines = []
    steps = result.steps
    if len(steps) == 1:
        (step,) = steps
        lines.append(f"{benchmark}: changed at {step.after} (after {step.before}): {step.verdict}, "
                     f"{format_interval(step.change, step.low, step.high)}{share_text(result, step)}; {took}")
    elif steps:
        whole = result.whole
        lines.append(f"{benchmark}: {len(steps)} steps from {good} to {bad}, whose whole change is {whole.verdict}, "
                     f"{format_interval(whole.change, whole.low, whole.high)}; {took}")
        lines += [f"  {step_text(step)}{share_text(result, step)}" for step in steps]
        shares = [result.share(step) for step in steps]
        if all(share is not None for share in shares):
            lines.append(f"  the steps found: {sum(shares) * 100:.0f}% of the whole change")
    elif result.complete:
        what = direction if direction != "changed" else "change"
        lines.append(f"{benchmark}: no {what} from {good} to {bad}; {took}")
    else:
        whole = result.whole
        said = f", whose whole change is {whole.verdict}, {format_interval(whole.change, whole.low, whole.high)}" \
            if whole else ""
        lines.append(f"{benchmark}: no step found from {good} to {bad}{said}; {took}")
    for bracket, why in result.unsearched:
        step = bracket.step
        verdict = f" ({step.verdict}, {format_interval(step.change, step.low, step.high)})" if step else ""
        lines.append(f"unsearched: {bracket.low} -> {bracket.high}{verdict}: {why}")
    lines += [f"uncertain: {note}" for note in result.notes]
    return lines
