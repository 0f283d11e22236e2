"""sweep's table: one column per release, a line per benchmark naming where it changed, the legend.

The anchor's column gives the median time per op; every later column the change against the anchor.
A mark after a change says what the step into that release (from the previous column; in a sweep of
interpreters, from the anchor) was: `*` a step (slower or faster), `^` at the threshold (measured,
about the minimum effect), `?` too noisy to tell, `~` two speeds (a side's processes ran at one of
two speeds, and no verdict is taken from the mix). The terminal, the Markdown and the JSON are drawn from
one document (`sweep_document`).
"""

from __future__ import annotations

from serialbench.core.formatting import format_change, format_machine, format_time
from serialbench.verdicts import vocabulary
from serialbench.verdicts.steps import Step, Sweep, SweepRow, change_text
from serialbench.views.explain_table import grid_block
from serialbench.views.table import Cell, Column, Document, Row, Table, Wrapped
from serialbench.views.verdict_json import sweep_keys

MARKS = {vocabulary.SLOWER: " *", vocabulary.FASTER: " *", vocabulary.TOO_NOISY: " ?", vocabulary.TWO_SPEEDS: " ~",
         vocabulary.NO_CHANGE: "  ", vocabulary.AT_THRESHOLD: " ^"}
_COUNTED = (vocabulary.SLOWER, vocabulary.FASTER, vocabulary.AT_THRESHOLD)  # the words the summary counts


def machine_letters(sweep: Sweep) -> dict[str, str]:
    """A letter per distinct machine, when the columns come from more than one."""
    keys = list(dict.fromkeys(_machine_key(sweep.machines.get(side, {})) for side in sweep.sides))
    if len(keys) <= 1:
        return {}
    return {side: chr(ord("A") + keys.index(_machine_key(sweep.machines.get(side, {})))) for side in sweep.sides}


def _machine_key(machine: dict) -> tuple:
    return machine.get("host", "?"), machine.get("cpu", "?"), machine.get("cpus", "?")


def sweep_grid(sweep: Sweep) -> Table:
    """A row per benchmark, a column per side (headed by the library versions it ran where the sides'
    differ, and by its machine's letter where there are several): the terminal's, the Markdown's and
    the site's table."""
    letters = machine_letters(sweep)
    table = Table([Column("\n".join([side, *([sweep.libraries[side]] if side in sweep.libraries else []),
                                      *([f"[{letters[side]}]"] if letters else [])])) for side in sweep.sides],
                  corner="benchmark", code=True)
    for row in sweep.rows:
        table.rows.append(Row(row.name, [Cell([_cell(row, side, sweep.anchor)]) for side in sweep.sides],
                              block=explained_block(sweep, row)))
    return table


def explained_block(sweep: Sweep, row: SweepRow) -> Table | None:
    """Under a benchmark's row, with --explain: each of its explained steps' blocks, headed by the step
    ('2.45.0 -> 2.46.0'); BASE is the step's earlier side, HEAD its later one."""
    found = {f"{step.before} -> {step.after}": sweep.explained[key] for step in row.steps
             if (key := (row.name, step.before, step.after)) in sweep.explained}
    return grid_block(found) if found else None


def _cell(row: SweepRow, side: str, anchor: str) -> str:
    if side not in row.sides:
        return "-"
    if side == row.sides[0]:
        return format_time(row.median(side)) + ("  " if side == anchor else " (first)")
    step = row.step_into(side)
    against = row.against_anchor(side)
    text = format_change(against.change) if against else format_time(row.median(side))
    return text + (MARKS.get(step.verdict, "  ") if step else "  ")


def step_lines(sweep: Sweep) -> list[tuple[str, str]]:
    """Per benchmark, its name and each release where it changed, or that none did (each interpreter
    that differs from the anchor, naming it)."""
    lines = []
    against_anchor = sweep.against_anchor
    for row in sweep.rows:
        shown = [step for step in row.steps if _shown(step)]
        noisy = [step.after for step in row.steps if step.verdict == vocabulary.TOO_NOISY]
        mixed = [step for step in row.steps if step.verdict == vocabulary.TWO_SPEEDS]
        if shown:
            text = "; ".join(describe(step, against_anchor) for step in shown)
        else:
            text = ("no change" if against_anchor else "no step") + ("" if not noisy and not mixed else " found")
        if noisy:
            text += f" (too noisy to tell at {listed(noisy)})"
        if mixed:
            text += "; " + "; ".join(f"two speeds at {step.after}, no verdict from the mix ({change_text(step)})"
                                     for step in mixed)
        lines.append((row.name, text))
    return lines


def _shown(step: Step) -> bool:
    """A step the lines under the table name: slower, faster or at the threshold (measured, about the
    minimum effect)."""
    return step.changed or step.verdict == vocabulary.AT_THRESHOLD


