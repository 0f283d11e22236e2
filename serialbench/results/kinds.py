"""What a result file is, from its content: the one place that tells the files in a results folder apart.

serialbench writes five kinds of file, and a folder such as `results/` holds them side by side:
- a run (pyperf JSON, or .json.gz, from `python -m serialbench -o FILE`), with its memory companion
  NAME.memory.json (results/files.py);
- one side of an interleaved session (pyperf JSON with `serialbench_side` and `serialbench_session`):
  compare writes two, BASE and HEAD; a sweep one per release (results/session_files.py);
- a sweep's table (`sweep --json`), a bisection (`bisect --json`), a check-harness panel
  (`check-harness --json`): plain JSON, each with its own keys.
The kind is read from the keys, never from the file name, which a user may change. A file that is none
of them (or not JSON) is "unknown"; `html` names it and leaves it out.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from serialbench.core.errors import UsageError

RUN, SESSION, MEMORY, SWEEP, BISECT, CHECK_HARNESS = "run", "session", "memory", "sweep", "bisect", "check-harness"
SUFFIXES = (".json", ".json.gz")


def find(inputs: Iterable[str | os.PathLike]) -> list[Path]:
    """The files named, and the .json/.json.gz files directly inside the folders named, in name order;
    a missing input is a UsageError."""
    found: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(SUFFIXES)))
        elif path.is_file():
            found.append(path)
        else:
            raise UsageError(f"{path}: no such file or folder; give result files or a folder of them")
    return list(dict.fromkeys(found))


def open_text(path: str | os.PathLike) -> IO[str]:
    """A file opened for reading as UTF-8 text, through gzip when its name ends in .gz: every reader of
    result files reads both, as pyperf does."""
    if str(path).endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def read_json(path: str | os.PathLike) -> object:
    """A file's JSON (gzip'd when its name ends in .gz); a one-line UsageError when it cannot be read."""
    try:
        with open_text(path) as file:
            return json.load(file)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: truncated or malformed JSON ({exc.msg} at line {exc.lineno} "
                         f"column {exc.colno})") from None
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise UsageError(f"{path}: cannot be read ({type(exc).__name__})") from None


def kind_of(data: object) -> str:
    """The kind of a loaded JSON document (one of the constants above), or "unknown"."""
    if not isinstance(data, dict):
        return "unknown"
    if "serialbench_memory" in data:
        return MEMORY
    if "serialbench_check_harness" in data:
        return CHECK_HARNESS
    if {"benchmark", "good", "bad", "sessions"} <= data.keys():
        return BISECT
    if {"sides", "benchmarks", "min_effect"} <= data.keys():
        return SWEEP
    if isinstance(data.get("benchmarks"), list) and "version" in data:  # pyperf's suite format
        # A side of a session carries its side's description; a run's rounds carry a session id too
        # (they pair within it) but no side: a run file is a run.
        if _in_any_run(data, "serialbench_side"):
            return SESSION
        return RUN
    return "unknown"


def _in_any_run(data: dict, key: str) -> bool:
    if key in (data.get("metadata") or {}):
        return True
    for bench in data["benchmarks"]:
        if not isinstance(bench, dict):
            continue
        if key in (bench.get("metadata") or {}):
            return True
        if any(isinstance(run, dict) and key in (run.get("metadata") or {}) for run in bench.get("runs", [])):
            return True
    return False
