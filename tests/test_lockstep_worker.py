"""compare's lockstep worker times an op as the runner's pyperf workers do: a structural test on a
case of known cost (a virtual clock that only the op moves), not a timed one."""

import gc
import textwrap

import pytest

from serialbench.catalog import registry
from serialbench.measure import lockstep_worker, timeloop
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
    return lockstep_worker.Worker([str(tmp_path)], clock=known_cost.clock)


@pytest.mark.parametrize("tier, inner", [("1K", 10), ("1M", 1)])
def test_a_lockstep_value_is_the_op_cost_as_pyperf_computes_it(worker, tier, inner):
    answer = worker.prepare(f"known/cost/float32/{tier}", 0, min_time=1e-3)
    assert answer["inner_loops"] == inner
    assert answer["loops"] * inner * known_cost.COST >= 1e-3  # calibrated as pyperf does
    assert worker.sample() == pytest.approx(known_cost.COST)
    # The runner's pyperf worker: the same loop, a value divided by loops x inner_loops.
    time_func = timeloop.make_time_func(worker.op, inner, known_cost.clock)
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
        assert worker.time_func is None and worker.op is None
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
    monkeypatch.setattr(registry, "select", lambda *args, **kwargs: pytest.fail("selected again"))
    worker.release()
    assert worker.prepare("known/cost/float32/10K", 1, min_time=1e-3)["loops"] == 1
    with pytest.raises(LookupError, match="no benchmark known/cost/png/1K"):
        worker.prepare("known/cost/png/1K", 1, min_time=1e-3)


@pytest.mark.parametrize("per_call, calls", [
    (20e-9, timeloop.REWARM_CALLS),  # a 1K op: five calls, next to nothing
    (160e-6, timeloop.REWARM_CALLS),  # a 4 MB copy: five calls cover its cache refill
    (1e-3, 2),  # the calls stop once they cover REWARM_SECONDS
    (2e-3, 1),
    (40e-3, 1),  # one call touches all of its data: not five (a value would cost six calls)
    (timeloop.SLOW_CALL, 0),  # a slow op is not re-warmed
])
def test_the_re_warm_before_a_value_stops_at_a_few_milliseconds_of_calls(per_call, calls):
    assert timeloop.rewarm_calls(per_call) == calls


def test_prepare_times_its_own_call_when_asked(worker):
    # The run takes an op of seconds a call (timeloop.TIMED_FIRST_CALL) from the call that prepares it.
    answer = worker.prepare("known/cost/float32/1M", 1, min_time=1e-3, check=False, time_call=True)
    assert answer["first_call"] == pytest.approx(known_cost.COST)
    assert "first_call" not in worker.prepare("known/cost/float32/1M", 1, min_time=1e-3, check=False)


def test_an_op_of_seconds_a_call_is_not_called_again_to_calibrate(worker, monkeypatch):
    # The worker's own copy of timeloop: this op counts as one of seconds a call.
    monkeypatch.setattr(lockstep_worker.timeloop, "TIMED_FIRST_CALL", known_cost.COST / 2)
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
    monkeypatch.setattr(lockstep_worker.timeloop, "UNROLL_BELOW", known_cost.COST / 2)  # this op is "slow"
    assert worker.prepare("known/cost/float32/10K", 0, min_time=1e-3, time_call=True)["inner_loops"] == 1
    assert worker.prepare("known/cost/float32/10K", 0, min_time=1e-3)["inner_loops"] == 10  # its call not timed
    # Given loops, the plan's inner_loops are used as they are (the tier's when none are given).
    answer = worker.prepare("known/cost/float32/10K", 4, min_time=1e-3, time_call=True, inner_loops=1)
    assert answer["inner_loops"] == 1
    before = known_cost.now
    assert worker.sample() == pytest.approx(known_cost.COST)
    assert known_cost.now - before == pytest.approx(4 * known_cost.COST)
    assert worker.prepare("known/cost/float32/10K", 4, min_time=1e-3, time_call=True)["inner_loops"] == 10
