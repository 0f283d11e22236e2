"""Every declared case, on every input kind it accepts, passes the runner's guard at 1K.

The guard decodes the case's output with the case's independent reference decoder (or, for a
decode case, compares what it returns) bit for bit with the input. It runs in a subprocess so
that cases which need TensorFlow do not load it into the test process.
"""

import json
import subprocess
import sys

import pytest

from tests.helpers import PROJECT_ROOT

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)

SCRIPT = """
import json
from serialbench.catalog.inputs import INPUT_KINDS
from serialbench.catalog.registry import CaseFailed, prepare, select

benchmarks, cases = select(tiers="1K", inputs=",".join(INPUT_KINDS))
failures = []
for bench in benchmarks:
    try:
        prepare(bench, cases)
    except CaseFailed as exc:
        failures.append(str(exc))
print(json.dumps({"checked": [b.name for b in benchmarks], "failures": failures}))
"""


def test_every_case_round_trips_on_every_input_it_accepts():
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(result["checked"]) >= 20
    assert result["failures"] == []
    # The response halves are among them: the server's encoders and the clients' decoders.
    for half in ("/response-", "/decode-response-"):
        assert sum(half in name for name in result["checked"]) >= 20, half
