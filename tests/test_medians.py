"""The run's interval for a median over processes (core/medians.py): its coverage, exact and as the
run uses it, looking after every round and stopping a row once it is narrow enough."""

import numpy as np
import pytest

from serialbench.core import medians


def test_six_processes_are_the_fewest_whose_range_covers_the_median_at_95_percent():
    assert medians.least_rounds(0.95) == 6
    assert medians.coverage(6, 1) == pytest.approx(1 - 2 / 64)
    assert medians.order_index(5) == 0 and medians.median_interval([1, 2, 3, 4, 5]) is None
    assert medians.median_interval([6, 1, 5, 2, 4, 3]) == (1, 6)
    assert medians.order_index(10) == 2 and medians.order_index(20) == 6
    assert all(medians.coverage(n, medians.order_index(n)) >= 0.95 for n in range(6, 60))


def test_the_half_width_is_the_wider_side_as_a_fraction_of_the_middle():
    assert medians.half_width(100.0, 97.0, 102.0) == pytest.approx(0.03)
    assert medians.half_width(100.0, 99.0, 104.0) == pytest.approx(0.04)


@pytest.mark.parametrize("shape", ["lognormal", "two speeds"])
def test_the_interval_covers_the_median_at_its_confidence_whatever_the_shape(shape):
    rng = np.random.default_rng(7)
    n, trials = 10, 4000
    if shape == "lognormal":
        draws, true_median = np.exp(rng.normal(0, 0.05, (trials, n))), 1.0
    else:  # a third of the processes at 1.6x: the median of the mixture
        slow = rng.random((trials, n)) < 1 / 3
        draws = np.where(slow, 1.6, 1.0) * np.exp(rng.normal(0, 0.02, (trials, n)))
        grid = np.sort(np.where(rng.random(400_000) < 1 / 3, 1.6, 1.0) * np.exp(rng.normal(0, 0.02, 400_000)))
        true_median = grid[grid.size // 2]
    covered = [low <= true_median <= high for low, high in (medians.median_interval(row) for row in draws)]
    assert np.mean(covered) >= medians.coverage(n, medians.order_index(n)) - 0.01


def test_stopping_at_the_first_narrow_interval_keeps_most_of_the_coverage():
    # The run's rule: from 6 processes on, stop once the interval is within +-3%, else go on to 20.
    # Processes whose medians spread by 2.5% (log): the rule stops most rows early, and the intervals it
    # stops on cover the true median in at least 93% of rows (95% nominal at every fixed count).
    rng = np.random.default_rng(11)
    covered, rounds = [], []
    for _ in range(3000):
        draws = np.exp(rng.normal(0, 0.025, 20))
        for n in range(6, 21):
            low, high = medians.median_interval(draws[:n])
            middle = float(np.median(draws[:n]))
            if medians.half_width(middle, low, high) <= 0.03 or n == 20:
                covered.append(low <= 1.0 <= high)
                rounds.append(n)
                break
    assert np.mean(covered) >= 0.93
    assert np.median(rounds) <= 10
