"""From round estimates to verdicts: the looks of a compare session, and two result files.

A session judges a table of benchmarks look by look (after 8, 16, 32, 64 rounds) and stops each one once
it is settled: changed, no change, or two speeds (a side's processes ran at two speeds that straddle
the threshold; speeds all past it from the other side's are judged as any row, and named). Pure
logic on numbers: the caller passes each benchmark's round estimates (log(HEAD/BASE) per round:
stats.round_estimate) and, for the two-speed guard, each side's per-round median time.
verdicts/paired.py feeds it sessions and files.

Why the error control holds (A/A: any flag in at most ALPHA of sessions; in general BH's FDR):
1. A look's p is exact for its benchmark: a signed-rank test whose set-aside rounds are chosen from the
   |x - d| alone (core/stats/ranks.py).
2. Over looks: a benchmark's sequential p is the smallest p / share over its looks, the shares adding up
   to at most 1 (stats.share_at): by Bonferroni it is valid whichever look it stopped at, provided the
   shares do not depend on its own signs. They depend on the schedule, the table's size and, when time
   runs out, the wall clock, which is the same whichever side of a round was faster.
3. Stopping at BH: at a look a benchmark stops as changed once BH over the table's sequential p-values so
   far flags it. Another benchmark's stopping depends on this one only through whether this one is
   flagged itself (BH flags the same rows when an unflagged p is replaced by 1), so up to its own flag a
   benchmark sees the schedule it would see had it run every look, and point 2 holds.
4. Across benchmarks: sequential p-values only fall as looks are added. The final BH therefore flags every
   benchmark that stopped as changed, and flags a subset of what BH would flag on the p-values of a
   session in which every benchmark ran every look. Those depend each on its own rounds only, and BH on
   them controls the FDR at ALPHA (in an A/A session: any flag at all). Benchmarks timed by the same two
   processes of a round share part of their noise, a positive dependence under which BH stays valid.
5. "no change" is a TOST per benchmark, each look spending its own share of ALPHA. Stopping for one
   reason only removes later looks of the other test, which can only make it more conservative.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from serialbench.core import stats
from serialbench.core.stats import sign
from serialbench.verdicts import vocabulary

CODES = {word: code for code, word in enumerate(vocabulary.WORDS)}
SLOWER, FASTER, NO_CHANGE, TOO_NOISY, TWO_SPEEDS, AT_THRESHOLD = (CODES[word] for word in vocabulary.WORDS)
TWO_SPEED_ROUNDS = 16  # the guard looks from this many rounds on: fewer rounds fake clusters too often


class Tables:
    """Many tables of `size` rows each, judged look by look; a compare session is one table.

    Vectorised so that the simulations run this very code: `look` takes every row's round estimates as
    an array (tables, size, rounds so far); rows settled before are ignored."""

    def __init__(self, tables: int, size: int, looks: Sequence[int], min_effect: float = stats.MIN_EFFECT,
                 alpha: float = stats.ALPHA):
        self.size, self.min_effect, self.alpha = size, min_effect, alpha
        self.change_shares, self.equivalence_shares = stats.look_shares(looks, size, alpha)
        self.theta = stats.threshold(min_effect)
        shape = (tables, size)
        self.sequential_p = np.ones(shape)  # the smallest p / share over the looks taken
        self.best_look = np.full(shape, -1)  # the look that gave it
        self.last_look = np.full(shape, -1)
        self.settled = np.zeros(shape, bool)
        self.two_speeds = np.zeros(shape, bool)
        self.taken: list[dict] = []  # per look: its rounds, shares and every row's evidence

    def look(self, x: np.ndarray, look_index: int, final, two_speeds: np.ndarray | None = None) -> np.ndarray:
        """Look at every unsettled row; returns the rows settled now (changed, no change, two speeds, or
        all that are left when the look is final). final: one bool, one per table (tables,), or one per
        row (tables, size): a row whose look is its last spends every later look's share here."""
        x = np.asarray(x, dtype=float)
        active = ~self.settled
        final = np.asarray(final, bool)
        final = np.broadcast_to(final[:, np.newaxis] if final.ndim == 1 else final, active.shape)
        share = np.where(final, stats.share_at(self.change_shares, look_index, True),
                         stats.share_at(self.change_shares, look_index, False))
        share_eq = np.where(final, stats.share_at(self.equivalence_shares, look_index, True),
                            stats.share_at(self.equivalence_shares, look_index, False))
        estimate, p, direction, p_eq = np.full(active.shape, np.nan), np.ones(active.shape), \
            np.ones(active.shape, int), np.ones(active.shape)
        if active.any():
            rows = x[active]
            p[active], direction[active], p_eq[active] = stats.paired_tests(rows, self.min_effect)
            # The estimate (a sort of Walsh averages) only where it can change a decision: where p / share
            # is within alpha (its rule can only raise p, to 1), or where TOST passes.
            needed = active & ((p <= self.alpha * share) | (p_eq <= self.alpha * share_eq))
            if needed.any():
                estimate[needed] = stats.paired_estimate(x[needed])
                p = np.where(needed & ~(direction * estimate >= self.theta), 1.0, p)
        with np.errstate(divide="ignore"):
            ratio = np.where(share > 0, p / share, np.inf)
        better = active & (ratio < self.sequential_p)
        self.sequential_p = np.where(better, ratio, self.sequential_p)
        self.best_look = np.where(better, look_index, self.best_look)
        changed = active & stats.benjamini_hochberg(self.sequential_p, self.alpha)[0]
        same = active & ~changed & stats.is_equivalent(p_eq, estimate, share_eq, self.min_effect, self.alpha)
        speeds = active & (False if two_speeds is None else np.asarray(two_speeds, bool))
        self.two_speeds |= speeds
        now = active & (changed | same | speeds | final)
        self.settled |= now
        self.last_look = np.where(active, look_index, self.last_look)
        self.taken.append(dict(x=x, share=np.broadcast_to(share, active.shape), estimate=estimate, p=p,
                               share_eq=np.broadcast_to(share_eq, active.shape), direction=direction, p_eq=p_eq,
                               rounds=x.shape[-1]))
        return now

    @property
    def rounds_run(self) -> np.ndarray:
        """How many rounds each row ran (0: never looked at)."""
        counts = np.array([look["rounds"] for look in self.taken] or [0])
        return np.where(self.last_look >= 0, counts[np.maximum(self.last_look, 0)], 0)

    def finish(self, details: bool = True) -> dict[str, np.ndarray]:
        """The verdicts as arrays (tables, size): word (a code of CODES), change, p_value, rounds and, with
        details, low, high, level and detectable (nan: none). The words never depend on the details."""
        flagged, count = stats.benjamini_hochberg(self.sequential_p, self.alpha)
        flagged &= ~self.two_speeds
        used = np.where(flagged, self.best_look, self.last_look)
        shape = self.sequential_p.shape
        out = {key: np.full(shape, np.nan) for key in ("change", "low", "high", "level", "detectable", "rounds",
                                                      "p_value")}
        out["word"] = np.full(shape, TOO_NOISY)
        c = stats.SURE_FRACTION * self.theta
        for index, look in enumerate(self.taken):
            here = used == index
            if not here.any():
                continue
            x, estimate, flag = look["x"][here], look["estimate"][here], flagged[here]
            # The level the verdict used: BH's for the row (R/m of alpha, R rows flagged; for a row not
            # flagged as if it were the next), times the look's share; a look that spends nothing on the
            # change test is shown at the share it would have had as the last.
            share = np.where(look["share"][here] > 0, look["share"][here], self.change_shares[-1] or 1.0)
            a = self.alpha * share * np.maximum(count[np.nonzero(here)[0]], 1) / self.size
            share_eq = look["share_eq"][here]
            a_equivalent = 2 * self.alpha * share_eq
            missing = np.isnan(estimate)
            if details:
                estimate_all, intervals = stats.paired_summary(x, [a, a_equivalent])
                estimate = np.where(missing, estimate_all, estimate)
            elif missing.any():
                estimate[missing] = stats.paired_estimate(x[missing])
            same = ~flag & stats.is_equivalent(look["p_eq"][here], estimate, share_eq, self.min_effect, self.alpha)
            word = np.where(flag, np.where(look["direction"][here] > 0, SLOWER, FASTER),
                            np.where(same, NO_CHANGE, TOO_NOISY))
            word = np.where(self.two_speeds[here], TWO_SPEEDS, word)
            undecided = word == TOO_NOISY  # at the threshold, when its interval says so (the same one shown)
            if undecided.any():
                if details:
                    low, high = (bound[undecided] for bound in intervals[0])
                else:
                    _, [(low, high)] = stats.paired_summary(x[undecided], [a[undecided]])
                low, high = stats.include_accepted(x[undecided], low, high, a[undecided], c)
                word[undecided] = np.where(stats.at_threshold(low, high, self.min_effect), AT_THRESHOLD, TOO_NOISY)
            out["word"][here] = word
            out["change"][here] = np.expm1(estimate)
            out["rounds"][here] = look["rounds"]
            p_eq = np.minimum(1.0, look["p_eq"][here] / np.maximum(share_eq, 1e-300))
            out["p_value"][here] = np.where(same, p_eq, self.sequential_p[here])
            if details:
                (low, high), (low_eq, high_eq) = intervals
                low, high = np.where(flag, (low, high), stats.include_accepted(x, low, high, a, c))
                out["low"][here] = np.expm1(np.where(same, low_eq, low))
                out["high"][here] = np.expm1(np.where(same, high_eq, high))
                out["level"][here] = np.where(same, 1 - a_equivalent, 1 - a)
        if details:
            out["detectable"] = self._detectable()
        return out

    def _detectable(self) -> np.ndarray:
        """At each row's last look: the change it would flag 4 times in 5 alone in its table (BH's level
        for a lone row: alpha * share / size); nan where none could be flagged (too few rounds for that
        level, a look that spends nothing on the change test, two speeds)."""
        out = np.full(self.sequential_p.shape, np.nan)
        c = stats.SURE_FRACTION * self.theta
        for index, look in enumerate(self.taken):
            here = (self.last_look == index) & ~self.two_speeds & (look["share"] > 0)
            if not here.any() or look["rounds"] < 2:
                continue
            x = look["x"][here]
            a = self.alpha * look["share"][here] / self.size
            kept = stats.rank_counts(x, c)[2]
            possible = 2 * np.array([stats.signed_rank_cdf(int(k))[0] for k in kept]) <= a
            _, ((low, high), (low95, high95)) = stats.paired_summary(x, [a, 0.05])
            value = stats.detectable_change((high - low) / 2, (high95 - low95) / 2, kept, self.min_effect)
            out[here] = np.where(possible & np.isfinite(value), value, np.nan)
        return out


