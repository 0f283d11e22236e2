"""A sweep's sessions and its table: one session per group of sides (sides/sweep_plan.py `side_groups`),
each judged on its steps while it runs (verdicts/steps.py StepJudges) and its side files written; then the
table (Sweep) of them all, with what the sweep knows of its sides.

How a session is timed (the engine, its progress lines) is the caller's, as in verdicts/bisection.py:
`time_session(sides, names, settings, look) -> Session`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from serialbench.measure.session import Session, Settings, share_of
from serialbench.results.paths import safe_stem
from serialbench.results.session_files import machines, write_session_files
from serialbench.sides.sweep_plan import Plan
from serialbench.verdicts.steps import StepJudges, Sweep, SweepRow, sweep_rows


@dataclass
class SweepSessions:
    """The sessions taken, each with its judges; the names of the side files they wrote; whether the last
    was interrupted (the sweep stops there)."""

    min_effect: float
    parts: list[tuple[Session, StepJudges]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    interrupted: bool = False

    @property
    def failed(self) -> dict[str, str]:
        return {name: why for session, _ in self.parts for name, why in session.failed.items()}

    @property
    def rounds(self) -> int:
        """The most rounds a session took."""
        return max((session.rounds for session, _ in self.parts), default=0)

    @property
    def budget_rounds(self) -> dict[str, int]:
        """The benchmarks whose time ran out, with the rounds they had."""
        return {name: ended for session, _ in self.parts for name, ended in session.budget_rounds.items()}

    def rows(self, usable) -> list[SweepRow]:
        """A row per benchmark, in the order the usable sides list them."""
        order = {name: index for index, name in enumerate(n for item in usable for n in item.listed)}
        return sorted(sweep_rows(self.parts, self.min_effect), key=lambda row: order.get(row.name, len(order)))

    def sweep(self, plan: Plan, usable, rows: list[SweepRow], own: list[str], shard, left_out: dict[str, str],
              explained: dict, explain_failed: dict[str, str] | None) -> Sweep:
        """The table: a column per usable side, with where each was timed, the plan's commits and history,
        and each step's selection row."""
        columns = [item.side.label for item in usable]
        return Sweep(columns, rows, self.min_effect,
                     machines([(session, judges.labels) for session, judges in self.parts]),
                     plan.all_labels, [c for c in own if c in columns], shard, left_out,
                     selections=[step for _, judges in self.parts for step in judges.selections()], files=self.files,
                     commits={label: plan.described[label].as_json() for label in plan.all_labels
                              if label in plan.described},
                     history=plan.history, against_anchor=plan.against_anchor, noun=plan.noun,
                     # interpreters' environments may hold other versions than pinned (the closest one that has
                     # a release for it): each column says what its side ran, as compare's header does
                     libraries={item.side.label: ", ".join(item.side.ran) for item in usable
                                if plan.noun == "interpreter" and item.side.ran},
                     explained=explained, explain_failed=explain_failed)


def time_groups(groups, settings: Settings, min_effect: float, against_anchor: bool, started: float,
                time_session: Callable[..., Session], say: Callable[[str], None]) -> SweepSessions:
    """A session per group, in order, each given its share of the time left (measure/session.share_of) and
    corrected as part of the whole table (every step x benchmark of every group)."""
    timed = SweepSessions(min_effect)
    table_size = sum((len(group_sides) - 1) * len(names) for group_sides, names in groups)
    for index, (group_sides, names) in enumerate(groups):
        judges = StepJudges([side.label for side in group_sides], names, settings.looks, min_effect, table_size,
                            against_anchor=against_anchor)
        share = share_of(settings, groups, index, time.monotonic() - started)
        session = time_session(group_sides, names, share, judges.look)
        timed.parts.append((session, judges))
        stem = f"sweep-{safe_stem(group_sides[0].description)}-to-{safe_stem(group_sides[-1].description)}"
        timed.files += [path.name for path in write_session_files(session, group_sides, say, "sweep", stem,
                                                                  share, min_effect)]
        if session.interrupted:
            timed.interrupted = True
            break
    return timed
