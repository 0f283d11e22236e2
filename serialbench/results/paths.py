"""Where result files go: `results/` in the current working directory, never inside the package.

A run is named after the commit of the serialbench checkout it ran from (`results/<sha>[-dirty].json`),
or, installed from a wheel with no checkout, after the date and time (`results/run-20261130-194501.json`).
No name is ever reused: an existing file gets a sibling with -2, -3... The folder is the user's own:
this repository's .gitignore ignores what a run writes there (plain .json; the committed reference and
showcases beside them are .json.gz), so a run from a clone leaves `git status` clean.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

from serialbench.core.errors import UsageError

RESULTS = "results"


def results_dir() -> Path:
    return Path.cwd() / RESULTS


def run_stem(commit: str, dirty: bool) -> str:
    if commit and commit != "unknown":
        return commit[:10] + ("-dirty" if dirty else "")
    return "run-" + time.strftime("%Y%m%d-%H%M%S")


def unique_paths(stem: str, suffixes: Sequence[str] = (".json",)) -> list[Path]:
    """results/<stem><suffix> for every suffix, with -2, -3... until none of them exists."""
    directory = results_dir()
    directory.mkdir(exist_ok=True)
    counter = 1
    while True:
        tail = "" if counter == 1 else f"-{counter}"
        paths = [directory / f"{stem}{tail}{suffix}" for suffix in suffixes]
        if not any(path.exists() for path in paths):
            return paths
        counter += 1


def unique_results_path(commit: str, dirty: bool) -> Path:
    return unique_paths(run_stem(commit, dirty))[0]


def safe_stem(text: str, limit: int = 40) -> str:
    """A side's description as part of a file name: 'tritonclient 2.45.0' -> 'tritonclient_2.45.0'."""
    return re.sub(r"[^A-Za-z0-9.]+", "_", text).strip("_")[:limit]


def run_output_path(output: str | None, append: str | None, commit: str, dirty: bool, installed: Sequence[str]) -> str:
    """Where the run writes: -o FILE (new), --append FILE, or a new name in ./results/ from the commit and
    what --with installed."""
    for option, path in (("-o", output), ("--append", append)):
        if path and os.path.isdir(path):
            raise UsageError(f"{option} {path} is a directory; give a result file name")
    if output and append:
        raise UsageError("give -o FILE for a new result file or --append FILE to add to one, not both")
    if output:  # claimed by the contract before any work: new, in a directory that exists
        return output
    if append:
        return append
    stem = run_stem(commit, dirty) + (f"-with-{safe_stem(', '.join(installed))}" if installed else "")
    return str(unique_paths(stem)[0])