def selection(x: np.ndarray, min_effect: float = stats.MIN_EFFECT, alpha: float = stats.ALPHA) -> dict[str, np.ndarray]:
    """The selection row of each table, paired: the typical change over its benchmarks.

    x: (tables, benchmarks, rounds), over the rounds that every benchmark ran before any could stop (the
    first look's). Each round's median over the benchmarks, then the same test, estimate and rule as a
    row, on its own at ALPHA (95% interval; 90% for no change). A round's two processes time every
    benchmark, so swapping them flips every benchmark's sign at once, and the median's: under A/A its
    sign is a fair coin and the test is exact. Later rounds time only the undecided benchmarks, whose
    typical change is another question."""
    y = np.median(np.asarray(x, dtype=float), axis=1)
    theta = stats.threshold(min_effect)
    estimate, p, direction, p_eq = stats.paired_batch(y, min_effect)
    flagged = p <= alpha
    same = ~flagged & stats.is_equivalent(p_eq, estimate, 1.0, min_effect, alpha)
    a = np.where(same, 2 * alpha, alpha)
    low, high = stats.paired_interval(y, a)
    low, high = np.where(flagged, (low, high), stats.include_accepted(y, low, high, a, stats.SURE_FRACTION * theta))
    word = np.where(flagged, np.where(direction > 0, SLOWER, FASTER), np.where(same, NO_CHANGE, TOO_NOISY))
    word = np.where((word == TOO_NOISY) & stats.at_threshold(low, high, min_effect), AT_THRESHOLD, word)
    return dict(word=word, change=np.expm1(estimate), low=np.expm1(low), high=np.expm1(high), level=1 - a,
                rounds=np.full(len(y), y.shape[1]), p_value=np.where(same, p_eq, p), detectable=np.full(len(y), np.nan))


