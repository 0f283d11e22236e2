"""calibrate's injected slowdown: every built-in case, its op made SLOWDOWN (a fraction) more expensive.

`python -m serialbench calibrate` writes one tiny case module per variant (A, A', +5%, ...) that
calls `slowed_cases` with its slowdown; only that number differs between the variants.

The extra work for a cheap op is the op itself, called again on as many of the calls (over a
cycle of 100; a value holds hundreds) as make the requested fraction of the wrapped op's CPU time.
An op slower than 100 us, of which a value holds few calls, instead counts on every call through
a pure-Python loop of that many iterations.

How much extra work makes the fraction is measured in the timed loop's own shape (ten calls a
loop, as inside/timeloop.py times a cheap op), then checked: the wrapped op is timed with and
without the extra work, in turns, and what the work added is kept as `landed`. Where it is far
off (under half the slowdown or over twice) by more than the check's own spread, the amount is
scaled by what landed and checked once more: at 1K the work can land short (figures in
docs/reference/statistics.md). calibrate reports a variant whose work did not land as an
injection failure, never as a detection miss (a verdict cannot find work that never happened) and
never as a detection (nor can it show that a +5% was found).

Each variant measures once per benchmark, in the first process that prepares it, and keeps the
figures beside its module (`measured.json`) for the later rounds and for calibrate's summary: the
injected work is the same in every round, and a round does not pay for the measurement again. The
variants without a slowdown take the same measurement, so that only the slowdown differs between
them.
"""

import dataclasses
import itertools
import json
import math
import os
import statistics
from pathlib import Path

from serialbench.catalog.discovery import BUILTIN_CASES_DIR, discover
from serialbench.inside import timeloop

CHEAP = 100e-6  # seconds per call below which a value holds hundreds of calls
BLOCK_SECONDS = 0.005  # one timed block of a comparison in turns
BLOCKS = 15  # blocks a side of each comparison of a cheap op (the median ratio outvotes a slow one)
SPIN_BLOCK = 2_000  # iterations of the empty loop whose time a slow op's extra work is counted in
FAR = 2.0  # an injection that lands under slowdown / FAR or over slowdown * FAR has failed


def landed_far(landed: float, slowdown: float) -> bool:
    """Whether injected work that made the op `landed` slower (a fraction) is far from `slowdown`."""
    return slowdown > 0 and not slowdown / FAR <= landed <= slowdown * FAR


def _spin(iterations: int) -> None:
    for _ in range(iterations):
        pass


def _time_func(function, inner: int = 10):
    """(time_func, loops, inner): the timed loop's own shape (`inner` calls a loop), its loops
    calibrated to a block; time_func(loops) / (loops * inner) is a call's time."""
    time_func = timeloop.make_time_func(function, inner)
    timeloop.warm_up(function, 0.01)
    return time_func, timeloop.calibrated_loops(time_func, BLOCK_SECONDS), inner


def _per_call(timed) -> float:
    time_func, loops, inner = timed
    return time_func(loops) / (loops * inner)


def _ratio(numerator, denominator, inner: int, blocks: int):
    """The median over blocks, taken in turn, of numerator's time per call over denominator's.

    Taken in turn, the blocks see the same machine speed (it drifts within seconds here); the median
    outvotes a slow block, such as a fresh process's first calls at 1M (in a probe here a fresh 4 MB
    buffer took 25x as long on its first copy, and 1.1-3.5x on the next ten)."""
    top, bottom = _time_func(numerator, inner), _time_func(denominator, inner)
    return statistics.median(_per_call(top) / _per_call(bottom) for _ in range(blocks))


def _spread(per_call):
    """Integer counts over a cycle of 100 calls whose mean is per_call."""
    return [math.floor((i + 1) * per_call) - math.floor(i * per_call) for i in range(100)]


