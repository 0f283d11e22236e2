"""The results a site shows (`serialbench html`): every file found, read, and grouped into what one page shows.

A run file is a page (its memory companion joins it, results/files.py). The side files of one
interleaved session belong together: two that no sweep claims are a compare, BASE and HEAD; a sweep's
--json file claims the session files that it lists by name (`files`, the ones its sessions wrote), for
its steps' rounds, and no others: a folder may hold another sweep's side files of the same sides. A
bisection's and a check-harness panel's JSON are a page each. Run files of more than one commit are
also a history page together (views/site/history.py). A file that cannot be read, or is none
of these, is named in one line and left out: the rest is built.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from serialbench.core.errors import UsageError
from serialbench.results import kinds
from serialbench.results.files import ResultFile, load, memory_companion
from serialbench.results.paths import safe_stem


@dataclass
class Source:
    """What one page is built from."""

    kind: str  # run, compare, sweep, bisect, check-harness, history
    paths: list[str]
    files: list[ResultFile] = field(default_factory=list)  # run: one; compare: BASE, HEAD; sweep: sides'
    data: dict | None = None  # the JSON of a sweep, a bisection or a check-harness panel
    notes: list[str] = field(default_factory=list)  # said on the page (a memory file left out, ...)

    @property
    def stem(self) -> str:
        if self.kind == "history":  # one a site, of all its runs
            return "history"
        name = os.path.basename(self.paths[0])
        for suffix in (".json.gz", ".json"):
            name = name.removesuffix(suffix)
        if self.kind == "compare":
            name = name.removesuffix("-base")
        return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:80] or self.kind


def collect(inputs: Iterable[str | os.PathLike], say: Callable[[str], None]) -> list[Source]:
    """The sources of the site, in the order found; each file that is left out is said in one line."""
    sources: list[Source] = []
    sessions: dict[str, list[ResultFile]] = {}
    for path in kinds.find(inputs):
        try:
            data = kinds.read_json(path)
            kind = kinds.kind_of(data)
            if kind in (kinds.RUN, kinds.SESSION):
                loaded, note = _load_run(path)
                if kind == kinds.SESSION:
                    sessions.setdefault(str(loaded.metadata.get("serialbench_session")
                                            or _session_of(loaded)), []).append(loaded)
                else:
                    sources.append(Source("run", [str(path)], [loaded], notes=[note] if note else []))
            elif kind == kinds.SWEEP:
                sources.append(Source("sweep", [str(path)], data=_checked_sweep(path, data)))
            elif kind == kinds.BISECT:
                sources.append(Source("bisect", [str(path)], data=_checked_bisect(path, data)))
            elif kind == kinds.CHECK_HARNESS:
                sources.append(Source("check-harness", [str(path)], data=_checked_panel(path, data)))
            elif kind == kinds.MEMORY:
                continue  # read with its run file
            else:
                say(f"{path}: left out: not a serialbench result (run, compare, sweep, bisect or check-harness)")
        except UsageError as exc:
            say(f"left out: {exc}")
    _attach_sessions(sources, sessions, say)
    runs = [source.files[0] for source in sources if source.kind == "run"]
    if len({tuple(loaded.commits) for loaded in runs}) >= 2:  # runs of several commits: their history too
        sources.append(Source("history", [loaded.path for loaded in runs], runs))
    return sources


def _load_run(path: Path) -> tuple[ResultFile, str | None]:
    """A run or session file with its memory companion; a companion that cannot be read is left out
    (and said on the page), not the run."""
    try:
        return load(path), None
    except UsageError as exc:
        if memory_companion(path) is not None:
            try:
                loaded = load(path, with_memory=False)
            except UsageError:
                raise exc from None
            return loaded, f"memory file left out: {exc}"
        raise


def _session_of(loaded: ResultFile) -> str:
    for result in loaded.results:
        for run in result.benchmark.get_runs():
            session = run.get_metadata().get("serialbench_session")
            if session:
                return str(session)
    return loaded.path


def side_label(loaded: ResultFile, labels: Iterable[str]) -> str | None:
    """Which of a sweep's sides a session file is: its name ends in -LABEL.json (results/session_files.py)."""
    name = os.path.basename(loaded.path).lower()
    name = name.removesuffix(".gz")
    return next((label for label in labels if name.endswith(f"-{safe_stem(label).lower()}.json")), None)


def _attach_sessions(sources: list[Source], sessions: dict[str, list[ResultFile]], say) -> None:
    sweeps = [source for source in sources if source.kind == "sweep"]
    for session, files in sessions.items():
        claimed = False
        for sweep in sweeps:
            listed = {str(name).removesuffix(".gz") for name in sweep.data.get("files") or ()}  # the ones it wrote
            if all(os.path.basename(loaded.path).removesuffix(".gz") in listed for loaded in files):
                sweep.files.extend(files)
                sweep.paths.extend(loaded.path for loaded in files)
                claimed = True
                break
        if claimed:
            continue
        if len(files) == 2:
            ordered = sorted(files, key=lambda loaded: not os.path.basename(loaded.path).lower()
                             .removesuffix(".gz").endswith("-base.json"))
            sources.append(Source("compare", [loaded.path for loaded in ordered], ordered))
        else:
            say(f"left out: {len(files)} side files of session {session} ({', '.join(f.path for f in files)}): "
                "no sweep --json file in the inputs lists them")


def _checked_sweep(path, data: dict) -> dict:
    """The keys the page reads, there and of the right shape (its page reads the rest as --merge does)."""
    if not isinstance(data.get("sides"), list) or not isinstance(data.get("benchmarks"), list) or not all(
            isinstance(bench, dict) and {"name", "medians", "steps", "from_anchor"} <= bench.keys()
            for bench in data["benchmarks"]):
        raise UsageError(f"{path} is not a sweep's --json file (each benchmark needs its medians and steps); give "
                         "the files that 'sweep --json FILE' wrote")
    return data


def _checked_bisect(path, data: dict) -> dict:
    """The keys the page reads, there and of the right shape."""
    sessions = data["sessions"]
    if not isinstance(sessions, list) or not all(
            isinstance(s, dict) and isinstance(s.get("sides"), list) and isinstance(s.get("steps"), list)
            and all(isinstance(step, dict) and {"from", "to", "verdict"} <= step.keys() for step in s["steps"])
            for s in sessions):
        raise UsageError(f"{path}: not a bisect --json file (each session needs its sides and steps)")
    return data


def _checked_panel(path, data: dict) -> dict:
    benchmarks = data.get("benchmarks")
    if not isinstance(benchmarks, dict) or not all(
            isinstance(entry, dict) and "verdict" in entry for entry in benchmarks.values()):
        raise UsageError(f"{path}: not a check-harness --json file (no 'benchmarks' with a verdict each)")
    return data
