"""The timing worker times an op as timeloop.py defines it, and speaks its protocol exactly: structural
tests on a case of known cost (a virtual clock that only the op moves), not timed ones."""

import gc
import textwrap

import pytest

from serialbench.catalog import registry
from serialbench.inside import timeloop
from serialbench.inside import worker as timing_worker
from tests import known_cost

CASE = '''
from serialbench.case import Case
from tests.known_cost import tick


def known(payload):
    body = payload.tensors[0].value.tobytes()

    def op():
        tick()
        return body

    return op


def wrong_decoder(wire, payload):
    return [payload.tensors[0].value + 1]


CASES = [Case("known", "cost", ("float32",), known),
         Case("known", "wrong-decoder", ("float32",), known, reference_decoder=wrong_decoder)]
'''


@pytest.fixture
def worker(tmp_path):
    (tmp_path / "known.py").write_text(textwrap.dedent(CASE))
    return Prepares(timing_worker.Worker([str(tmp_path)], clock=known_cost.clock))


class Prepares:
    """The worker, with the protocol's defaults a test would otherwise repeat (slot 0, checked, untimed)."""

    def __init__(self, real):
        self.real = real

    def prepare(self, name, loops, min_time, check=True, time_call=False, inner_loops=None, slot=0):
        return self.real.prepare(name, slot, loops, inner_loops, min_time, check, time_call)

    def sample(self, slot=0, rewarm_calls=0):
        return self.real.cycles(1, [slot], [rewarm_calls])[0][0]

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.mark.parametrize("tier, inner", [("1K", 10), ("1M", 1)])
def test_a_lockstep_value_is_the_op_cost_as_pyperf_computes_it(worker, tier, inner):
    answer = worker.prepare(f"known/cost/float32/{tier}", 0, min_time=1e-3)
    assert answer["inner_loops"] == inner
    assert answer["loops"] * inner * known_cost.COST >= 1e-3  # calibrated as pyperf does
    assert worker.sample() == pytest.approx(known_cost.COST)
    # The runner's pyperf worker: the same loop, a value divided by loops x inner_loops.
    time_func = timeloop.make_time_func(worker.slots[0].op, inner, known_cost.clock)
    assert time_func(answer["loops"]) / (answer["loops"] * inner) == pytest.approx(known_cost.COST)


def test_given_loops_are_used_as_they_are(worker):
    answer = worker.prepare("known/cost/float32/10K", 7, min_time=1.0)
    assert answer["loops"] == 7
    before = known_cost.now
    worker.sample()
    assert known_cost.now - before == pytest.approx(7 * 10 * known_cost.COST)


def test_release_drops_the_op_and_freezes_what_survives(worker):
    worker.prepare("known/cost/float32/1K", 1, min_time=1e-3)
    try:
        worker.release()
        assert worker.slots == {}
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_round_trip_is_checked_unless_told_not_to(worker):
    # compare checks a benchmark in its first round and skips the check in later rounds: the
    # same code on the same input (a KServe decoder's check at 1M costs seconds).
    with pytest.raises(registry.CaseFailed, match="does not decode to its input"):
        worker.prepare("known/wrong-decoder/float32/1K", 1, min_time=1e-3)
    assert worker.prepare("known/wrong-decoder/float32/1K", 1, min_time=1e-3, check=False)["loops"] == 1


@pytest.mark.parametrize("tier, loops, calls", [("1K", 3, 1 + 3 * 10), ("1M", 1, 1)])
def test_prepare_warms_the_loop_up_unless_one_call_fills_a_value(worker, tier, loops, calls):
    # prepare's own call (the body for the check) warms a slow op; a fast one also runs its loop once.
    before = known_cost.now
    worker.prepare(f"known/cost/float32/{tier}", loops, min_time=1e-3, check=False)
    assert round((known_cost.now - before) / known_cost.COST) == calls


def test_the_selection_is_made_once_per_process(worker, monkeypatch):
    worker.prepare("known/cost/float32/1K", 1, min_time=1e-3)
    monkeypatch.setattr(worker.api, "select", lambda *args, **kwargs: pytest.fail("selected again"))
    worker.release()
    assert worker.prepare("known/cost/float32/10K", 1, min_time=1e-3)["loops"] == 1
    with pytest.raises(LookupError, match="no benchmark known/cost/png/1K"):
        worker.prepare("known/cost/png/1K", 1, min_time=1e-3)


def test_prepare_times_its_own_call_when_asked(worker):
    # The run takes an op of seconds a call (timeloop.TIMED_FIRST_CALL) from the call that prepares it.
    answer = worker.prepare("known/cost/float32/1M", 1, min_time=1e-3, check=False, time_call=True)
    assert answer["first_call"] == pytest.approx(known_cost.COST)
    assert "first_call" not in worker.prepare("known/cost/float32/1M", 1, min_time=1e-3, check=False)


def test_an_op_of_seconds_a_call_is_not_called_again_to_calibrate(worker, monkeypatch):
    # The worker's own copy of timeloop: this op counts as one of seconds a call.
    monkeypatch.setattr(timing_worker.timeloop, "TIMED_FIRST_CALL", known_cost.COST / 2)
    before = known_cost.now
    answer = worker.prepare("known/cost/float32/1M", 0, min_time=1.0, time_call=True)
    assert answer["loops"] == 1 and answer["first_call"] == pytest.approx(known_cost.COST)
    assert round((known_cost.now - before) / known_cost.COST) == 1  # prepare's call, and no other


@pytest.mark.parametrize("tier, per_call, inner", [
    ("1K", None, 10), ("10K", 2e-6, 10), ("1M", None, 1),
    ("10K", 10e-3, 1),  # a JSON encoder at 10K: one call an iteration, the loop's 20 ns are nothing
])
def test_only_a_cheap_op_is_unrolled(tier, per_call, inner):
    assert timeloop.inner_loops(tier, per_call) == inner


def test_an_op_whose_call_is_timed_slow_is_not_unrolled_and_a_plan_keeps_its_loop(worker, monkeypatch):
    monkeypatch.setattr(timing_worker.timeloop, "UNROLL_BELOW", known_cost.COST / 2)  # this op is "slow"
    assert worker.prepare("known/cost/float32/10K", 0, min_time=1e-3, time_call=True)["inner_loops"] == 1
    assert worker.prepare("known/cost/float32/10K", 0, min_time=1e-3)["inner_loops"] == 10  # its call not timed
    # Given loops, the plan's inner_loops are used as they are (the tier's when none are given).
    answer = worker.prepare("known/cost/float32/10K", 4, min_time=1e-3, time_call=True, inner_loops=1)
    assert answer["inner_loops"] == 1
    before = known_cost.now
    assert worker.sample() == pytest.approx(known_cost.COST)
    assert known_cost.now - before == pytest.approx(4 * known_cost.COST)
    assert worker.prepare("known/cost/float32/10K", 4, min_time=1e-3, time_call=True)["inner_loops"] == 10