def listed(labels) -> str:
    """Labels in a line, '; ' between them when a label has commas of its own (a side of several packages)."""
    labels = list(labels)
    return ("; " if any(", " in label for label in labels) else ", ").join(labels)


def describe(step: Step, against_anchor: bool = False) -> str:
    """'faster at 2.46.0, -51.0% [-52.1%, -49.8%]', '2.45.0 at the threshold, +2.0% [+1.7%, +2.3%]'
    ('faster at python 3.13 against python 3.11, ...' where each step is from the anchor)."""
    said = f"{step.verdict} at {step.after}" if step.changed else f"{step.after} {step.verdict}"
    return f"{said}{f' against {step.before}' if against_anchor else ''}, {change_text(step)}"


def summary(sweep: Sweep) -> str:
    """Which releases changed (in a sweep against the anchor: which interpreters differ from it), and
    how many benchmarks at each."""
    against = f" against {sweep.anchor}" if sweep.against_anchor else ""
    order = dict.fromkeys(side for row in sweep.rows for side in row.sides)
    words = {side: [step.verdict for row in sweep.rows for step in row.steps if step.after == side and _shown(step)]
             for side in order}
    parts = [f"{side} ({', '.join(f'{said.count(word)} {word}' for word in _COUNTED if word in said)})"
             for side, said in words.items() if said]
    if not parts:
        return f"no {sweep.noun} changed any benchmark{against}"
    return ("changes" if sweep.against_anchor else "steps") + " at " + ", ".join(parts) + against


def selection_lines(sweep: Sweep) -> list[str]:
    """Each step's verdict on the whole selection (the median over benchmarks of each round's change)."""
    pairs = [(step.before, step.after) for step in sweep.selections]
    return [f"selection{_of(step, pairs)} {step.before} -> {step.after}: {step.verdict}, {change_text(step)}"
            for step in sweep.selections]


def _of(step: Step, pairs: list[tuple[str, str]]) -> str:
    """' (of 6 benchmarks: tfserving-grpc/direct)' where two sessions of the sweep (benchmarks that
    different sides refuse) each give this step a selection row: how many, and their FORMAT/IMPL.
    Nothing where the step has one row."""
    if pairs.count((step.before, step.after)) < 2:
        return ""
    groups = list(dict.fromkeys(name.rsplit("/", 2)[0] for name in step.names))
    return f" (of {step.benchmarks} benchmarks{': ' + ', '.join(groups) if groups else ''})"


def legend(sweep: Sweep) -> list[str]:
    step = "the change against the anchor" if sweep.against_anchor else "the step from the previous column to this one"
    lines = [f"{sweep.anchor} (the anchor): median time per op. Later columns: change against the anchor (median "
             "over a round's cycles of side/anchor - 1, Hodges-Lehmann over the rounds). * after a change: "
             f"{step} is slower or faster by compare's rule, corrected across "
             "every step and benchmark of the table (minimum effect "
             f"{sweep.min_effect * 100:g}%); ^: at the threshold, a step measured well (its interval narrower "
             "than the minimum effect) whose change is about the minimum effect; ?: too noisy to tell; ~: two "
             "speeds that straddle the minimum effect, no verdict from the mix; "
             "-: not run (refused); (first): the median of the "
             "first side that ran a benchmark the anchor refused, the changes of that row against it. Intervals "
             "are at the level each verdict used."]
    letters = machine_letters(sweep)
    if letters:
        seen = {}
        for side, letter in letters.items():
            seen.setdefault(letter, sweep.machines.get(side, {}))
        lines.append("Machines: " + "; ".join(f"[{letter}] {machine_text(m)}" for letter, m in seen.items()))
    elif sweep.machines:
        lines.append("Machine: " + machine_text(next(iter(sweep.machines.values()))))
    if sweep.shard:
        lines.append(f"Part {sweep.shard[0]}/{sweep.shard[1]} of a sweep of {', '.join(sweep.releases)}: "
                     "merge the parts' --json files with 'sweep --merge'.")
    return lines


def machine_text(machine: dict) -> str:
    return format_machine(machine.get("cpu"), machine.get("cpus"), machine.get("host", "?"), machine.get("python", "?"))


def closing(sweep: Sweep) -> list[str]:
    """The paragraphs under the steps: which sides changed, what was left out, the notes (a merge's)."""
    return [summary(sweep), *(f"left out: {side}: {why}" for side, why in sweep.left_out.items()), *sweep.notes]


def sweep_document(sweep: Sweep) -> Document:
    """The table; under it each benchmark's steps (a bulleted list in Markdown) and the selection's, then
    which sides changed and the legend (wrapped in the text, as compare's footnotes are); its JSON
    views/verdict_json.sweep_keys."""
    return Document([sweep_grid(sweep)], notes=[step_lines(sweep), *selection_lines(sweep), "", *closing(sweep),
                                                *map(Wrapped, legend(sweep))], keys=sweep_keys(sweep))