# --- one session, by benchmark name ----------------------------------------------------------------

@dataclass(frozen=True)
class Judged:
    """A benchmark's verdict, by name: what the judge gives for each row of its table."""

    name: str
    verdict: vocabulary.Verdict


def verdict_at(out: dict[str, np.ndarray], index, modes=None) -> vocabulary.Verdict:
    value = {key: float(out[key][index]) for key in ("change", "low", "high", "level", "detectable", "p_value")}
    return vocabulary.Verdict(change=value["change"], low=value["low"], high=value["high"], level=value["level"],
                         detectable=None if math.isnan(value["detectable"]) else value["detectable"],
                         word=vocabulary.WORDS[int(out["word"][index])], rounds=int(out["rounds"][index]),
                         p_value=value["p_value"], modes=modes)


def mixed_needed(rounds: int) -> int:
    """Two speeds count when at least this many rounds pair a slow process with a fast one: a real
    share of the rounds, as for the clusters themselves."""
    return max(3, math.ceil(stats.TWO_SPEED_SHARE * rounds))


def speeds_of(times: tuple[Sequence[float], Sequence[float]]) -> tuple | None:
    """The two-speed guard on one benchmark's (BASE, HEAD) per-round times: both sides' Modes when the
    rounds mix speeds (at least mixed_needed rounds pair a slow process with a fast one), else None."""
    rounds = len(times[0])
    if rounds < TWO_SPEED_ROUNDS:
        return None
    modes = tuple(stats.two_speeds(side) for side in times)
    return modes if stats.mixed_rounds(*modes, rounds, times) >= mixed_needed(rounds) else None


