"""Each test of the statistics library (serialbench/core/stats/) held to scipy's, where scipy has it:
the rank-sum test against `mannwhitneyu` (exact, asymptotic, ties, both alternatives), the
signed-rank test against `wilcoxon`, the sign test's tail against `binomtest` and its order
statistic against the binomial's cdf, the normal quantiles against `norm`, Benjamini-Hochberg
against `false_discovery_control`. The verdicts' error rates on simulated sessions are
tests/test_stats.py's."""

import numpy as np
import pytest
from scipy import stats as scipy_stats
from scipy.special import ndtri

from serialbench.core import medians, stats
from serialbench.core.stats import sign

# --- ranks.py: the rank-sum test (two result files) --------------------------------------------------

@pytest.mark.parametrize("m, n", [(2, 2), (3, 5), (6, 6), (8, 3), (10, 12)])
def test_without_ties_the_rank_sum_p_is_scipys_exact_mann_whitney_p_on_both_sides(m, n):
    rng = np.random.default_rng(m * 100 + n)
    for _ in range(40):
        base, head = rng.normal(0, 1, m), rng.normal(0.3, 1, n)
        d = float(rng.choice([0.0, 0.01, -0.2]))
        up, down = stats.rank_sum_p(base, head, d)
        assert up == pytest.approx(
            scipy_stats.mannwhitneyu(head - d, base, alternative="greater", method="exact").pvalue, rel=1e-12)
        assert down == pytest.approx(
            scipy_stats.mannwhitneyu(head - d, base, alternative="less", method="exact").pvalue, rel=1e-12)


def test_with_ties_the_rank_sum_p_is_scipys_exact_p_with_each_tie_broken_against_the_tested_side():
    rng = np.random.default_rng(7)
    tiny = 1e-9
    for _ in range(200):
        m, n = int(rng.integers(2, 9)), int(rng.integers(2, 9))
        base, head = rng.integers(0, 4, m) / 100, rng.integers(0, 4, n) / 100  # many ties
        up, down = stats.rank_sum_p(base, head)
        assert up == pytest.approx(
            scipy_stats.mannwhitneyu(head - tiny, base, alternative="greater", method="exact").pvalue, rel=1e-12)
        assert down == pytest.approx(
            scipy_stats.mannwhitneyu(head + tiny, base, alternative="less", method="exact").pvalue, rel=1e-12)


def test_on_large_samples_the_exact_rank_sum_p_is_near_scipys_asymptotic_one():
    rng = np.random.default_rng(8)
    for _ in range(20):
        base, head = rng.normal(0, 1, 40), rng.normal(0.4, 1, 45)
        up, down = stats.rank_sum_p(base, head)
        asymptotic = scipy_stats.mannwhitneyu(head, base, alternative="greater", method="asymptotic")
        assert up == pytest.approx(asymptotic.pvalue, abs=2e-3)
        asymptotic = scipy_stats.mannwhitneyu(head, base, alternative="less", method="asymptotic")
        assert down == pytest.approx(asymptotic.pvalue, abs=2e-3)


def test_the_rank_sum_interval_holds_the_shifts_the_test_does_not_reject():
    rng = np.random.default_rng(9)
    base, head = rng.normal(0, 0.02, 12), rng.normal(0.05, 0.02, 10)
    low, high = stats.rank_sum_interval(base, head, 0.05)
    for d in np.linspace(low - 0.02, high + 0.02, 81):
        up, down = stats.rank_sum_p(base, head, d)
        inside = low < d < high
        assert (min(up, down) > 0.025) == inside or np.isclose(d, [low, high]).any()


# --- ranks.py: the signed-rank test (compare's rounds) -----------------------------------------------

def test_without_ties_the_signed_rank_p_is_scipys_exact_wilcoxon_p():
    rng = np.random.default_rng(11)
    x = rng.normal(0.2, 1, (200, 12))
    up, down = stats.signed_rank_p(x, 0.1)
    for row, u, d in zip(x, up, down):
        assert u == pytest.approx(scipy_stats.wilcoxon(row - 0.1, alternative="greater", method="exact").pvalue)
        assert d == pytest.approx(scipy_stats.wilcoxon(row - 0.1, alternative="less", method="exact").pvalue)


