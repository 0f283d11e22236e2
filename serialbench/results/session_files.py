"""A session's timings as pyperf result files, and back: one file per side, a run per round.

Value i of run r in one side's file was taken in the same cycle of the same round as value i of run
r in the other's: that is what lets `report BASE.json HEAD.json` judge them paired, as compare did.
Each file records, as a run's does, the date, the machine (CPU model and count), the side's worker's
Python and pyperf's version, so that `report` heads it as it heads a run; and everything a verdict
of the session depends on (its looks, its minimum effect, the look that time or a benchmark's budget
made final, and, for the reader, the time limit and the budget), so that `report` replays the session's
verdicts whatever its settings; and HEAD's file, compare --explain's explanation of each row it explained,
so that `report` and the site draw its block under the row.
"""

from __future__ import annotations

import datetime
import json
import os
import socket
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pyperf

from serialbench.inside.timeloop import CLOCK_NAME
from serialbench.measure.session import Run, Session, Settings
from serialbench.results.files import RESULTS_FORMAT
from serialbench.results.paths import safe_stem, unique_paths
from serialbench.sides.sides import Side

EXPLAIN_KEY = "serialbench_explain"


def session_benchmarks(session: Session, label: str, metadata: dict,
                       explained: Mapping[str, dict] | None = None) -> list[pyperf.Benchmark]:
    """One side's timings as pyperf benchmarks: a run per round, its values in cycle order; a benchmark
    that compare --explain explained carries its `explain` object."""
    benches = []
    for name in session.names:
        runs = session.runs[label].get(name)
        if runs:
            own = dict(metadata)
            if name in session.budget_rounds:  # so that `report` replays its last look as final
                own["serialbench_budget_rounds"] = session.budget_rounds[name]
            if name in (explained or {}):
                own[EXPLAIN_KEY] = explain_metadata(explained[name])
            benches.append(pyperf.Benchmark([
                pyperf.Run(run.values, metadata={**run.metadata, **own, "name": name}, collect_metadata=False)
                for run in runs]))
    return benches


def explain_metadata(found: dict) -> str:
    """An `explain` object as pyperf keeps a metadata value: one line of compact JSON. Every run of the
    benchmark carries it, so pyperf writes it once, in the benchmark's common metadata; it stays in the
    file it explains, where no companion file can go astray."""
    return json.dumps(found, separators=(",", ":"))


def explained_in(results) -> dict[str, dict]:
    """name -> the `explain` object a side file keeps (compare --explain), for the benchmarks that have one."""
    found = {}
    for r in results.results:
        text = r.benchmark.get_metadata().get(EXPLAIN_KEY)
        if text:
            found[r.name] = json.loads(text)
    return found


def runs_of(bench: pyperf.Benchmark) -> list[Run]:
    """A benchmark's runs as the session's rounds (runs without values: calibration, skipped)."""
    runs = []
    for index, run in enumerate(bench.get_runs()):
        if run.values:
            metadata = run.get_metadata()
            runs.append(Run(int(metadata.get("serialbench_round", index)), list(run.values), metadata))
    return runs


def side_metadata(side: Side, session_id: str) -> dict:
    from serialbench.sides.environment import metadata as state

    data = {"serialbench_side": side.description, "serialbench_session": session_id,
            "serialbench_commit": side.commit or "unknown", "serialbench_dirty": int(side.dirty),
            "serialbench_results_format": RESULTS_FORMAT, "serialbench_clock": CLOCK_NAME,
            **state(), "serialbench_python": side.python}
    if side.specs:
        data["serialbench_side_specs"] = " ".join(side.specs)
        data["serialbench_side_installed"] = ", ".join(side.installed) or "nothing"
    return data


def machine_metadata() -> dict:
    """The machine as pyperf records it for a run: CPU model and count."""
    data: dict = {"cpu_count": os.cpu_count() or 0}
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "")
    except OSError:
        model = ""
    if model:
        data["cpu_model_name"] = model
    return data


def result_paths(sides: Sequence[Side], command: str = "compare", stem: str | None = None) -> list[Path]:
    """results/compare-<base>-<head>-{base,head}.json, with -2, -3... so nothing is overwritten; a
    sweep gives its own stem (its sides' descriptions would make a name too long)."""
    stem = stem or command + "-" + "-".join(safe_stem(side.description) for side in sides)
    # Labels that differ only past safe_stem's limit (interpreters named by long paths) get -2, -3...: a
    # file of its own each.
    names = [safe_stem(side.label).lower() for side in sides]
    names = [name if names[:index].count(name) == 0 else f"{name}-{names[:index].count(name) + 1}"
             for index, name in enumerate(names)]
    return unique_paths(stem, [f"-{name}.json" for name in names])


def settings_metadata(settings: Settings, min_effect: float) -> dict:
    """What the session's verdicts depend on besides its values (verdicts/file_changes.py reads it back)."""
    data = {"serialbench_looks": ",".join(map(str, settings.looks)), "serialbench_min_effect": min_effect,
            "serialbench_min_time": settings.min_time}
    if settings.max_seconds:
        data["serialbench_max_seconds"] = settings.max_seconds
    if settings.budget:
        data["serialbench_budget_seconds"] = settings.budget
    return data


def write_session_files(session: Session, sides: Sequence[Side], say: Callable[[str], None],
                        command: str = "compare", stem: str | None = None, settings: Settings | None = None,
                        min_effect: float | None = None, explained: Mapping[str, dict] | None = None) -> list[Path]:
    """One pyperf file per side, in results/: what each side ran, its values round by round, and the
    session's settings; HEAD's (the last side's) also the `explain` objects of compare --explain, by name."""
    session_id = uuid.uuid4().hex[:12]
    started = datetime.datetime.now() - datetime.timedelta(seconds=session.seconds)
    common = {"date": started.isoformat(" ", "seconds"), "perf_version": pyperf.__version__, **machine_metadata()}
    if settings is not None and min_effect is not None:
        common.update(settings_metadata(settings, min_effect))
    written = []
    for side, path in zip(sides, result_paths(sides, command, stem)):
        hello = session.hello.get(side.label, {})
        metadata = {**common, **side_metadata(side, session_id)}
        if session.final_rounds is not None:  # so that `report` replays the session's looks exactly
            metadata["serialbench_final_rounds"] = session.final_rounds
        if hello.get("python"):
            metadata["python_version"] = hello["python"]
        imported = hello.get("versions", {})
        metadata.update({f"{name.replace('-', '_')}_version": version for name, version in imported.items()
                         if version != "not found"})
        benches = session_benchmarks(session, side.label, metadata, explained if side is sides[-1] else None)
        if benches:
            pyperf.BenchmarkSuite(benches).dump(str(path))
            say(f"{side.label} results: {path}")
            written.append(path)
    return written


def machines(parts: list[tuple[Session, list[str]]]) -> dict[str, dict]:
    """Where each side was timed: this host, its CPU, and the side's worker's Python."""
    machine = machine_metadata()
    found = {}
    for session, labels in parts:
        for label in labels:
            found.setdefault(label, {"host": socket.gethostname(), "cpu": machine.get("cpu_model_name", "unknown CPU"),
                                     "cpus": machine["cpu_count"],
                                     "python": session.hello.get(label, {}).get("python", "?")})
    return found
