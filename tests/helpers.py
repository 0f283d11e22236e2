"""Running serialbench as a user does: `python -m serialbench ...` in a subprocess."""

import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# pyperf's smallest settings: one worker process, one value, one loop, no warm-up.
SMALLEST = ["--debug-single-value"]


def serialbench(*args, check=False, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "serialbench", *map(str, args)],
        cwd=PROJECT_ROOT, capture_output=True, timeout=timeout, check=check,
    )


def assert_one_line_usage_error(done: subprocess.CompletedProcess) -> str:
    stderr = done.stderr.decode()
    assert done.returncode == 2, stderr
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("serialbench: error: ")
    return lines[0]
