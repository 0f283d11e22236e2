"""compare --instructions: callgrind's count per op is positive, repeatable, and sees more work."""

import shutil

import pytest

from serialbench.measure.instructions import count_instructions
from serialbench.measure.sides import Side
from tests.helpers import PROJECT_ROOT, serialbench
from tests.test_compare import toy_repo  # noqa: F401 - the fixture

pytestmark = pytest.mark.skipif(
    shutil.which("valgrind") is None,
    reason="valgrind is not installed (apt-get install valgrind); compare --instructions needs it",
)


def test_two_runs_of_one_revision_agree_within_half_a_percent():
    side = Side("work tree", PROJECT_ROOT)
    first = count_instructions(side, "baseline/tobytes/float32/1K")
    second = count_instructions(side, "baseline/tobytes/float32/1K")
    assert first.error == "" and first.per_op > 0
    assert second.per_op == pytest.approx(first.per_op, rel=0.005)


def test_compare_instructions_sees_the_extra_copies_and_nothing_else(toy_repo):  # noqa: F811
    done = serialbench("compare", "HEAD~1", "HEAD", "--instructions", "--cases", toy_repo / "cases",
                       "-b", "toy/*", "--tier", "10K")
    stdout = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    rows = {line.split()[0]: line for line in stdout.splitlines() if line.startswith("toy/")}
    assert rows["toy/grows/float32/10K"].endswith("more instructions")
    assert rows["toy/steady/float32/10K"].endswith("same")
