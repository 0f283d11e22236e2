"""Verdicts on steps: a sweep's release k -> k+1 (or interpreter 1 -> k), a bisection's sessions, and a
merge of a sweep's parts.

The one adapter between `sweep`/`bisect` and the verdict engine (verdicts/judge.py, the package core/stats/):
a session of several sides is judged on its steps, which decide when a benchmark is settled (the
adaptive rounds), and from its first side (the anchor) to every later side, for the change against
the anchor that every column shows. The steps are every adjacent pair of sides (releases, commits:
where did it change?) or, against the anchor, the first side to each later one (interpreters: is
each cheaper than the one run now?); then the steps are the changes against the anchor. The steps
are corrected together across every step and benchmark of the table; the changes against the anchor
of adjacent steps are a second table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

from serialbench.core.errors import UsageError
from serialbench.core.formatting import format_interval
from serialbench.measure.session import Session
from serialbench.verdicts import vocabulary
from serialbench.verdicts.judge import Judge, selection_verdict
from serialbench.verdicts.paired import at_common_rounds, median_of_medians

ANCHORED = "against the anchor"  # a sweep's JSON "steps_judged" when each step is the anchor -> a later side


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
    benchmarks: int = 0  # a selection row's: how many benchmarks its median is over
    names: tuple[str, ...] = ()  # and which (a sweep of two sessions has two rows for one step)

    @property
    def changed(self) -> bool:
        return self.verdict in (vocabulary.SLOWER, vocabulary.FASTER)


def change_text(step: Step) -> str:
    """'-51.0% [-52.1%, -49.8%]' (no interval when the rounds cannot give one)."""
    return format_interval(step.change, step.low, step.high)


@dataclass(frozen=True)
class Point:
    """A side on a benchmark's line (SweepRow.line): its time per op, and the ends of its change's interval."""

    side: str
    time: float  # seconds per op
    low: float
    high: float
    step: Step | None  # the change against the first side (None: the first side itself)


@dataclass(frozen=True)
class SweepRow:
    """One benchmark across the sides that ran it, in order."""

    name: str
    sides: tuple[str, ...]
    medians: tuple[float, ...]  # seconds per op: median over rounds of each round's median
    steps: tuple[Step, ...]  # sides[k] -> sides[k+1], or sides[0] -> sides[k] (Sweep.against_anchor)
    from_anchor: tuple[Step, ...]  # sides[0] -> sides[k], for k >= 1

    def median(self, side: str) -> float | None:
        return self.medians[self.sides.index(side)] if side in self.sides else None

    def step_into(self, side: str) -> Step | None:
        return next((step for step in self.steps if step.after == side), None)

    def against_anchor(self, side: str) -> Step | None:
        return next((step for step in self.from_anchor if step.after == side), None)

    def line(self) -> list[Point]:
        """The row as a line against side: the first side's median (the anchor's, or that of the first side
        that ran it), then each later side at that median times 1 + its change against the first side, its ends
        the 95% interval of that change. A change whose rounds give no interval has no ends (both at the point),
        as change_text prints none: one bound drawn and not the other would draw half an interval."""
        first = self.medians[0]
        points = [Point(self.sides[0], first, first, first, None)]
        for step in self.from_anchor:
            time = first * (1 + step.change)
            bounded = step.low > -1 and math.isfinite(step.high)
            points.append(Point(step.after, time, first * (1 + step.low) if bounded else time,
                                first * (1 + step.high) if bounded else time, step))
        return points


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
    selections: list[Step] = field(default_factory=list)  # each step's verdict on the whole selection
    files: list[str] = field(default_factory=list)  # the names of the side files its sessions wrote
    commits: dict[str, dict] = field(default_factory=dict)  # side -> its commit (sides/commits.py Commit.as_json)
    history: str = ""  # the git range the sides are commits of: 'msgpack-python v1.1.2..v1.2.0 (first-parent)'
    against_anchor: bool = False  # each step is the anchor -> a later side (a sweep of interpreters), not adjacent
    noun: str = "release"  # what a side is, in the table's words: "release" (or a commit), "interpreter"
    # side -> the library versions it ran, where the sides' differ (a sweep of interpreters: an environment
    # that took the closest release an interpreter has instead of the pinned one), for its column's header
    libraries: dict[str, str] = field(default_factory=dict)
    # --explain: each explained step's `explain` object (views/explain_table.record) by (benchmark, before,
    # after); and the decided steps it could not explain, '{benchmark} ({before} -> {after})' -> why (None:
    # not asked)
    explained: dict[tuple[str, str, str], dict] = field(default_factory=dict)
    explain_failed: dict[str, str] | None = None

    @property
    def anchor(self) -> str:
        return self.sides[0]


class StepJudges:
    """The judges of one session of several sides (labels in release order).

    One Judge (verdicts/judge.py) over every (benchmark, step) of the session decides when a
    benchmark is settled (when all its steps are) and corrects the steps together. The steps are the
    adjacent pairs of sides, or (`against_anchor`) the first side to each later one; of adjacent steps
    a second judge takes the changes against the anchor, for the table, never what stops the rounds
    (against the anchor, the steps are those changes). `table_size` is the whole sweep's count of
    steps x benchmarks: a sweep of several sessions (benchmarks some sides refuse) corrects each
    session as part of the whole table (the others' rows count as p = 1, which only makes each
    session's correction stricter than the joint one)."""

    def __init__(self, labels: Sequence[str], names: Sequence[str], looks: Sequence[int], min_effect: float,
                 table_size: int | None = None, against_anchor: bool = False):
        self.labels, self.names, self.min_effect = list(labels), list(names), min_effect
        later = range(1, len(labels))
        self.step_pairs = [(0, k) for k in later] if against_anchor else [(k - 1, k) for k in later]
        self.anchor_pairs = [] if against_anchor else [(0, k) for k in range(2, len(labels))]
        self.steps = self._judge(self.step_pairs, looks, table_size)
        self.anchored = self._judge(self.anchor_pairs, looks, None) if self.anchor_pairs else None

    def _judge(self, pairs, looks, table_size) -> Judge:
        keys = [(name, pair) for name in self.names for pair in pairs]
        padding = [("", (-1, i)) for i in range(max(0, (table_size or 0) - len(keys)))]
        return Judge(keys + padding, looks, self.min_effect)

    def _estimates(self, session: Session, names: Sequence[str], pairs) -> tuple[dict, dict]:
        runs = {}
        for name in names:
            for a, b in pairs:
                base = session.runs[self.labels[a]].get(name, [])
                head = session.runs[self.labels[b]].get(name, [])
                if base and head:
                    runs[(name, (a, b))] = (base, head)
        return at_common_rounds(runs)

    def look(self, session: Session, names: Sequence[str], look_index: int, final: Collection[str]) -> set[str]:
        """A look at every step of the undecided `names`; a benchmark is settled when every step is (every
        step of a name in `final` is: its look is its last)."""
        estimates, times = self._estimates(session, names, self.step_pairs)
        settled = self.steps.look(estimates, look_index, {key for key in estimates if key[0] in final}, times)
        if self.anchored is not None:
            estimates, times = self._estimates(session, names, self.anchor_pairs)
            self.anchored.look(estimates, look_index, {key for key in estimates if key[0] in final}, times)
        return {name for name in names if all((name, pair) in settled for pair in self.step_pairs)}

    def verdicts(self, anchored: bool = False) -> dict[tuple[str, tuple[int, int]], Step]:
        judge = self.anchored if anchored else self.steps
        if judge is None:
            return {}
        return {row.name: _step(self.labels[row.name[1][0]], self.labels[row.name[1][1]], row.verdict)
                for row in judge.rows() if row.name[0]}

    def selections(self) -> list[Step]:
        """Each step's selection row: the typical change over the session's benchmarks (judge.selection)."""
        out = []
        for pair in self.step_pairs:
            names = tuple(name for name in self.names if (name, pair) in self.steps.estimates)
            series = [self.steps.estimates[(name, pair)] for name in names]
            verdict = selection_verdict(series, self.steps.looks[0], self.min_effect, self.steps.alpha)
            if verdict is not None:
                out.append(replace(_step(self.labels[pair[0]], self.labels[pair[1]], verdict),
                                   benchmarks=len(series), names=names))
        return out


def _step(before: str, after: str, verdict: vocabulary.Verdict) -> Step:
    return Step(before, after, verdict.change, verdict.low, verdict.high, verdict.word, verdict.rounds,
                math.inf if verdict.detectable is None else verdict.detectable)


def sweep_rows(parts: Sequence[tuple[Session, StepJudges]], min_effect: float) -> list[SweepRow]:
    """One row per benchmark of every session, the steps corrected across the whole table."""
    rows = []
    for session, judges in parts:
        steps, anchored = judges.verdicts(), judges.verdicts(anchored=True)
        for name in session.names:
            keys = [(name, pair) for pair in judges.step_pairs]
            if name in session.failed or not all(key in steps for key in keys):
                continue
            row_steps = tuple(steps[key] for key in keys)
            row_anchored = tuple(anchored[(name, pair)] for pair in judges.anchor_pairs if (name, pair) in anchored)
            medians_ = tuple(median_of_medians(session.runs[label][name]) for label in judges.labels)
            from_anchor = tuple(step for step in row_steps if step.before == judges.labels[0]) + row_anchored
            rows.append(SweepRow(name, tuple(judges.labels), medians_, row_steps, from_anchor))
    return rows


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
            if step is not None and step.before == (sides[0] if first.against_anchor else before):
                steps.append(step)
        if len(sides) > 1:
            rows.append(SweepRow(name, tuple(sides), tuple(medians), tuple(steps), tuple(anchored)))
    machines = {side: owner[side].machines.get(side, {}) for side in columns}
    kept = {(row.name, step.before, step.after) for row in rows for step in row.steps}
    left_out = {k: v for part in parts for k, v in part.left_out.items()}
    # a step's selection row from the part that owns the step's later side (it timed both sides)
    selections = [step for part in parts for step in part.selections if owner.get(step.after) is part]
    return Sweep(columns, rows, first.min_effect, machines, list(first.releases), columns, None, left_out,
                 notes + machine_notes(machines), selections,
                 files=list(dict.fromkeys(name for part in parts for name in part.files)),
                 commits={k: v for part in parts for k, v in part.commits.items()}, history=first.history,
                 against_anchor=first.against_anchor, noun=first.noun,
                 libraries={k: v for part in parts for k, v in part.libraries.items() if k in columns},
                 explained={key: found for part in parts for key, found in part.explained.items()
                            if key in kept})


def machine_notes(machines: dict[str, dict]) -> list[str]:
    """A warning when the columns come from machines whose CPUs differ."""
    cpus = {(m.get("cpu", "?"), m.get("cpus", "?")) for m in machines.values()}
    if len(cpus) <= 1:
        return []
    return ["warning: the parts ran on different CPUs (" + "; ".join(f"{cpu}, {count} CPUs" for cpu, count in
                                                                    sorted(cpus, key=str))
            + "): read each column's change against the anchor timed on its own machine, not the medians "
              "across columns"]


def sweep_from_json(text: str, path: str) -> Sweep:
    """A sweep's --json file (views/verdict_json.sweep_keys) back, for --merge and the site; anything
    else is a one-line UsageError."""
    try:
        data = json.loads(text)
        sides = data["sides"]
        rows = []
        for bench in data["benchmarks"]:
            ran = [(side, median) for side, median in zip(sides, bench["medians"]) if median is not None]
            rows.append(SweepRow(bench["name"], tuple(s for s, _ in ran), tuple(m for _, m in ran),
                                 tuple(read_step(s) for s in bench["steps"]),
                                 tuple(read_step(s) for s in bench["from_anchor"])))
        shard = tuple(int(part) for part in data["shard"].split("/")) if data.get("shard") else None
        return Sweep(sides, rows, data["min_effect"], data.get("machines", {}), data.get("releases") or sides,
                     data.get("own") or sides, shard, data.get("left_out", {}),
                     selections=[replace(read_step(s), benchmarks=s.get("benchmarks", 0),
                                         names=tuple(s.get("names", ()))) for s in data.get("selection", [])],
                     files=[str(name) for name in data.get("files", [])], commits=dict(data.get("commits") or {}),
                     history=str(data.get("history") or ""), against_anchor=data.get("steps_judged") == ANCHORED,
                     noun=str(data.get("side_noun") or "release"), libraries=dict(data.get("libraries") or {}),
                     explained={(bench["name"], step["from"], step["to"]): step["explain"]
                                for bench in data["benchmarks"] for step in bench["steps"] if "explain" in step},
                     explain_failed=data.get("explain_failed"))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{path} is not a sweep's --json file ({type(exc).__name__}: {exc}); give the files "
                         "that 'sweep --json FILE' wrote") from None


def read_step(data: dict) -> Step:
    """A step of a sweep's or bisection's JSON (views/verdict_json._step) back: a null bound is no bound."""
    low = data["low"] if data["low"] is not None else -1.0
    high = data["high"] if data["high"] is not None else math.inf
    change = data["change"] if data["change"] is not None else math.nan
    return Step(data["from"], data["to"], change, low, high, data["verdict"], data.get("rounds", 0))
