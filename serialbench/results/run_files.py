"""The run's result file: pyperf JSON, a benchmark per selected name, a run per round (one process).

Each run holds that process's values (seconds per op) and the metadata a pyperf run carries and
serialbench's contract asks for (ARCHITECTURE.md, "Metadata"): the benchmark's own, from the worker
(format, impl, input, tier, direction, input and payload bytes, library versions), its loops, the
round, the date, and the multiple of the floor taken in that process (measure/lanes.py). What the
run as a whole was (commit, process state, the precision asked for) is in every run as well, so
that pyperf reports it as the suite's metadata and `--append` keeps it per run.
"""

from __future__ import annotations

import datetime
import os
import tempfile
import time
import uuid
from collections.abc import Sequence

import pyperf

from serialbench.catalog.registry import library_version
from serialbench.core import medians
from serialbench.inside import timeloop
from serialbench.measure.session import Session, Settings
from serialbench.results.files import RESULTS_FORMAT
from serialbench.results.session_files import machine_metadata, session_benchmarks
from serialbench.sides import environment


def run_benchmarks(session: Session, metadata: dict) -> list[pyperf.Benchmark]:
    """The session's one side as pyperf benchmarks, in the session's order; failed ones left out."""
    started = datetime.datetime.now() - datetime.timedelta(seconds=session.seconds)
    hello = session.hello.get(session.sides[0].label, {})
    common = {"date": started.isoformat(" ", "seconds"), "perf_version": pyperf.__version__,
              **machine_metadata(), **metadata}
    if hello.get("python"):
        common["python_version"] = hello["python"]
    return session_benchmarks(session, session.sides[0].label, common)


def write(path: str, benchmarks: Sequence[pyperf.Benchmark], append: bool) -> None:
    """Write a new file, or add the runs to an existing one (`--append`); never a half-written file."""
    if append and os.path.exists(path):
        suite = pyperf.BenchmarkSuite.load(path)
        for bench in benchmarks:
            suite.add_runs(bench)
    else:
        suite = pyperf.BenchmarkSuite(list(benchmarks))
    directory = os.path.dirname(os.path.abspath(path))
    handle, scratch = tempfile.mkstemp(prefix=".serialbench-", suffix=os.path.basename(path), dir=directory)
    os.close(handle)
    umask = os.umask(0)  # mkstemp makes the file private (0600); a result file is as any file the user writes
    os.umask(umask)
    os.chmod(scratch, 0o666 & ~umask)
    try:
        suite.dump(scratch, replace=True)
        os.replace(scratch, path)
    finally:
        if os.path.exists(scratch):
            os.remove(scratch)


def run_metadata(commit: str, dirty: bool, settings: Settings, malloc_default: bool, memcpy_default: bool,
                 with_specs: Sequence[str], installed: Sequence[str]) -> dict:
    """What the run as a whole was, carried by every run of its file: the commit, the harness, the
    process state, the rule it was timed to, its session (rounds pair within a session; --append adds one)
    and, with --with, what was installed."""
    metadata = {"serialbench_commit": commit, "serialbench_dirty": int(dirty),
                "serialbench_version": library_version("serialbench") or "unknown",
                "serialbench_results_format": RESULTS_FORMAT, "serialbench_clock": timeloop.CLOCK_NAME,
                **environment.metadata(malloc_default, memcpy_default),
                "serialbench_precision": settings.precision, "serialbench_confidence": medians.CONFIDENCE,
                "serialbench_max_rounds": settings.max_rounds,
                "serialbench_session": uuid.uuid4().hex[:12]}  # rounds pair within a session (--append adds one)
    if with_specs:
        metadata["serialbench_with"] = ", ".join(installed) or "nothing"
    return metadata


class Checkpoint:
    """Keeps a long run's measurements on disk while it goes on: at most once a minute, the rounds so
    far are written to the run's own new file (atomically, as the final write), marked
    `serialbench_partial` with the rounds done, so that a run killed outright (SIGKILL, a crash, a
    CI timeout) leaves what it measured. The final write replaces it. `--append` writes at the end
    only: an existing file is not rewritten while the run goes on."""

    EVERY_SECONDS = 60.0

    def __init__(self, path: str, metadata: dict):
        self.path, self.metadata = path, metadata
        self.last = time.monotonic()

    def __call__(self, session) -> None:
        if time.monotonic() - self.last < self.EVERY_SECONDS:
            return
        benches = run_benchmarks(session, {**self.metadata, "serialbench_partial": session.rounds})
        if benches:
            write(self.path, benches, append=False)
        self.last = time.monotonic()