def withheld(times: tuple[Sequence[float], Sequence[float]], modes: tuple | None, min_effect: float) -> bool:
    """Whether two speeds withhold the row's verdict: they do unless every speed of one side is past
    the threshold from every speed of the other (stats.speeds_apart)."""
    return bool(modes) and stats.speeds_apart(times, modes, min_effect) == 0


class Judge:
    """The looks of one compare session at one pair of sides, benchmark by benchmark.

    Call `look` once per look with every benchmark still undecided (stopping at BH compares them, so
    the schedule must ask about all of them together), then `rows` and `selection_row`. A name settled
    at an earlier look may be passed again (calibrate times a benchmark until every pair settles it):
    it is ignored. Benchmarks never passed (failed) count in the table's size, as p = 1."""

    def __init__(self, names: Sequence[str], looks: Sequence[int], min_effect: float = stats.MIN_EFFECT,
                 alpha: float = stats.ALPHA):
        self.names = list(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.looks, self.min_effect, self.alpha = tuple(looks), min_effect, alpha
        self.tables = Tables(1, len(self.names), self.looks, min_effect, alpha)
        self.estimates: dict[str, list[float]] = {}
        self.modes: dict[str, tuple] = {}

    def look(self, estimates: Mapping[str, Sequence[float]], look_index: int, final: bool | Collection,
             times: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None) -> set[str]:
        """estimates: name -> its round estimates so far, for the undecided benchmarks (all with the same
        number of rounds); final: whether this look is every benchmark's last, or the names whose last it
        is (a benchmark's budget: measure/plan.py); times: name -> (BASE's, HEAD's per-round median times)
        for the two-speed guard. Returns the names settled at this look."""
        counts = {len(values) for values in estimates.values()}
        if len(counts) > 1:
            raise ValueError(f"a look needs the same rounds for every undecided benchmark, got {sorted(counts)}")
        if not estimates:
            return set()
        x = np.zeros((1, len(self.names), counts.pop()))
        asked = np.zeros((1, len(self.names)), bool)
        speeds = np.zeros((1, len(self.names)), bool)
        last = np.full((1, len(self.names)), final, bool) if isinstance(final, bool) else \
            np.array([[name in final for name in self.names]])
        for name, values in estimates.items():
            i = self.index[name]
            if self.tables.settled[0, i]:
                continue
            x[0, i], asked[0, i] = values, True
            self.estimates[name] = list(values)
            modes = speeds_of(times[name]) if times and name in times else None
            if modes:  # named whatever the verdict; withheld only where the speeds straddle the threshold
                speeds[0, i], self.modes[name] = withheld(times[name], modes, self.min_effect), modes
            else:
                self.modes.pop(name, None)
        self.tables.settled |= ~asked  # settled before, or failed: out of this and later looks
        settled = self.tables.look(x, look_index, last, speeds)
        return {name for name in estimates if settled[0, self.index[name]] or not asked[0, self.index[name]]}

    def rows(self) -> list[Judged]:
        """The verdict of every benchmark looked at, in the order of `names`."""
        out = self.tables.finish()
        return [Judged(name, verdict_at(out, (0, self.index[name]), self.modes.get(name)))
                for name in self.names if name in self.estimates]

    def selection_row(self) -> vocabulary.Verdict | None:
        """The typical change over the selection (selection_verdict)."""
        return selection_verdict(list(self.estimates.values()), self.looks[0], self.min_effect, self.alpha)


def selection_verdict(series: Sequence[Sequence[float]], first_look: int, min_effect: float = stats.MIN_EFFECT,
                      alpha: float = stats.ALPHA) -> vocabulary.Verdict | None:
    """The typical change over benchmarks' round estimates, on the first look's rounds (those every
    benchmark ran). None for a selection of one: its row says it, and a second verdict on fewer rounds
    could only contradict it."""
    if len(series) < 2:
        return None
    first = min(first_look, min(len(values) for values in series))
    if first < 2:
        return None
    x = np.array([values[:first] for values in series])[np.newaxis]
    return verdict_at(selection(x, min_effect, alpha), 0)


# --- two result files ------------------------------------------------------------------------------

def judge_paired(estimates: Mapping[str, Sequence[float]], looks: Sequence[int],
                 min_effect: float = stats.MIN_EFFECT, alpha: float = stats.ALPHA,
                 times: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
                 final_at: int | None = None, budget_at: Mapping[str, int] | None = None
                 ) -> tuple[list[Judged], vocabulary.Verdict | None]:
    """The two files of one compare session: its looks replayed from each benchmark's rounds, so that
    `report BASE HEAD` prints the verdicts compare printed (the final flags depend only on each
    benchmark's looks, not on when it stopped). A benchmark with fewer rounds than the most stopped at the
    look at its round count. final_at: the rounds at which the session's look was final because time ran
    out or it was interrupted (record it in the files); by default the last planned look, or the last
    round count when it is not a planned one. A session whose benchmarks all settled before the last
    planned look took no final look. budget_at: name -> the rounds at which its budget made a look its
    last (measure/plan.py; the files record it)."""
    judge = Judge(list(estimates), looks, min_effect, alpha)
    last = max((len(values) for values in estimates.values()), default=0)
    if final_at is None and (last == looks[-1] or last not in looks):
        final_at = last
    planned = [n for n in looks if n < last] + [last]
    for index, rounds in enumerate(planned):
        here = {name: list(values[:rounds]) for name, values in estimates.items() if len(values) >= rounds}
        sides = {name: (base[:rounds], head[:rounds]) for name, (base, head) in (times or {}).items() if name in here}
        final = {name for name in here if rounds in (final_at, (budget_at or {}).get(name))}
        judge.look(here, index, final, sides)
    return judge.rows(), judge.selection_row()


def judge_unpaired(base: Mapping[str, Sequence[float]], head: Mapping[str, Sequence[float]],
                   min_effect: float = stats.MIN_EFFECT, alpha: float = stats.ALPHA
                   ) -> tuple[list[Judged], vocabulary.Verdict | None]:
    """Two independent runs: each benchmark's per-process median times on each side (pyperf's runs). One
    look, BH across the table, the same rule; two speeds when either side's runs cluster. The selection
    row: the median over benchmarks of their estimates (unpaired_selection)."""
    names = [name for name in base if name in head]
    evidence = [stats.unpaired_evidence(base[name], head[name], min_effect) for name in names]
    flagged, count = stats.benjamini_hochberg(np.array([e.p_change for e in evidence] or [1.0]), alpha)
    rows = []
    for name, e, flag in zip(names, evidence, flagged):
        modes = (stats.two_speeds(base[name]), stats.two_speeds(head[name]))
        speeds = modes if any(modes) else None
        apart = speeds is not None and not withheld((base[name], head[name]), speeds, min_effect)
        same = not flag and bool(stats.is_equivalent(e.p_equivalent, e.estimate, 1.0, min_effect, alpha))
        a = 2 * alpha if same else alpha * max(int(count), 1) / len(names)
        low, high = e.interval(1 - a, flagged=flag or same)
        word = (vocabulary.TWO_SPEEDS if speeds and not apart
                else (vocabulary.SLOWER if e.direction > 0 else vocabulary.FASTER)
                if flag else vocabulary.NO_CHANGE if same else undecided_word(low, high, min_effect))
        rows.append(Judged(name, vocabulary.Verdict(
            change=stats.fraction(e.estimate), low=stats.fraction(low), high=stats.fraction(high), level=1 - a,
            detectable=None if speeds and not apart else stats.detectable(e, alpha / len(names)), word=word,
            rounds=e.rounds,
            p_value=e.p_equivalent if same else e.p_change, modes=speeds)))
    return rows, unpaired_selection([e.estimate for e in evidence], min_effect, alpha)


def unpaired_selection(estimates: Sequence[float], min_effect: float = stats.MIN_EFFECT,
                       alpha: float = stats.ALPHA) -> vocabulary.Verdict | None:
    """The median over benchmarks of their (log) estimates, with the sign test across benchmarks. Two
    independent runs time each benchmark in its own worker processes, so benchmarks are independent, and
    each estimate is as likely above as below the median benchmark's change: the sign test is exact for
    it (under A/A every estimate is symmetric about 0). The same rule as a row, on its own at ALPHA."""
    e = np.sort(np.asarray([v for v in estimates if math.isfinite(v)], dtype=float))
    m = e.size
    if m < 2:
        return None
    theta = stats.threshold(min_effect)
    c = stats.SURE_FRACTION * theta
    middle = float(np.median(e))
    up, down = sign.sign_p(e, c)[0], sign.sign_p(e, -c)[1]
    direction = 1 if up <= down else -1
    p = min(1.0, 2 * min(up, down)) if direction * middle >= theta else 1.0
    p_eq = max(sign.sign_p(e, theta)[1], sign.sign_p(e, -theta)[0])
    flagged = p <= alpha
    same = not flagged and bool(stats.is_equivalent(p_eq, middle, 1.0, min_effect, alpha))
    a = 2 * alpha if same else alpha
    low, high = sign.sign_interval(e, a)
    if not flagged and not same:
        for tested in (c, -c):
            if min(sign.sign_p(e, tested)) > a / 2:
                low, high = min(low, tested), max(high, tested)
    word = ((vocabulary.SLOWER if direction > 0 else vocabulary.FASTER) if flagged
            else vocabulary.NO_CHANGE if same else undecided_word(low, high, min_effect))
    return vocabulary.Verdict(change=stats.fraction(middle), low=stats.fraction(low), high=stats.fraction(high),
                         level=1 - a, detectable=None, word=word, rounds=m, p_value=p_eq if same else p)


def undecided_word(low: float, high: float, min_effect: float) -> str:
    """The word of a row that is neither flagged, nor no change, nor two speeds (log bounds)."""
    return vocabulary.AT_THRESHOLD if bool(stats.at_threshold(low, high, min_effect)) else vocabulary.TOO_NOISY
