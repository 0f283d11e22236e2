"""The one verdict engine: HEAD against BASE, for compare's paired rounds and for two independent runs.

Paired (one compare session): a round is a pair of worker processes, one per side, taking values in
alternation milliseconds apart. A round's evidence is the median over its cycles of log(HEAD/BASE):
the cycle pairs cancel the machine's speed, which changes within seconds, and the median ignores a
cycle spoiled by a burst of load. Rounds are independent (new processes, a new random heap), so
the change is judged over rounds, where process layout is noise:
- the estimate is the 20% trimmed mean of the round estimates, with Yuen's standard error and
  t interval (Tukey and McLaughlin; Wilcox, "Introduction to Robust Estimation", ch. 4): robust
  to spoiled rounds (a worker stuck in a slow memory regime for its whole life was seen here at
  7x) as the median is, nearly as efficient as the mean on clean rounds;
- whether it differs from zero is Wilcoxon's signed-rank test, exact: where nothing changed the
  two sides are exchangeable, so the test's false-positive rate holds whatever the noise's shape
  (see signed_rank_p for why not Yuen's t there).

Unpaired (two independent runs, `report BASE NEW`): each pyperf run (worker process) gives its
median; the two samples are compared by Yuen-Welch's trimmed t-test, the same estimator unpaired.

Verdicts, with theta = the minimum effect:
- "slower" / "faster": the change differs from zero after the correction across all benchmarks of
  the table (Benjamini-Hochberg at 5%: in an A/A comparison, where nothing changed, any flag at all
  happens in at most 5% of sessions, however many benchmarks) and the estimate is at least theta;
- "no change": equivalence within +-theta at 5% (two one-sided tests, TOST; a 90% interval inside
  +-theta): the run shows that any change is smaller than theta;
- "too noisy to tell" otherwise.
With adaptive rounds a benchmark is looked at several times; each look spends a fixed share of the
5% (a weighted Bonferroni split over looks), and a session's last look, when time runs out, also
the shares of the looks it will not take, so stopping at whichever look settles it keeps both
error rates (tests/test_stats.py proves it on synthetic sessions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

ALPHA = 0.05  # false flags over a whole table; false "no change" per benchmark
MIN_EFFECT = 0.02  # below a 2% change, call it "no change"
MIN_EFFECT_HELP = "smaller changes are 'no change'"
TRIM = 0.2
POWER = 0.8
FASTER, SLOWER, NO_CHANGE, TOO_NOISY = "faster", "slower", "no change", "too noisy to tell"
WORDS = (SLOWER, FASTER, NO_CHANGE, TOO_NOISY)


@dataclass(frozen=True)
class Evidence:
    """A change estimated in log space: estimate, standard error, degrees of freedom, samples."""

    estimate: float
    se: float
    df: float
    samples: int
    exact_p: float | None = None  # the signed-rank test's exact p, where one was computed

    @property
    def usable(self) -> bool:
        return self.df >= 1 and math.isfinite(self.se) and math.isfinite(self.estimate)

    def p_value(self) -> float:
        """Two-sided, against no change."""
        if self.exact_p is not None:
            return self.exact_p
        if not self.usable:
            return 1.0
        if self.se == 0:
            return 0.0 if self.estimate else 1.0
        return float(2 * scipy_stats.t.sf(abs(self.estimate) / self.se, self.df))

    def equivalence_p(self, threshold: float) -> float:
        """TOST: the larger of the two one-sided p-values against |change| >= threshold."""
        if not self.usable:
            return 1.0
        if self.se == 0:
            return 0.0 if abs(self.estimate) < threshold else 1.0
        return float(max(scipy_stats.t.sf((self.estimate + threshold) / self.se, self.df),
                         scipy_stats.t.cdf((self.estimate - threshold) / self.se, self.df)))

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        if not self.usable:
            return -math.inf, math.inf
        half = scipy_stats.t.ppf(1 - (1 - confidence) / 2, self.df) * self.se
        return self.estimate - half, self.estimate + half


def _finite_positive(values: Sequence[float], what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{what}: timings must be positive numbers, got {list(values)}")
    return array


def round_estimate(base_values: Sequence[float], head_values: Sequence[float]) -> float:
    """One round's log change: the median over its cycles of log(HEAD/BASE), value i with value i."""
    if len(base_values) != len(head_values) or not len(base_values):
        raise ValueError(f"a round pairs values cycle by cycle: {len(base_values)} BASE, {len(head_values)} HEAD")
    base = _finite_positive(base_values, "BASE")
    head = _finite_positive(head_values, "HEAD")
    return float(np.median(np.log(head / base)))


