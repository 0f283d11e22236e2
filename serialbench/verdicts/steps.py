"""Verdicts on steps: a sweep's release k -> k+1, a bisection's sessions, and a merge of a sweep's parts.

The one adapter between `sweep`/`bisect` and the verdict engine (core/stats.py through
verdicts/paired.py): a session of several sides gets one PairedComparison per adjacent pair of
sides, which decides when a benchmark is settled (the adaptive rounds), and one from its first side
(the anchor) to every later side, for the change against the anchor that every column shows. The
verdicts of the steps are corrected together across every step and benchmark of the table, over
every session that makes it; the changes against the anchor are a second table, corrected alike.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from serialbench.core import stats
from serialbench.core.errors import UsageError
from serialbench.measure.schedule import Session
from serialbench.verdicts.paired import PairedComparison


@dataclass(frozen=True)
class Step:
    """One side against an earlier one: the change as a fraction (+0.05: 5% more time), its 95% interval."""

    before: str
    after: str
    change: float
    low: float
    high: float
    verdict: str
    rounds: int
    detectable: float = math.inf

    @property
    def changed(self) -> bool:
        return self.verdict in (stats.SLOWER, stats.FASTER)


@dataclass(frozen=True)
class SweepRow:
    """One benchmark across the sides that ran it, in order."""

    name: str
    sides: tuple[str, ...]
    medians: tuple[float, ...]  # seconds per op: median over rounds of each round's median
    steps: tuple[Step, ...]  # sides[k] -> sides[k+1]
    from_anchor: tuple[Step, ...]  # sides[0] -> sides[k], for k >= 1

    def median(self, side: str) -> float | None:
        return self.medians[self.sides.index(side)] if side in self.sides else None

    def step_into(self, side: str) -> Step | None:
        return next((step for step in self.steps if step.after == side), None)

    def against_anchor(self, side: str) -> Step | None:
        return next((step for step in self.from_anchor if step.after == side), None)


@dataclass
class Sweep:
    """A sweep's table: its columns (sides), rows, and where each column was measured."""

    sides: list[str]
    rows: list[SweepRow]
    min_effect: float
    machines: dict[str, dict] = field(default_factory=dict)  # side -> {"host", "cpu", "cpus", "python"}
    releases: list[str] = field(default_factory=list)  # every side of the whole sweep (a shard has some)
    own: list[str] = field(default_factory=list)  # the columns this part measured for itself
    shard: tuple[int, int] | None = None
    left_out: dict[str, str] = field(default_factory=dict)  # side (or spec) -> why
    notes: list[str] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return self.sides[0]


class StepJudges:
    """The judges of one session of several sides (labels in release order)."""

    def __init__(self, labels: Sequence[str], min_effect: float, table_size: int, shares: tuple[float, ...]):
        self.labels = list(labels)
        self.min_effect = min_effect
        self.steps = [PairedComparison(a, b, min_effect, table_size, shares) for a, b in zip(labels, labels[1:])]
        self.anchored = [PairedComparison(labels[0], b, min_effect, table_size, shares) for b in labels[2:]]

    def look(self, session: Session, name: str, look_index: int, final: bool) -> bool:
        """A look at every step of `name`; settled when every step is."""
        settled = [judge.look(session, name, look_index, final) for judge in self.steps]
        for judge in self.anchored:  # looked at for the table, never what stops the rounds
            judge.look(session, name, look_index, final)
        return all(settled)


