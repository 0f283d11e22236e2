"""The verdict engine on synthetic sessions of known shape: error rates, power, adaptive stopping."""

import math

import numpy as np
import pytest

from serialbench.core import stats
from serialbench.core.stats import FASTER, NO_CHANGE, SLOWER, TOO_NOISY, Look
from serialbench.measure.schedule import LOOKS

LIMIT = stats.threshold(stats.MIN_EFFECT)


def noise(rng, n, sigma, spoiled=0.05):
    """Round estimates of an unchanged benchmark: Gaussian, with a share of rounds spoiled by a
    worker stuck in a slow regime (up to 5x either way, as seen at 100K on these machines)."""
    x = sigma * rng.standard_normal(n)
    bad = rng.random(n) < spoiled
    x[bad] += rng.choice([-1, 1], bad.sum()) * rng.uniform(0.2, 1.6, bad.sum())
    return x


def fixed_session(rng, shifts, sigma, rounds=16):
    return stats.verdicts([[Look(stats.paired_evidence(shift + noise(rng, rounds, sigma)))] for shift in shifts])


def adaptive_session(rng, shifts, sigma, looks=LOOKS, time_up_at=None, spend_the_rest=True):
    """What compare does: look at 8, 16, 32 and 64 rounds, stop a benchmark once it is settled;
    when time is up at look `time_up_at`, that look is the last and spends the rest of ALPHA."""
    shares = stats.look_shares(len(looks))
    last = len(looks) - 1 if time_up_at is None else time_up_at
    histories = []
    for shift in shifts:
        x = shift + noise(rng, looks[-1], sigma)
        history = []
        for index, rounds in enumerate(looks[:last + 1]):
            share = stats.share_at(shares, index, index == last and spend_the_rest)
            history.append(Look(stats.paired_evidence(x[:rounds]), share))
            if stats.is_changed_early(history, len(shifts), LIMIT) or stats.is_equivalent(history[-1], LIMIT):
                break
        histories.append(history)
    return stats.verdicts(histories)


def flagged(verdicts):
    return any(v.verdict in (SLOWER, FASTER) for v in verdicts)


def cut_short_session(rng, shifts, sigma):
    """compare stopped by --max-time after 16 rounds: the second look is the last."""
    return adaptive_session(rng, shifts, sigma, time_up_at=1)


@pytest.mark.parametrize("session", [fixed_session, adaptive_session, cut_short_session])
def test_an_a_a_comparison_of_a_whole_format_is_flagged_in_at_most_1_session_in_20(session):
    rng = np.random.default_rng(11)
    sessions = 40
    false_alarms = sum(flagged(session(rng, [0.0] * 76, 0.04)) for _ in range(sessions))
    assert false_alarms <= sessions / 20


def test_a_5_percent_slowdown_is_detected_at_4_percent_round_noise():
    rng = np.random.default_rng(12)
    verdicts = [v for _ in range(10) for v in adaptive_session(rng, [math.log(1.05)] * 20, 0.04)]
    detected = sum(v.verdict == SLOWER for v in verdicts) / len(verdicts)
    assert detected >= 0.95
    assert not any(v.verdict == FASTER for v in verdicts)


def test_adaptive_stopping_settles_clear_benchmarks_early_and_keeps_the_error_rates():
    rng = np.random.default_rng(13)
    verdicts = adaptive_session(rng, [math.log(2.0)] * 10 + [0.0] * 10, 0.01)
    assert [v.verdict for v in verdicts[:10]] == [SLOWER] * 10
    # The signed-rank p reaches Bonferroni's level at 16 or 32 rounds, not at 8.
    assert sum(v.rounds == 16 for v in verdicts[:10]) >= 5
    assert all(v.verdict == NO_CHANGE and v.rounds <= 16 for v in verdicts[10:])


def test_no_change_is_confirmed_for_most_quiet_unchanged_benchmarks():
    rng = np.random.default_rng(14)
    verdicts = [v for _ in range(10) for v in adaptive_session(rng, [0.0] * 20, 0.02)]
    assert sum(v.verdict == NO_CHANGE for v in verdicts) / len(verdicts) >= 0.8


def test_the_look_at_64_rounds_confirms_no_change_for_most_noisy_unchanged_benchmarks():
    """4% a round, as at 1M on a bad hour: 32 rounds are not enough to confirm "no change"."""
    def confirmed(looks):
        rng = np.random.default_rng(21)
        verdicts = [v for _ in range(10) for v in adaptive_session(rng, [0.0] * 20, 0.04, looks=looks)]
        return sum(v.verdict == NO_CHANGE for v in verdicts) / len(verdicts)

    assert confirmed((8, 16, 32)) < 0.5
    assert confirmed(LOOKS) >= 0.75