def _measure(op, slowed_op, inject, slowdown):
    """[how, extra per call, landed]: how the extra work is done, how much of it a call gets, and the
    fraction it made the op slower, measured (see the module's docstring)."""
    cheap = _per_call(_time_func(slowed_op, 1)) < CHEAP
    inner, blocks = (10, BLOCKS) if cheap else (1, 5)  # a slow op's block is a call or two
    if cheap:  # the op itself again, on some of the calls
        how, per_call = "again", slowdown * _ratio(slowed_op, op, inner, blocks)
    else:  # every call counts empty iterations
        how, per_call = "spin", slowdown * SPIN_BLOCK * _ratio(slowed_op, lambda: _spin(SPIN_BLOCK), inner, blocks)
    landed = 0.0
    for attempt in range(2):
        inject(how, per_call)
        with_work = _time_func(slowed_op, inner)
        inject(how, 0.0)
        without = _time_func(slowed_op, inner)
        ratios = []
        for _ in range(blocks):
            inject(how, per_call)
            done = _per_call(with_work)
            inject(how, 0.0)
            ratios.append(done / _per_call(without))
        landed = statistics.median(ratios) - 1
        quartiles = statistics.quantiles(ratios, n=4)
        # Far off (under half, over twice), and by more than the check's own spread between blocks:
        # scaled by what landed, at most 3x. Not for less: on a busy machine a correction by a noisy
        # check put +12% into a +5% variant, worse than the miss it corrected.
        if attempt == 1 or not landed_far(landed, slowdown) or abs(landed - slowdown) <= quartiles[2] - quartiles[0]:
            break
        per_call *= min(max(slowdown / max(landed, 1e-9), 1 / 3), 3.0)
    return [how, per_call, landed]


def _measured_once(measured: Path, key, op, slowed_op, inject, slowdown):
    """[how, extra per call, landed] of `key`, measured by the first process that asks and kept in `measured`."""
    known = json.loads(measured.read_text()) if measured.exists() else {}
    if key not in known:
        known[key] = _measure(op, slowed_op, inject, slowdown)
        scratch = measured.with_suffix(f".{os.getpid()}")
        scratch.write_text(json.dumps(known))
        os.replace(scratch, measured)
    return known[key]


def read_measured(measured: Path) -> dict[str, list]:
    """A variant's figures by benchmark name (FORMAT/IMPL/INPUT/TIER): [how, extra per call, landed]."""
    return json.loads(measured.read_text()) if measured.exists() else {}


def _slowed(case, slowdown: float, measured: Path):
    def slowed_setup(*args):
        op = case.setup(*args)
        zero = itertools.repeat(0).__next__
        again = spin = zero

        def slowed_op():
            for _ in range(spin()):
                pass
            for _ in range(again()):
                op()
            return op()

        def inject(how, per_call):
            nonlocal again, spin
            counts = itertools.cycle(_spread(per_call)).__next__ if per_call > 0 else zero
            again, spin = (counts, zero) if how == "again" else (zero, counts)

        payload = args[-1]
        key = f"{case.format}/{case.impl}/{payload.kind}/{payload.tier}"
        how, per_call, _ = _measured_once(measured, key, op, slowed_op, inject, slowdown)
        inject(how, per_call)
        return slowed_op

    return slowed_setup


def slowed_cases(slowdown: float, prefix: str, measured: Path) -> list:
    """Every built-in case, renamed prefix + format (and its round trip's protocol, which the built-in
    case declares too), its op slowed down by `slowdown`."""
    return [dataclasses.replace(case, format=prefix + case.format, setup=_slowed(case, slowdown, measured), module="",
                                roundtrip=prefix + case.roundtrip if case.roundtrip else "")
            for case in discover([BUILTIN_CASES_DIR], lambda message: None)]


FORMAT_PREFIX = "calibrate-"

# The generated case module: every case of the tree, renamed FORMAT_PREFIX + format, its op slowed
# down by SLOWDOWN (a fraction). Only SLOWDOWN differs between the modules of one calibration.
CASE_MODULE = '''\
"""Generated by `python -m serialbench calibrate`: every case, its op slowed down by {slowdown!r}."""

from pathlib import Path

from serialbench.measure.slowdown import slowed_cases

CASES = slowed_cases({slowdown!r}, {prefix!r}, Path(__file__).with_name("measured.json"))
'''


def write_case_modules(scratch: Path, slowdowns: list[float]) -> list[Path]:
    """One directory per variant (A, A', then one per slowdown), paths of equal length."""
    dirs = []
    for index, slowdown in enumerate([0.0, 0.0, *slowdowns]):
        directory = scratch / f"variant-{index:02d}"
        directory.mkdir()
        (directory / "calibrate_cases.py").write_text(CASE_MODULE.format(slowdown=slowdown, prefix=FORMAT_PREFIX))
        dirs.append(directory)
    return dirs
