"""The sign test across benchmarks: two independent runs time each benchmark in its own worker
processes, so benchmarks are independent, and each one's estimate is as likely above as below the
median benchmark's change (verdicts/judge.py, `unpaired_selection`). Its p-values are binomial
tails; its interval runs between two order statistics, the one core/medians.py defines for a run's
processes.

Imported on its own (not re-exported by the package): scipy.stats costs a second to import, and only
the verdicts of two result files need it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from serialbench.core import medians


def sign_p(estimates: np.ndarray, d: float) -> tuple[float, float]:
    """One-sided p-values against "the median change <= d" and ">= d"; ties count against."""
    m = estimates.size
    return float(binom.sf((estimates > d).sum() - 1, m, 0.5)), float(binom.sf((estimates < d).sum() - 1, m, 0.5))


def sign_interval(ordered: np.ndarray, a: float) -> tuple[float, float]:
    """The interval at two-sided error a for the median of sorted estimates: from the k-th smallest to
    the k-th largest (none: too few estimates to be that sure)."""
    m = ordered.size
    k = medians.order_index(m, 1 - a)
    return (float(ordered[k - 1]), float(ordered[m - k])) if k > 0 else (-math.inf, math.inf)
