"""The method's constants: the error rate, the minimum effect, the flag's margin, the power that
"detectable" promises, what counts as a spoiled round, and what counts as two speeds; and the two
rules that follow from them alone (the threshold in log space, how many rounds a test may set aside)."""

from __future__ import annotations

import math

from scipy.special import ndtri

ALPHA = 0.05  # any false flag in a table (A/A: in at most 5% of sessions); false "no change" per benchmark
MIN_EFFECT = 0.02  # a change smaller than this is never "slower" or "faster"
SURE_FRACTION = 0.5  # a flag needs the interval wholly beyond this fraction of the minimum effect
POWER = 0.8  # "detectable": the change flagged this often
Z95 = float(ndtri(0.975))  # the normal quantile of a two-sided 95% interval
SPOILED = math.log(2)  # a round more than 2x from the tested change is a spoiled process, not noise
# Two speeds: cluster medians at least TWO_SPEED_GAP apart (and at most SPOILED: beyond that the slow ones
# are spoiled processes, for the set-aside), each cluster at least this share of the rounds, their means
# at least TWO_SPEED_SEPARATION within-cluster standard deviations apart.
TWO_SPEED_GAP = math.log(1.15)
TWO_SPEED_SHARE = 0.2
TWO_SPEED_SEPARATION = 5.0


def threshold(min_effect: float) -> float:
    """The minimum effect in log space, where changes are estimated."""
    return math.log1p(min_effect)



def set_aside(n: int) -> int:
    """At most how many of n rounds a test leaves out: of the farthest from the change it tests, those
    more than SPOILED away."""
    return n // 16
