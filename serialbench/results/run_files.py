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
from collections.abc import Sequence

import pyperf

from serialbench.measure.session import Session
from serialbench.results.session_files import machine_metadata, session_benchmarks


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
