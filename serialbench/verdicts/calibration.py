"""calibrate's reading of a slowed-down variant: did the injected work land, so that its verdict
counts as a detection or a miss? (measure/slowdown.py injects the work and checks it in a plain loop.)"""

from __future__ import annotations

import math

from serialbench.core.formatting import format_change
from serialbench.measure import slowdown as slowdown_module
from serialbench.verdicts.paired import Compared


def injection_failed(row: Compared, slowdown: float, landed: float | None) -> str | None:
    """Why a slowed-down variant's work did not land, or None. Far means under half or over twice
    the slowdown: the session's interval lies wholly that far from it, or the work's own check in a
    plain loop (`landed`, measure/slowdown.py) was that far and the session's interval does not lie
    wholly within the near range (where the session saw the work land, the session wins). Such a
    row says nothing of the verdicts: not a detection miss."""
    v = row.verdict
    low, high = slowdown / slowdown_module.FAR, slowdown * slowdown_module.FAR
    bounded = v.low > -1 and math.isfinite(v.high)
    if bounded and (v.high < low or v.low > high):
        return f"measured {format_change(v.change)} [{format_change(v.low)}, {format_change(v.high)}] in the session"
    seen = bounded and low <= v.low and v.high <= high
    if landed is not None and slowdown_module.landed_far(landed, slowdown) and not seen:
        return f"injected {format_change(landed)} in a plain loop"
    return None