def _trimmed(values: np.ndarray, trim: float) -> tuple[float, float, int]:  # unpaired
    """Trimmed mean, winsorised variance, and the count left after trimming."""
    n = len(values)
    g = int(math.floor(trim * n))
    ordered = np.sort(values)
    kept = ordered[g:n - g]
    winsorised = np.clip(ordered, ordered[g], ordered[n - g - 1])
    variance = float(np.var(winsorised, ddof=1)) if n > 1 else math.inf
    return float(kept.mean()), variance, n - 2 * g


def paired_evidence(estimates: Sequence[float], trim: float = TRIM) -> Evidence:
    """The round estimates' 20% trimmed mean with Yuen's standard error; the p-value: signed_rank_p."""
    values = np.asarray(estimates, dtype=float)
    n = len(values)
    if n < 3:
        return Evidence(float(np.median(values)) if n else math.nan, math.inf, 0, n)
    mean, se = _yuen(values[np.newaxis, :], trim)
    return Evidence(float(mean[0]), float(se[0]), n - 2 * math.floor(trim * n) - 1, n, signed_rank_p(values))


def _yuen(rows: np.ndarray, trim: float) -> tuple[np.ndarray, np.ndarray]:
    """Trimmed mean and Yuen's standard error of each row."""
    n = rows.shape[1]
    g = math.floor(trim * n)
    ordered = np.sort(rows, axis=1)
    mean = ordered[:, g:n - g].mean(axis=1)
    winsorised = np.clip(ordered, ordered[:, [g]], ordered[:, [n - g - 1]])
    se = winsorised.std(axis=1, ddof=1) / ((1 - 2 * trim) * math.sqrt(n))
    return mean, se


def signed_rank_p(values: np.ndarray) -> float:
    """Two-sided p of Wilcoxon's signed-rank test, exact over the 2**n sign patterns.

    Where nothing changed, BASE and HEAD are exchangeable within a round, so each round's estimate
    is as likely to come out with either sign: the p-value is exact whatever the shape of the noise,
    and a spoiled round weighs one rank. Yuen's t approximation was measured 1.4x too small at
    p = 0.0025 over 16 rounds, which the correction across 76 benchmarks turns into false flags; a
    sign-flip test of the trimmed mean itself cannot see its first trimmed flips, so its p never
    went below 0.07 at 8 rounds, even for a 6x change.
    """
    if np.all(values == 0):
        return 1.0
    return float(scipy_stats.wilcoxon(values, method="exact" if len(values) <= 100 else "asymptotic").pvalue)


def unpaired_evidence(base: Sequence[float], head: Sequence[float], trim: float = TRIM) -> Evidence:
    """Yuen-Welch: the difference of trimmed means of log timings, two independent samples."""
    logs = [np.log(_finite_positive(sample, label)) for sample, label in ((base, "BASE"), (head, "HEAD"))]
    if min(len(sample) for sample in logs) < 2:
        return Evidence(float(np.median(logs[1]) - np.median(logs[0])) if all(map(len, logs)) else math.nan,
                        math.inf, 0, min(map(len, logs)))
    parts = []
    for sample in logs:
        n = len(sample)
        mean, variance, kept = _trimmed(sample, trim)
        d = (n - 1) * variance / (kept * (kept - 1)) if kept > 1 else math.inf
        parts.append((mean, d, kept))
    (mean_b, d_b, h_b), (mean_h, d_h, h_h) = parts
    se = math.sqrt(d_b + d_h)
    df = (d_b + d_h) ** 2 / (d_b ** 2 / (h_b - 1) + d_h ** 2 / (h_h - 1)) if se > 0 else max(h_b + h_h - 2, 1)
    return Evidence(mean_h - mean_b, se, df, min(len(logs[0]), len(logs[1])))