# --- sign.py and core/medians.py: the sign test ------------------------------------------------------

def test_the_sign_tests_p_is_scipys_binomial_test_with_ties_counted_against():
    rng = np.random.default_rng(12)
    for _ in range(300):
        m = int(rng.integers(2, 60))
        estimates = np.sort(np.round(rng.normal(0.01, 0.02, m), 3))
        d = float(rng.choice([0.0, 0.01, -0.0099, 0.0198]))
        up, down = sign.sign_p(estimates, d)
        above, below = int((estimates > d).sum()), int((estimates < d).sum())
        assert up == pytest.approx(scipy_stats.binomtest(above, m, 0.5, alternative="greater").pvalue, rel=1e-9)
        assert down == pytest.approx(scipy_stats.binomtest(below, m, 0.5, alternative="greater").pvalue, rel=1e-9)


@pytest.mark.parametrize("a", [0.05, 0.1, 0.01])
def test_the_sign_tests_order_statistic_is_the_largest_the_binomial_allows(a):
    """k: the interval from the k-th smallest to the k-th largest covers the median with probability
    1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2); k is the largest whose coverage is at least 1 - a."""
    for n in range(1, 400):
        k = medians.order_index(n, 1 - a)

        def covers(k, n=n):
            return 1 - 2 * scipy_stats.binom.cdf(k - 1, n, 0.5)

        if k:
            assert medians.coverage(n, k) == pytest.approx(covers(k), abs=1e-12)
            assert covers(k) >= 1 - a - 1e-12
        assert 2 * (k + 1) > n + 1 or covers(k + 1) < 1 - a + 1e-12


def test_the_sign_interval_runs_between_those_order_statistics():
    ordered = np.arange(1.0, 21.0)
    assert sign.sign_interval(ordered, 0.05) == (6.0, 15.0)  # 20 estimates: the 6th to the 15th
    assert sign.sign_interval(ordered[:5], 0.05) == (-np.inf, np.inf)  # 5 cannot be 95% sure


# --- constants.py and evidence.py: the normal quantiles -----------------------------------------------

def test_the_normal_quantiles_are_scipys():
    assert stats.Z95 == pytest.approx(scipy_stats.norm.ppf(0.975), rel=1e-15)
    assert float(ndtri(stats.POWER)) == pytest.approx(scipy_stats.norm.ppf(stats.POWER), rel=1e-15)


# --- error_control.py: Benjamini-Hochberg --------------------------------------------------------------

def test_benjamini_hochberg_flags_what_scipy_s_false_discovery_control_flags_off_bh_s_line():
    """The same flags and counts as scipy's adjusted p-values at or under q, on random tables and on
    tables of discrete p-values (the exact tests' kind); only a p exactly on the line q j / m may part."""
    rng = np.random.default_rng(53)
    for trial in range(3000):
        m, q = int(rng.integers(1, 60)), float(rng.choice([0.05, 0.025, 0.0125, 0.01]))
        p = rng.random(m) ** 3 if trial % 2 else np.round(rng.random(m) ** 3, 3)
        rejected, count = stats.benjamini_hochberg(p, q)
        on_line = np.isclose(np.sort(p)[:, None], q * np.arange(1, m + 1) / m, rtol=1e-12, atol=0).any()
        if not on_line:
            expected = scipy_stats.false_discovery_control(p) <= q
            assert (rejected == expected).all() and count == expected.sum()
    tables = rng.random((200, 40)) ** 4
    rejected, count = stats.benjamini_hochberg(tables, 0.05)
    assert (rejected == (scipy_stats.false_discovery_control(tables, axis=-1) <= 0.05)).all()
    assert (count == rejected.sum(axis=-1)).all()


# --- the package: one job a module, none long ----------------------------------------------------------

def test_no_statistics_module_is_over_350_lines():
    from pathlib import Path

    folder = Path(stats.__file__).parent
    lengths = {path.name: len(path.read_text().splitlines()) for path in folder.glob("*.py")}
    assert max(lengths.values()) <= 350, lengths
