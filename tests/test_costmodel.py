"""The cost model on synthetic medians: it recovers a known fixed and per-byte cost, weighs every tier
the same, never goes below zero, and flags an op that grows faster than its size."""

from types import SimpleNamespace

import pytest

from serialbench.verdicts.costmodel import MAX_EXPONENT, fit, fits

TIERS = (("1K", 4_000), ("10K", 40_000), ("100K", 400_000), ("1M", 4_000_000))


def medians(cost, noise=(1.0, 1.0, 1.0, 1.0)):
    return [(tier, size, cost(size) * factor) for (tier, size), factor in zip(TIERS, noise)]


def test_a_known_fixed_and_per_byte_cost_is_recovered():
    found = fit(medians(lambda size: 5e-6 + 0.2e-9 * size))
    assert found.fixed_s == pytest.approx(5e-6, rel=1e-9)
    assert found.per_byte_s == pytest.approx(0.2e-9, rel=1e-9)
    assert found.mb_per_s == pytest.approx(5_000)
    assert found.worst_error < 1e-9 and found.linear


def test_noisy_medians_give_the_costs_within_the_noise():
    found = fit(medians(lambda size: 5e-6 + 0.2e-9 * size, noise=(1.03, 0.97, 1.02, 0.98)))
    assert found.fixed_s == pytest.approx(5e-6, rel=0.1)
    assert found.per_byte_s == pytest.approx(0.2e-9, rel=0.05)
    assert 0.02 < found.worst_error < 0.05 and found.linear


def test_every_tier_weighs_the_same():
    # 1K is 4.8 us and 1M 1.2 ms: a plain least-squares fit would let 1M decide and miss 1K by far more.
    found = fit(medians(lambda size: 4e-6 + 0.3e-9 * size, noise=(1.0, 1.0, 1.0, 1.1)))
    at_1k = found.time(4_000) / (4e-6 + 0.3e-9 * 4_000) - 1
    assert abs(at_1k) < 0.05


def test_no_cost_is_negative():
    found = fit(medians(lambda size: 19e-9 * size, noise=(0.9, 1.0, 1.0, 1.0)))  # a JSON path: all per byte
    assert found.fixed_s == 0 and found.per_byte_s == pytest.approx(19e-9, rel=0.05)


def test_a_quadratic_op_is_flagged_and_a_cache_step_is_not():
    quadratic = fit(medians(lambda size: 2e-6 + 1e-15 * size**2))  # a += that copies what it has so far
    assert not quadratic.linear and quadratic.exponent > 1.8 and quadratic.worst_error > 0.5
    # Linear, but 1M costs three times as much per byte as 100K (4 MB out of cache): not flagged.
    cached = fit(medians(lambda size: 5e-6 + (0.6e-9 if size > 1e6 else 0.2e-9) * size))
    assert cached.linear and cached.exponent < MAX_EXPONENT


def test_two_tiers_are_no_fit():
    assert fit(medians(lambda size: 1e-6 + 1e-9 * size)[:2]) is None


def test_fits_are_per_row_and_leave_out_an_op_that_produces_nothing():
    def result(row, tier, size, median, payload=1):
        return SimpleNamespace(row=row, tier=tier, input="float32", direction="encode", input_bytes=size,
                               payload_bytes=payload, median=median)

    results = [result("a/b", tier, size, 1e-6 + 1e-9 * size) for tier, size in TIERS]
    results += [result("baseline/noop", tier, size, 50e-9, payload=0) for tier, size in TIERS]
    found = fits(results)
    assert list(found) == [("float32", "encode", "a/b")]
    assert found[("float32", "encode", "a/b")].fixed_s == pytest.approx(1e-6)