def benjamini_hochberg(p_values: Sequence[float], q: float = ALPHA) -> list[bool]:
    """Which hypotheses are rejected at false discovery rate q (Benjamini and Hochberg, 1995)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    cutoff = 0
    for rank, index in enumerate(order, start=1):
        if p_values[index] <= rank * q / m:
            cutoff = rank
    rejected = [False] * m
    for index in order[:cutoff]:
        rejected[index] = True
    return rejected


@dataclass(frozen=True)
class Look:
    """The evidence at one look, and the share of ALPHA that the look may spend."""

    evidence: Evidence
    share: float = 1.0


@dataclass(frozen=True)
class Verdict:
    """HEAD against BASE. Changes are fractions: +0.05 means HEAD takes 5% longer."""

    change: float
    low: float  # 95% interval of the change (per benchmark, before any correction)
    high: float
    detectable: float  # the change this run would flag 4 times in 5, were it alone in the table
    verdict: str
    rounds: int
    p_value: float  # corrected over the looks taken, not over benchmarks


def threshold(min_effect: float) -> float:
    """The minimum effect in log space, where changes are estimated."""
    return math.log1p(min_effect)


def look_shares(count: int) -> tuple[float, ...]:
    """Each look's share of ALPHA, doubling from look to look (0.1, 0.3, 0.6 for three; 0.045, 0.14,
    0.27, 0.55 for four): the first looks settle only the clearest benchmarks, and the last, which
    decides what is left, keeps most."""
    if count == 1:
        return (1.0,)
    weights = [2.0 ** index for index in range(count)]
    weights[0] = weights[1] / 3
    return tuple(weight / sum(weights) for weight in weights)


def share_at(shares: Sequence[float], look_index: int, final: bool) -> float:
    """The share of ALPHA that a look spends: its own, or, when it is the session's last (time is
    up, or interrupted), its own and every later look's, which will never be taken. The shares
    spent over a benchmark's looks still add up to at most 1 (weighted Bonferroni over looks)."""
    return sum(shares[look_index:]) if final else shares[look_index]


def sequential_p(looks: Sequence[Look]) -> float:
    """A p-value valid whichever look the benchmark stopped at: min over looks of p / share."""
    return min(1.0, min(look.evidence.p_value() / look.share for look in looks))


def is_changed_early(looks: Sequence[Look], table_size: int, limit: float, alpha: float = ALPHA) -> bool:
    """Settled as changed: significant even at Bonferroni's level, which the final correction
    across benchmarks always accepts, and at least the minimum effect."""
    return sequential_p(looks) <= alpha / table_size and abs(looks[-1].evidence.estimate) >= limit


def is_equivalent(look: Look, limit: float, alpha: float = ALPHA) -> bool:
    return look.evidence.equivalence_p(limit) <= alpha * look.share


def verdicts(histories: Sequence[Sequence[Look]], min_effect: float = MIN_EFFECT,
             alpha: float = ALPHA) -> list[Verdict]:
    """The table's verdicts: one history of looks per benchmark, corrected across the table."""
    limit = threshold(min_effect)
    p_values = [sequential_p(looks) for looks in histories]
    rejected = benjamini_hochberg(p_values, alpha)
    out = []
    for looks, p_value, significant in zip(histories, p_values, rejected):
        last = looks[-1]
        evidence = last.evidence
        if significant and abs(evidence.estimate) >= limit:
            word = SLOWER if evidence.estimate > 0 else FASTER
        elif is_equivalent(last, limit, alpha):
            word = NO_CHANGE
        else:
            word = TOO_NOISY
        low, high = evidence.interval(0.95)
        out.append(Verdict(_fraction(evidence.estimate), _fraction(low), _fraction(high),
                           detectable(evidence, len(histories), limit, alpha * last.share),
                           word, evidence.samples, p_value))
    return out


def detectable(evidence: Evidence, table_size: int, limit: float, alpha: float) -> float:
    """The smallest change flagged with 80% power at this standard error, alone among table_size."""
    if not evidence.usable:
        return math.inf
    critical = scipy_stats.t.ppf(1 - alpha / (2 * table_size), evidence.df) * evidence.se
    return _fraction(max(critical, limit) + scipy_stats.t.ppf(POWER, evidence.df) * evidence.se)


def _fraction(log_change: float) -> float:
    if math.isnan(log_change):
        return math.nan
    if log_change == math.inf:
        return math.inf
    if log_change == -math.inf:
        return -1.0
    return math.expm1(log_change)
