"""bisect's search: every step of a range of releases, from the verdicts of paired sessions.

A bracket is two releases whose step changed (or sits at the threshold) with releases between.
The search times a bracket's two ends and the release halfway (one session of three sides, as
`git bisect` halves a range), and each half that changed becomes a bracket of its own: so a cost
that crept up over several releases is followed into every half that moved, not only the first.
A bracket of at most SWEEP_AT releases is timed whole instead, every release in one session (a
sweep of the bracket): halving it would take two sessions of three sides where one of four
decides every step, and a session of up to three steps can still flag a lone step after 8 rounds
(the smallest p of 8 rounds, 1/128, is under 5% x 1/2 / 3; not under 5% x 1/2 / 4).

The brackets with the largest change go first, so that a budget (sessions, minutes) spends itself
on the biggest steps, and what is left when it runs out is named. A step is found when it is
between two releases with none between them and its verdict is slower/faster (or at the threshold,
which is measured: about the minimum effect); its share is its part of the whole change from GOOD
to BAD (log changes add up). A half that is "no change" is not searched: steps that cancel inside
it are not found (a sweep of its releases finds them).

Pure logic: the caller passes `session(versions) -> steps` (the adjacent steps, then first to last
when there are more than two) and `runs(version) -> bool`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from serialbench.core.errors import UsageError
from serialbench.verdicts import vocabulary
from serialbench.verdicts.steps import Step, StepJudges, SweepRow, change_text, read_step, sweep_rows

RETRIES = 2  # a too-noisy session is taken again with 2x, then 4x the rounds
SWEEP_AT = 4  # a bracket of at most this many releases, its ends included, is timed whole
WANTED = {"slower": {vocabulary.SLOWER}, "faster": {vocabulary.FASTER},
          "changed": {vocabulary.SLOWER, vocabulary.FASTER}}


@dataclass(frozen=True)
class Bracket:
    """Releases `low` to `high` (of the search's versions), with the verdict of their step."""

    low: str
    high: str
    step: Step | None = None  # None: not timed yet (the whole range before the first session)

    @property
    def size(self) -> float:
        """Its change in log terms: the larger the sooner it is searched."""
        if self.step is None or not math.isfinite(self.step.change) or self.step.change <= -1:
            return math.inf
        return abs(math.log1p(self.step.change))


@dataclass
class Result:
    """What the search found: the steps in release order, the whole change, what it could not say."""

    steps: list[Step] = field(default_factory=list)
    whole: Step | None = None  # GOOD -> BAD, from the first session
    notes: list[str] = field(default_factory=list)  # why part of the answer is uncertain
    unsearched: list[tuple[Bracket, str]] = field(default_factory=list)  # (bracket, why)
    interrupted: bool = False

    def share(self, step: Step) -> float | None:
        """The step's part of the whole change (log changes add up); None when the whole is no change
        (the steps then cancel) or has no estimate."""
        whole = self.whole
        if whole is None or whole.verdict not in (vocabulary.SLOWER, vocabulary.FASTER, vocabulary.AT_THRESHOLD):
            return None
        if not (-1 < whole.change and -1 < step.change) or whole.change == 0:
            return None
        return math.log1p(step.change) / math.log1p(whole.change)

    @property
    def complete(self) -> bool:
        return not (self.notes or self.unsearched or self.interrupted)


class Search:
    """The search over `versions` (oldest first, GOOD and BAD at the ends, both runnable)."""

    def __init__(self, versions: Sequence[str], session: Callable[[list[str]], list[Step] | None],
                 runs: Callable[[str], bool], direction: str = "changed",
                 out_of_budget: Callable[[], str | None] = lambda: None):
        self.candidates = list(versions)  # a release that cannot run the benchmark leaves
        self.session, self.runs, self.out_of_budget = session, runs, out_of_budget
        self.direction = direction
        self.wanted = WANTED[direction]

    def worth_searching(self, step: Step) -> bool:
        """Whether a step is one the search looks for: slower/faster as asked, or at the threshold in
        the direction asked (measured, about the minimum effect: a bracket of it may hold a larger one)."""
        if step.verdict in self.wanted:
            return True
        if step.verdict != vocabulary.AT_THRESHOLD:
            return False
        return {"slower": step.change > 0, "faster": step.change < 0}.get(self.direction, True)

    def members(self, bracket: Bracket) -> list[str]:
        index = self.candidates.index
        return self.candidates[index(bracket.low):index(bracket.high) + 1]

    def chosen(self, bracket: Bracket) -> list[str]:
        """The releases a session of this bracket times: all of them when few, else the ends and the
        runnable release halfway."""
        members = self.members(bracket)
        if len(members) <= SWEEP_AT:
            for version in members[1:-1]:
                if not self.runs(version):
                    self.candidates.remove(version)
            return self.members(bracket)
        while True:
            middle = members[(len(members) - 1) // 2]
            if self.runs(middle):
                return [members[0], middle, members[-1]]
            self.candidates.remove(middle)
            members = self.members(bracket)
            if len(members) <= SWEEP_AT:
                return self.chosen(bracket)

    def run(self) -> Result:
        result = Result()
        queue = [Bracket(self.candidates[0], self.candidates[-1])]
        while queue:
            queue.sort(key=lambda bracket: -bracket.size)
            why = self.out_of_budget()
            if why:
                result.unsearched += [(bracket, why) for bracket in queue]
                break
            bracket = queue.pop(0)
            chosen = self.chosen(bracket)
            steps = self.session(chosen)
            if steps is None:  # interrupted
                result.interrupted = True
                result.unsearched += [(b, "interrupted") for b in [bracket, *queue]]
                break
            halves = steps[:len(chosen) - 1]
            whole = steps[-1] if len(chosen) > 2 else halves[0]
            if result.whole is None:
                result.whole = whole
            queue += self.judge(bracket, chosen, halves, whole, result)
        result.steps.sort(key=lambda step: self.candidates.index(step.after))
        return result

    def judge(self, bracket: Bracket, chosen: list[str], halves: list[Step], whole: Step,
              result: Result) -> list[Bracket]:
        """The brackets a session leaves to search; the steps it found and its notes go to result."""
        first = result.whole is whole
        later = []
        for step in halves:
            if step.verdict == vocabulary.TOO_NOISY:
                why = self.out_of_budget()
                if why:  # the budget ran out during the session: its last look was cut short
                    result.unsearched.append((Bracket(step.before, step.after, step), why))
                else:
                    result.notes.append(
                        f"too noisy to tell whether {step.before} -> {step.after} changed after {step.rounds} rounds"
                        + (f" (detectable: {step.detectable * 100:.1f}%)" if math.isfinite(step.detectable) else "")
                        + f": the step may be smaller than this machine's noise allows; a change there is between "
                          f"{step.before} and {step.after}")
            elif self.worth_searching(step):
                if len(self.members(Bracket(step.before, step.after))) == 2:
                    result.steps.append(step)
                else:
                    later.append(Bracket(step.before, step.after, step))
        decided = all(step.verdict != vocabulary.TOO_NOISY for step in halves)
        if decided and not any(self.worth_searching(step) for step in halves):
            if whole.verdict in self.wanted and len(chosen) > 2:
                result.notes.append(f"{whole.before} -> {whole.after} changed ({change_text(whole)}) but no step "
                                    "between its releases did: the change is spread over several releases, each "
                                    "step under the minimum effect")
            elif not first and bracket.step is not None and bracket.step.verdict in self.wanted:
                result.notes.append(f"no step of {' nor '.join(f'{s.before} -> {s.after}' for s in halves)} changed, "
                                    f"though an earlier session put a change between {bracket.low} and "
                                    f"{bracket.high}: the steps are near the minimum effect")
            elif first and whole.verdict == vocabulary.TOO_NOISY:
                result.notes.append(f"no step changed, and {whole.before} -> {whole.after} is too noisy to tell "
                                    f"({change_text(whole)})")
        return later


class Bisection:
    """The search's sessions: the sides made so far (one a release, by `side_of`), the sessions taken
    (by `time_session`, with the settings' looks doubled while a step is too noisy), and the budget
    (sessions, minutes) they spend. What to time in and how are the caller's; which sessions to take
    and when to stop are this class's and Search's."""

    def __init__(self, versions: list[str], benchmark: str, side_of: Callable[[str], tuple[object | None, str]],
                 time_session: Callable, settings, min_effect: float, direction: str = "changed",
                 max_sessions: int | None = None, max_minutes: float | None = None,
                 show: Callable[[int, dict], None] = lambda number, record: None,
                 say: Callable[[str], None] = lambda line: None):
        self.versions, self.benchmark, self.side_of, self.time_session = versions, benchmark, side_of, time_session
        self.settings, self.min_effect, self.direction = settings, min_effect, direction
        self.show, self.say = show, say
        self.sides: dict[str, object | None] = {}  # version -> its side, None when it cannot run the benchmark
        self.skipped: dict[str, str] = {}  # version -> why it cannot run the benchmark
        self.sessions: list[dict] = []
        self.rows: list[SweepRow] = []  # each session's row of the benchmark, for the medians of its sides
        self.interrupted = False
        self.started = time.monotonic()
        self.max_sessions = max_sessions
        self.max_minutes = max_minutes
        self.max_seconds = max_minutes and max_minutes * 60

    def side(self, version: str):
        if version not in self.sides:
            self.sides[version], why = self.side_of(version)
            if self.sides[version] is None:
                self.skipped[version] = why
        return self.sides[version]

    def out_of_budget(self) -> str | None:
        """Why no further session may start (--max-sessions, --max-time), or None."""
        if self.max_sessions is not None and len(self.sessions) >= self.max_sessions:
            return f"--max-sessions {self.max_sessions} ran out"
        if self.max_seconds is not None and time.monotonic() - self.started >= self.max_seconds:
            return f"--max-time {self.max_minutes:g} min ran out"
        return None

    def session(self, versions: list[str]) -> list[Step] | None:
        """The steps between `versions` (adjacent pairs, then first to last), taking the session again
        with more rounds while a step is too noisy and the budget allows; None when interrupted."""
        sides = [self.side(v) for v in versions]
        settings = self.settings
        for attempt in range(RETRIES + 1):
            left = None if self.max_seconds is None else max(self.max_seconds - (time.monotonic() - self.started), 1.0)
            scaled = replace(settings, looks=tuple(n * 2 ** attempt for n in settings.looks), max_seconds=left)
            judges = StepJudges(versions, [self.benchmark], scaled.looks, self.min_effect)
            session = self.time_session(sides, scaled, judges.look)
            rows = sweep_rows([(session, judges)], judges.min_effect)
            if session.interrupted:
                self.interrupted = True
            if not rows:
                why = session.failed.get(self.benchmark, "no rounds")
                raise UsageError(f"the session of {', '.join(versions)} failed: {why}")
            self.rows.append(rows[0])
            steps = list(rows[0].steps) + ([rows[0].from_anchor[-1]] if len(versions) > 2 else [])
            record = {"sides": versions, "rounds": session.rounds, "minutes": round(session.seconds / 60, 2),
                      "steps": steps}
            self.sessions.append(record)
            self.show(len(self.sessions), {**record, "minutes": session.seconds / 60})
            if self.interrupted:
                return None
            if not any(s.verdict == vocabulary.TOO_NOISY for s in steps[:len(versions) - 1]) or self.out_of_budget():
                return steps
            if attempt < RETRIES:
                self.say(f"too noisy to tell: the session again with {2 ** (attempt + 1)}x the rounds")
        return steps

    def step_row(self, step: Step) -> SweepRow | None:
        """A step found as a row of its two sides alone, their medians from the last session that timed both
        (bisect --explain scales each side's profile to them)."""
        for row in reversed(self.rows):
            if step.before in row.sides and step.after in row.sides:
                return SweepRow(row.name, (step.before, step.after), (row.median(step.before), row.median(step.after)),
                                (step,), ())
        return None

    def run(self) -> Result:
        for end in (self.versions[0], self.versions[-1]):
            if self.side(end) is None:
                raise UsageError(f"{end} cannot run {self.benchmark} (see above); choose GOOD and BAD that can")
        search = Search(self.versions, self.session, lambda version: self.side(version) is not None,
                        self.direction, self.out_of_budget)
        return search.run()


def bisect_from_json(text: str, path: str) -> Result:
    """A bisection's --json file (views/verdict_json.bisect_keys) back as its search's Result, for the site;
    anything else is a one-line UsageError. A file of before bisect found several steps gives its one step
    (changed_at) and no whole change; the notes of one that kept only their join come back as that one note."""
    try:
        data = json.loads(text)
        if "steps" in data:
            steps = [read_step(step) for step in data["steps"]]
        else:
            first = {"from": data["previous"], "to": data["changed_at"],
                     **{key: data.get(key) for key in ("change", "low", "high", "verdict")}}
            steps = [read_step(first)] if data.get("changed_at") else []
        unsearched = [(Bracket(left["from"], left["to"], read_step(left["step"]) if left.get("step") else None),
                       str(left["why"])) for left in data.get("unsearched") or []]
        return Result(steps, read_step(data["whole"]) if data.get("whole") else None,
                      [str(note) for note in data["notes"]] if "notes" in data else
                      [str(data["uncertain"])] if data.get("uncertain") else [], unsearched,
                      interrupted=any(why == "interrupted" for _, why in unsearched))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{path} is not a bisection's --json file ({type(exc).__name__}: {exc}); give the files "
                         "that 'bisect --json FILE' wrote") from None
