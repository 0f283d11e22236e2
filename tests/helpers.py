"""Running serialbench as a user does: `python -m serialbench ...` in a subprocess, or the same
program in this process (`in_process`: serialbench.__main__.main with captured stdout and stderr)."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

PROJECT_ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).with_name("golden")
UPDATE = os.environ.get("SERIALBENCH_GOLDEN") == "update"

# pyperf's smallest settings: one worker process, one value, one loop, no warm-up.
SMALLEST = ["--debug-single-value"]


def serialbench(*args, check=False, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "serialbench", *map(str, args)],
        cwd=PROJECT_ROOT, capture_output=True, timeout=timeout, check=check,
    )


def run_serialbench(*args, env=None):
    """`python -m serialbench ARGS` in the project root, its output as text, with `env` added."""
    return subprocess.run([sys.executable, "-m", "serialbench", *map(str, args)], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})


def written_results(stderr: str) -> list[str]:
    """The result files a session says it wrote (compare, sweep: 'NAME results: PATH' on stderr)."""
    return [line.split(" results: ", 1)[1] for line in stderr.splitlines() if " results: " in line]


def verify_rows(stdout: str | bytes) -> dict[tuple[str, str], str]:
    """verify's table: (FORMAT/IMPL, INPUT) -> its verdict text."""
    rows = {}
    text = stdout if isinstance(stdout, str) else stdout.decode()
    for line in text.splitlines()[1:]:
        if line.strip() and not line.startswith("verify: "):
            label, input_name, verdict = line.split(None, 2)
            rows[(label, input_name)] = verdict
    return rows


WORKER_IMPORTS = """
import json, sys
from serialbench.catalog.registry import prepare, select

name, sys.argv = sys.argv[1], ["serialbench", "--worker", "--worker-task", "0"]  # a pyperf worker's argv

benchmarks, cases = select(patterns=[name], tiers="1K", inputs="float32")
(bench,) = benchmarks
prepare(bench, cases).op()
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules} & {"kserve", "fastapi", "pandas"})))
"""


def worker_imports(name: str) -> list[str]:
    """Which heavy server libraries a worker that prepares and runs benchmark NAME imports (a process)."""
    done = subprocess.run([sys.executable, "-c", WORKER_IMPORTS, name], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def in_process(*args) -> SimpleNamespace:
    """`python -m serialbench ARGS` as a function call, as benchstat's main_test.go runs benchstat:
    returncode, and stdout and stderr as text (stdout_bytes for a binary answer such as dump's)."""
    from serialbench.__main__ import main

    stdout, stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n"), io.StringIO()
    status = main([str(arg) for arg in args], stdout, stderr)
    stdout.flush()
    raw = stdout.buffer.getvalue()
    return SimpleNamespace(returncode=status, stdout=raw.decode("utf-8", "replace"), stdout_bytes=raw,
                           stderr=stderr.getvalue())


def check_golden(name: str, text: str, directory: Path = GOLDEN) -> None:
    """`text` must be the file's. On a mismatch the text is written beside it, NAME.actual, for review
    (`diff tests/golden/NAME tests/golden/NAME.actual`), as benchstat's main_test.go does. When a
    change of output is intended: SERIALBENCH_GOLDEN=update python -m pytest tests/test_golden.py, and
    review the diff of the golden files."""
    path = directory / name
    actual = path.with_name(path.name + ".actual")
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"{path} is missing: SERIALBENCH_GOLDEN=update python -m pytest"
    if text != path.read_text():
        actual.write_text(text)
        raise AssertionError(f"{name} differs from {path}: the output is in {actual}; if the change is intended, "
                             "regenerate the golden files")
    actual.unlink(missing_ok=True)


def assert_one_line_usage_error(done) -> str:
    stderr = done.stderr if isinstance(done.stderr, str) else done.stderr.decode()
    assert done.returncode == 2, stderr
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("serialbench: error: ")
    return lines[0]
