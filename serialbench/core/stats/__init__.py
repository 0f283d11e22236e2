"""The statistics of the verdicts, a library that imports nothing of the project.

The one verdict engine: HEAD against BASE, for compare's paired rounds and for two independent runs.

Paired (one compare session): a round is a pair of worker processes, one per side, and its evidence is
the median over its cycles of log(HEAD/BASE). Rounds are independent; where the change is d, BASE and
HEAD*exp(-d) are exchangeable within a round, so each round's x - d is as likely to come out with
either sign. Every test here is Wilcoxon's signed-rank test of x - d with its exact null distribution:
valid whatever the shape of the noise. Its companions come from the same test:
- the estimate is the Hodges-Lehmann median of the Walsh averages (x_i + x_j) / 2;
- the interval at level 1 - a is the stretch of d around the estimate that the test does not reject
  at a, so a row's interval lies above d exactly when the test at d rejects (paired_summary).
Spoiled rounds: a worker stuck in a slow regime for its whole life (5-7x here) puts one round far out.
One such round of 16, against the change, put the exact p of the other 15 out of reach of the
correction across 80 benchmarks. So a test at d sets aside, of its n // 16 rounds farthest from d,
those more than 2x (SPOILED) from d: which rounds, depends only on the |x - d|, never on their signs,
so the test on the rest stays exact; on clean rounds nothing is set aside and nothing is lost.

Unpaired (two independent runs, `report BASE NEW`): each worker process gives its median; the same
three pieces come from the Mann-Whitney test (exact), the two-sample Hodges-Lehmann estimate and the
interval that inverts the test.

Verdicts, with theta the minimum effect and c = theta / 2 (judge.py applies them to a table):
- "slower" / "faster": the estimate is beyond +theta (-theta) and the interval, at the level that the
  correction across the table gives the row, lies wholly beyond +c (-c);
- "no change": the interval at the TOST's level lies wholly inside +-theta;
- "two speeds": a side's processes ran at one of two speeds far apart and the rounds mix them;
- "at the threshold": none of these, but the interval is narrower than theta and holds +theta or
  -theta: the change is measured, and it sits at the minimum effect (a name, not a decision: such a
  row would otherwise be "too noisy to tell", and nothing flagged or called "no change" depends on it);
- "too noisy to tell" otherwise.
So a change below theta is never flagged, and a flag is proof that the change is at least theta / 2:
a uniform change of theta / 2 or less gives any flag in at most ALPHA of sessions.

Ties (and rounds exactly at d) count against the tested direction; see rank_counts for why that is valid.

The modules, one job each (none imports anything of the project outside this package):
- constants.py: the method's constants, the threshold in log space, how many rounds a test sets aside;
- ranks.py: the exact rank tests (signed-rank, rank-sum), their estimates and the intervals that invert them;
- evidence.py: a row's tests at one look, its estimate, interval and detectable change (the verdict rule's numbers);
- error_control.py: Benjamini-Hochberg across a table, each look's share of alpha, the TOST at a share;
- two_speeds.py: two speeds on a side, and whether they straddle the threshold;
- sign.py: the sign test across benchmarks (two result files' selection row); it imports scipy.stats, so
  it is imported on its own, not from here. Its interval's order statistic is core/medians.py's.
This package re-exports the names the verdicts use, so that `stats.NAME` reads the same from any of them.
tests/test_stats_library.py holds each test to scipy's; tests/test_stats.py the verdicts' error rates.
"""

from __future__ import annotations

from serialbench.core.stats.constants import (
    ALPHA,
    MIN_EFFECT,
    POWER,
    SPOILED,
    SURE_FRACTION,
    TWO_SPEED_GAP,
    TWO_SPEED_SEPARATION,
    TWO_SPEED_SHARE,
    Z95,
    set_aside,
    threshold,
)
from serialbench.core.stats.error_control import benjamini_hochberg, can_flag, is_equivalent, look_shares, share_at
from serialbench.core.stats.evidence import (
    Evidence,
    at_threshold,
    detectable,
    detectable_change,
    finite_positive,
    fraction,
    include_accepted,
    paired_batch,
    paired_evidence,
    paired_tests,
    round_estimate,
    unpaired_evidence,
)
from serialbench.core.stats.ranks import (
    paired_estimate,
    paired_interval,
    paired_summary,
    rank_counts,
    rank_sum_cdf,
    rank_sum_interval,
    rank_sum_p,
    signed_rank_cdf,
    signed_rank_p,
)
from serialbench.core.stats.two_speeds import Modes, mixed_rounds, speeds_apart, two_speeds, two_speeds_batch

__all__ = [
    "ALPHA", "Evidence", "MIN_EFFECT", "Modes", "POWER", "SPOILED", "SURE_FRACTION", "TWO_SPEED_GAP",
    "TWO_SPEED_SEPARATION", "TWO_SPEED_SHARE", "Z95", "at_threshold", "benjamini_hochberg", "can_flag", "detectable",
    "detectable_change", "finite_positive", "fraction", "include_accepted", "is_equivalent", "look_shares",
    "mixed_rounds", "paired_batch", "paired_estimate", "paired_evidence", "paired_interval", "paired_summary",
    "paired_tests", "rank_counts", "rank_sum_cdf", "rank_sum_interval", "rank_sum_p", "round_estimate", "set_aside",
    "share_at", "signed_rank_cdf", "signed_rank_p", "speeds_apart", "threshold", "two_speeds", "two_speeds_batch",
    "unpaired_evidence",
]
