"""Layer 3, inside: the code that runs inside a side's interpreter: the timing worker (worker.py), the side's check
before timing (side_check.py), the counting workers (callgrind_worker.py, allocations_worker.py),
compare --explain's profile (profile_worker.py),
and what they share (timeloop.py, the timed loop; side_api.py, the side's catalog; allocations.py,
the allocation counter).

Every process in a side starts at start.py (sides/sides.py, `Side.command`), which loads this folder
by path as the package `serialbench_inside`: these modules import each other relatively (`from . import
timeloop`), so a side always runs the timing serialbench's files, never its own serialbench's
(which its PYTHONPATH puts first under the name `serialbench`). They import nothing of serialbench at
module level; side_api.py reaches the side's catalog. The coordinator imports the same files as
`serialbench.inside`.
"""

from pathlib import Path

START = Path(__file__).with_name("start.py")
