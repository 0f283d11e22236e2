"""The run's stopping rule: after each look, which benchmarks stop.

A benchmark stops when its median and its multiple of the floor are both known within the precision
asked for (verdicts/timings.py, `Timing.reached`), or at its last look (the cap, the time limit)
whatever it reached; a floor never stops while a benchmark it serves goes on (measure/session.serves).
compare's rule, a decided verdict or the last look, is verdicts/judge.py's `Judge.look`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from serialbench.measure.session import Run, serves
from serialbench.verdicts.timings import Timing, session_timing


def run_stops(runs: Mapping[str, Sequence[Run]], running: Sequence[str], floors: Mapping[str, str | None],
              final: Collection[str], target: float) -> dict[str, Timing | None]:
    """The benchmarks of `running` that stop now, each with its timing (None: no run), in the order they
    stop: the benchmarks first, then the floors, so that a floor sees which of its benchmarks go on."""
    stopped: dict[str, Timing | None] = {}
    for name in sorted(running, key=lambda name: name in floors.values()):  # floors last
        found = session_timing(runs.get(name, []))
        going = [other for other in running if other not in stopped]
        if serves(name, going, floors) or not (name in final or (found is not None and found.reached(target))):
            continue
        stopped[name] = found
    return stopped
