"""compare's lockstep worker times an op as the runner's pyperf workers do: a structural test on a
case of known cost (a virtual clock that only the op moves), not a timed one."""

import textwrap

import pytest

from serialbench import lockstep_worker, timeloop
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


CASES = [Case("known", "cost", ("float32",), known)]
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


def test_release_drops_the_op(worker):
    worker.prepare("known/cost/float32/1K", 1, min_time=1e-3)
    worker.release()
    assert worker.time_func is None and worker.op is None
