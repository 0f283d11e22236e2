"""The verdict on paired rounds: what synthetic samples of known shape must be called."""

import math

import numpy as np
import pytest

from serialbench.stats import (
    FASTER,
    NO_CHANGE,
    SLOWER,
    TOO_NOISY,
    compare_rounds,
    median_interval,
    worker_statistic,
)

ROUNDS = 10


def rounds(seed: int, noise: float, n: int = ROUNDS) -> np.ndarray:
    """Per-round timings of about 1 us whose round-to-round spread is `noise` (relative)."""
    rng = np.random.default_rng(seed)
    return 1e-6 * np.exp(noise * rng.standard_normal(n))


def test_identical_samples_are_no_change():
    base = rounds(1, 0.01)
    verdict = compare_rounds(base, base * (1 + 0.002 * np.random.default_rng(2).standard_normal(ROUNDS)))
    assert verdict.verdict == NO_CHANGE
    assert verdict.low <= 0 <= verdict.high


def test_a_10_percent_shift_is_slower_and_its_size_is_estimated():
    base = rounds(3, 0.01)
    verdict = compare_rounds(base, base * 1.10 * np.exp(0.01 * np.random.default_rng(4).standard_normal(ROUNDS)))
    assert verdict.verdict == SLOWER
    assert verdict.low < 0.10 < verdict.high
    assert verdict.change == pytest.approx(0.10, abs=0.02)


def test_a_10_percent_speed_up_is_faster():
    base = rounds(5, 0.01)
    verdict = compare_rounds(base, base / 1.10 * np.exp(0.01 * np.random.default_rng(6).standard_normal(ROUNDS)))
    assert verdict.verdict == FASTER


def test_a_shift_drowned_in_noise_is_too_noisy_to_tell():
    base = rounds(7, 0.01)
    head = base * 1.05 * np.exp(0.20 * np.random.default_rng(8).standard_normal(ROUNDS))
    verdict = compare_rounds(base, head)
    assert verdict.verdict == TOO_NOISY
    assert verdict.detectable > 0.10


def test_a_real_change_below_the_minimum_effect_is_no_change():
    base = rounds(9, 0.001)
    verdict = compare_rounds(base, base * 1.005, min_effect=0.02)
    assert verdict.low > 0  # the data does see it...
    assert verdict.verdict == NO_CHANGE  # ...but it is below what the user asked to hear about


def test_one_round_spoiled_by_load_does_not_make_a_change():
    base = rounds(10, 0.005)
    head = base * np.exp(0.005 * np.random.default_rng(11).standard_normal(ROUNDS))
    head[3] *= 1.8  # a burst of load during one HEAD worker
    assert compare_rounds(base, head).verdict == NO_CHANGE


def test_fewer_than_six_rounds_claim_nothing():
    base = rounds(12, 0.001, n=5)
    verdict = compare_rounds(base, base * 1.5)
    assert verdict.verdict == TOO_NOISY
    assert math.isinf(verdict.detectable)


def test_the_interval_covers_the_true_shift_about_95_percent_of_the_time():
    rng = np.random.default_rng(13)
    covered = 0
    for _ in range(400):
        d = 0.03 + 0.01 * rng.standard_normal(ROUNDS)
        _, low, high = median_interval(d)
        covered += low <= 0.03 <= high
    assert 0.92 <= covered / 400 <= 0.995


def test_detectable_shrinks_with_less_noise():
    quiet = compare_rounds(rounds(14, 0.002), rounds(15, 0.002))
    noisy = compare_rounds(rounds(14, 0.05), rounds(15, 0.05))
    assert quiet.detectable < noisy.detectable


def test_a_worker_contributes_its_fastest_value():
    assert worker_statistic([3.0, 1.5, 2.0]) == 1.5