def test_a_session_cut_short_by_time_spends_the_rest_of_alpha_on_its_last_look():
    def confirmed(spend_the_rest):
        rng = np.random.default_rng(20)
        verdicts = [v for _ in range(10) for v in adaptive_session(
            rng, [0.0] * 20, 0.02, time_up_at=1, spend_the_rest=spend_the_rest)]
        return sum(v.verdict == NO_CHANGE for v in verdicts) / len(verdicts)

    assert confirmed(spend_the_rest=True) > confirmed(spend_the_rest=False) + 0.05


@pytest.mark.parametrize(("time_up_at", "sigma"), [(None, 0.02), (1, 0.02), (None, 0.04)])
def test_a_change_at_the_minimum_effect_is_rarely_called_no_change(time_up_at, sigma):
    rng = np.random.default_rng(15)
    verdicts = [v for _ in range(20) for v in adaptive_session(rng, [LIMIT] * 20, sigma, time_up_at=time_up_at)]
    assert sum(v.verdict == NO_CHANGE for v in verdicts) / len(verdicts) <= 0.05


def test_a_change_drowned_in_noise_is_mostly_too_noisy_and_never_no_change_or_faster():
    rng = np.random.default_rng(16)
    verdicts = fixed_session(rng, [math.log(1.03)] * 20, 0.3)
    assert sum(v.verdict == TOO_NOISY for v in verdicts) >= 15
    assert not any(v.verdict in (NO_CHANGE, FASTER) for v in verdicts)


def test_two_spoiled_rounds_of_16_do_not_make_a_change():
    x = 0.002 * np.random.default_rng(17).standard_normal(16)
    x[3], x[9] = 1.2, 0.9  # two workers stuck at 3x and 2.5x
    (verdict,) = stats.verdicts([[Look(stats.paired_evidence(x))]])
    assert verdict.verdict == NO_CHANGE
    assert abs(verdict.change) < 0.01


def test_the_signed_rank_p_value_is_exact_for_symmetric_noise():
    rng = np.random.default_rng(18)
    p_values = np.array([stats.paired_evidence(noise(rng, 12, 0.03)).p_value() for _ in range(4000)])
    for level in (0.05, 0.01):
        assert (p_values <= level).mean() <= level * 1.25


def test_the_95_percent_interval_covers_the_true_change():
    rng = np.random.default_rng(19)
    covered = 0
    for _ in range(1000):
        low, high = stats.paired_evidence(0.05 + 0.03 * rng.standard_normal(16)).interval(0.95)
        covered += low <= 0.05 <= high
    assert 0.93 <= covered / 1000 <= 0.97


def test_benjamini_hochberg_rejects_up_to_the_largest_rank_under_its_line():
    assert stats.benjamini_hochberg([0.001, 0.04, 0.03, 0.5], 0.05) == [True, False, False, False]
    assert stats.benjamini_hochberg([0.01, 0.02, 0.03, 0.04], 0.05) == [True] * 4


def test_look_shares_spend_alpha_once():
    for count in (1, 2, 3, 5):
        assert sum(stats.look_shares(count)) == pytest.approx(1.0)
    shares = stats.look_shares(3)
    # Looks 0 and 1, then time is up: look 1 is the last and takes what look 2 would have had.
    spent = stats.share_at(shares, 0, False) + stats.share_at(shares, 1, True)
    assert spent == pytest.approx(1.0)
    assert stats.share_at(shares, 2, True) == shares[2]


def test_fewer_than_three_rounds_claim_nothing():
    (verdict,) = stats.verdicts([[Look(stats.paired_evidence([0.5, 0.6]))]])
    assert verdict.verdict == TOO_NOISY and verdict.detectable == math.inf


@pytest.mark.parametrize("bad", [0.0, -1e-6, math.nan, math.inf])
def test_a_timing_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(ValueError, match="positive"):
        stats.round_estimate([1e-6, bad], [1e-6, 1e-6])
    with pytest.raises(ValueError, match="positive"):
        stats.unpaired_evidence([1e-6, 1e-6, 1e-6], [1e-6, bad, 1e-6])


def test_unpaired_runs_tell_a_10_percent_change_and_no_change():
    rng = np.random.default_rng(20)
    base = 1e-6 * np.exp(0.01 * rng.standard_normal(12))
    slower = 1.1e-6 * np.exp(0.01 * rng.standard_normal(12))
    same = 1e-6 * np.exp(0.01 * rng.standard_normal(12))
    verdicts = stats.verdicts([[Look(stats.unpaired_evidence(base, slower))],
                               [Look(stats.unpaired_evidence(base, same))]])
    assert [v.verdict for v in verdicts] == [SLOWER, NO_CHANGE]
    assert verdicts[0].change == pytest.approx(0.10, abs=0.02)
