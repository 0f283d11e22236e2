"""calibrate's injected slowdown: every built-in case, its op made SLOWDOWN (a fraction) more expensive.

`python -m serialbench calibrate` writes one tiny case module per variant (A, A', +5%, ...) that
calls `slowed_cases` with its slowdown; only that number differs between the variants.

The extra work for a cheap op is the op itself, called again on as many of the calls (over a
cycle of 100; a value holds hundreds) as make the requested fraction of the wrapped op's CPU time,
both measured outside the timed region. An op slower than 100 us, of which a value holds few
calls, instead counts on every call through a pure-Python loop measured to take that fraction.
Each variant measures once per benchmark, in the first process that prepares it, and keeps the
figure beside its module (`measured`) for the later rounds: the injected work is the same in every
round, and a round does not pay for the measurement again.
"""
\

import dataclasses
import itertools
import json
import math
import os
import statistics
import time
from pathlib import Path

from serialbench.catalog.discovery import BUILTIN_CASES_DIR, discover

CHEAP = 100e-6  # seconds per call below which a value holds hundreds of calls


def _per_call(function, seconds=0.01, calls=1):
    clock, done, started = time.thread_time, 0, time.thread_time()
    while done < calls or clock() - started < seconds:
        function()
        done += 1
    return (clock() - started) / done


SPIN_BLOCK = 20_000  # iterations of the empty loop that the extra work of a slow op is made of


def _spin():
    for _ in range(SPIN_BLOCK):
        pass


def _ratio(numerator, denominator, blocks=5):
    """The median over blocks, taken in turn, of numerator's time per call over denominator's.

    Taken in turn, the blocks see the same machine speed (it drifts within seconds here); the median
    outvotes a slow block, such as a fresh process's first calls at 1M (in a probe here a fresh 4 MB
    buffer took 25x as long on its first copy, and 1.1-3.5x on the next ten)."""
    for function in (numerator, denominator):  # warm
        _per_call(function, 0.05, 2)
    return statistics.median(_per_call(numerator) / _per_call(denominator) for _ in range(blocks))


def _spread(per_call):
    """Integer counts over a cycle of 100 calls whose mean is per_call."""
    return [math.floor((i + 1) * per_call) - math.floor(i * per_call) for i in range(100)]


def _measure(op, slowed_op, slowdown):
    """How the extra work is done, and how much per call. Measured the same way in every variant,
    so that only the slowdown differs between them."""
    if _per_call(slowed_op, 0.01, 2) < CHEAP:  # the op itself again, on `slowdown` of the calls (over 100)
        return "again", slowdown * _ratio(slowed_op, op)
    return "spin", slowdown * SPIN_BLOCK * _ratio(slowed_op, _spin)  # every call counts for the slowdown


def _measured_once(measured: Path, key, op, slowed_op, slowdown):
    """[how, extra per call] of `key`, measured by the first process that asks and kept in `measured`."""
    known = json.loads(measured.read_text()) if measured.exists() else {}
    if key not in known:
        known[key] = _measure(op, slowed_op, slowdown)
        scratch = measured.with_suffix(f".{os.getpid()}")
        scratch.write_text(json.dumps(known))
        os.replace(scratch, measured)
    return known[key]


def _slowed(case, slowdown: float, measured: Path):
    def slowed_setup(*args):
        op = case.setup(*args)
        again = spin = itertools.repeat(0).__next__

        def slowed_op():
            for _ in range(spin()):
                pass
            for _ in range(again()):
                op()
            return op()

        payload = args[-1]
        key = f"{case.label}/{case.source}/{payload.kind}/{payload.tier}"
        how, per_call = _measured_once(measured, key, op, slowed_op, slowdown)
        counts = itertools.cycle(_spread(per_call)).__next__
        if how == "again":
            again = counts
        else:
            spin = counts
        return slowed_op

    return slowed_setup


def slowed_cases(slowdown: float, prefix: str, measured: Path) -> list:
    """Every built-in case, renamed prefix + format, its op slowed down by `slowdown`."""
    return [dataclasses.replace(case, format=prefix + case.format, setup=_slowed(case, slowdown, measured), module="")
            for case in discover([BUILTIN_CASES_DIR], lambda message: None)]