def sweep_rows(parts: Sequence[tuple[Session, StepJudges]], min_effect: float) -> list[SweepRow]:
    """One row per benchmark of every session, the steps corrected across all of them together."""
    step_verdicts = _corrected([(judge, session) for session, judges in parts for judge in judges.steps], min_effect)
    anchor_verdicts = _corrected([(judge, session) for session, judges in parts for judge in judges.anchored],
                                 min_effect)
    rows = []
    for session, judges in parts:
        for name in session.names:
            if name in session.failed or not all(name in judge.histories for judge in judges.steps):
                continue
            steps = tuple(step_verdicts[(id(judge), name)] for judge in judges.steps)
            anchored = tuple(anchor_verdicts[(id(judge), name)] for judge in judges.anchored)
            medians = tuple(_median_of_medians(session, label, name) for label in judges.labels)
            rows.append(SweepRow(name, tuple(judges.labels), medians, steps, steps[:1] + anchored))
    return rows


def _corrected(judged: Sequence[tuple[PairedComparison, Session]], min_effect: float) -> dict[tuple[int, str], Step]:
    keys, histories = [], []
    for judge, session in judged:
        for name, history in judge.histories.items():
            if name not in session.failed:
                keys.append((judge, name))
                histories.append(history)
    verdicts = stats.verdicts(histories, min_effect) if histories else []
    return {(id(judge), name): Step(judge.base, judge.head, v.change, v.low, v.high, v.verdict, v.rounds,
                                    v.detectable)
            for (judge, name), v in zip(keys, verdicts)}


def _median_of_medians(session: Session, label: str, name: str) -> float:
    return statistics.median(statistics.median(run.values) for run in session.runs[label][name])


# --- merging the parts of a sharded sweep ---------------------------------------------------------

def merge(parts: Sequence[Sweep]) -> Sweep:
    """The parts' tables as one: each column from the part that measured it for itself (the anchor
    from the first), each step from the part that timed both of its sides in one session."""
    first = parts[0]
    for part in parts[1:]:
        if part.anchor != first.anchor or part.releases != first.releases:
            raise UsageError(f"the parts are not of one sweep: anchors {first.anchor} and {part.anchor}, "
                             "or different releases; merge the parts of one sweep (same SPECs and --steps)")
    owner: dict[str, Sweep] = {first.anchor: first}
    for part in parts:
        for side in part.own[1:]:
            owner.setdefault(side, part)
    columns = [side for side in first.releases if side in owner]
    notes = [f"not measured in these parts: {', '.join(s for s in first.releases if s not in owner)}"] \
        if len(columns) < len(first.releases) else []
    names = list(dict.fromkeys(row.name for part in parts for row in part.rows))
    by_part = [{row.name: row for row in part.rows} for part in parts]
    rows = []
    for name in names:
        found = {id(part): rows_of.get(name) for part, rows_of in zip(parts, by_part)}
        sides, medians, anchored = [], [], []
        for side in columns:
            row = found[id(owner[side])]
            if row is None or side not in row.sides:
                continue
            sides.append(side)
            medians.append(row.median(side))
            if side != first.anchor:
                step = row.against_anchor(side)
                if step is not None:
                    anchored.append(step)
        steps = []
        for before, after in zip(sides, sides[1:]):
            row = found[id(owner[after])]
            step = row.step_into(after) if row else None
            if step is not None and step.before == before:
                steps.append(step)
        if len(sides) > 1:
            rows.append(SweepRow(name, tuple(sides), tuple(medians), tuple(steps), tuple(anchored)))
    machines = {side: owner[side].machines.get(side, {}) for side in columns}
    left_out = {k: v for part in parts for k, v in part.left_out.items()}
    return Sweep(columns, rows, first.min_effect, machines, list(first.releases), columns, None, left_out,
                 notes + machine_notes(machines))


def machine_notes(machines: dict[str, dict]) -> list[str]:
    """A warning when the columns come from machines whose CPUs differ."""
    cpus = {(m.get("cpu", "?"), m.get("cpus", "?")) for m in machines.values()}
    if len(cpus) <= 1:
        return []
    return ["warning: the parts ran on different CPUs (" + "; ".join(f"{cpu}, {count} CPUs" for cpu, count in
                                                                    sorted(cpus, key=str))
            + "): read each column's change against the anchor timed on its own machine, not the medians "
              "across columns"]
