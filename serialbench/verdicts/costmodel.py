"""Cost per request and cost per byte: time = fixed + per_byte x bytes, fitted over the tiers.

Google Benchmark's Complexity() fits time against size; here the model is the one a protocol choice
turns on: what every request pays whatever its size (fixed), and what each byte of tensor data adds
(per byte). The fit is least squares on the medians, weighted so that every tier counts the same:
it minimises the sum of squared *relative* errors, (fit - median) / median, so 1K's 2 us weighs as
much as 1M's 2 ms (unweighted, 1M alone would decide both numbers). Neither cost may be negative: a
fit that wants one below zero is refitted with it held at zero.

How well the line holds is the worst tier's relative error. An op that is not linear in its size
(a quadratic `+=`, a copy per element) grows faster than its size at the top: the exponent over the
three largest tiers, log(t3/t1) / log(x3/x1), is near 2 for a quadratic op and at most 1 for a
linear one (its fixed cost only lowers it). Past MAX_EXPONENT it is flagged. Caches make a 1M op
cost more per byte than a 100K one (4 MB leaves L2; on the reference VM baseline/tobytes, a memcpy,
reaches 1.28 and no implementation more than 1.32), hence two steps, not one (up to 1.70), and the
margin. Pure arithmetic on medians: no numpy, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MIN_TIERS = 3  # two points fit any line exactly: no error to tell whether the op is linear
MAX_EXPONENT = 1.5  # time x1,000 for size x100: faster growth than caches explain


@dataclass(frozen=True)
class Fit:
    fixed_s: float  # seconds per request, whatever its size
    per_byte_s: float  # seconds per byte of input
    worst_error: float  # largest |fit - median| / median over the tiers
    worst_tier: str
    exponent: float  # log(t3 / t1) / log(x3 / x1) over the three largest tiers

    @property
    def linear(self) -> bool:
        return self.exponent <= MAX_EXPONENT

    @property
    def mb_per_s(self) -> float | None:
        """The per-byte cost as a rate: MB of input per second once the fixed cost is paid."""
        return 1e-6 / self.per_byte_s if self.per_byte_s > 0 else None

    def time(self, size: float) -> float:
        return self.fixed_s + self.per_byte_s * size


def fit(points: Sequence[tuple[str, float, float]]) -> Fit | None:
    """The fit of (tier, bytes, median seconds) points; None with fewer than MIN_TIERS usable points."""
    points = sorted((p for p in points if p[1] > 0 and p[2] > 0), key=lambda p: p[1])
    if len({size for _, size, _ in points}) < MIN_TIERS:
        return None
    sizes = [size for _, size, _ in points]
    times = [time for _, _, time in points]
    fixed, per_byte = _relative_least_squares(sizes, times)
    errors = [abs(fixed + per_byte * x - t) / t for x, t in zip(sizes, times)]
    worst = max(range(len(points)), key=errors.__getitem__)
    exponent = math.log(times[-1] / times[-3]) / math.log(sizes[-1] / sizes[-3])
    return Fit(fixed, per_byte, errors[worst], points[worst][0], exponent)


def _relative_least_squares(sizes: Sequence[float], times: Sequence[float]) -> tuple[float, float]:
    """(a, b) >= 0 minimising sum(((a + b x - t) / t)^2): least squares with weights 1 / t^2."""
    weights = [1 / t**2 for t in times]
    s = sum(weights)
    sx = sum(w * x for w, x in zip(weights, sizes))
    st = sum(w * t for w, t in zip(weights, times))
    sxx = sum(w * x * x for w, x in zip(weights, sizes))
    sxt = sum(w * x * t for w, x, t in zip(weights, sizes, times))
    determinant = s * sxx - sx * sx
    if determinant > 0:
        fixed = (sxx * st - sx * sxt) / determinant
        per_byte = (s * sxt - sx * st) / determinant
        if fixed >= 0 and per_byte >= 0:
            return fixed, per_byte
    # The best fit with one cost at zero (the other alone), whichever fits better.
    candidates = [(0.0, sxt / sxx), (st / s, 0.0)]
    return min(candidates, key=lambda c: sum(w * (c[0] + c[1] * x - t) ** 2
                                             for w, x, t in zip(weights, sizes, times)))


def fits(results) -> dict[tuple[str, str, str], Fit]:
    """{(input, direction, FORMAT/IMPL): Fit} of result-file rows timed at MIN_TIERS tiers or more,
    against each tier's raw input bytes. An op that produces nothing (baseline/noop, the harness's
    own cost) has no cost per byte to fit."""
    points: dict[tuple[str, str, str], list[tuple[str, float, float]]] = {}
    for result in results:
        if result.median is not None and result.input_bytes and result.payload_bytes:
            points.setdefault((result.input, result.direction, result.row), []).append(
                (result.tier, result.input_bytes, result.median))
    found = {key: fit(row) for key, row in points.items()}
    return {key: value for key, value in found.items() if value is not None}
