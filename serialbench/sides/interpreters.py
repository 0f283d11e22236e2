"""Interpreters as sides: `--base-python 3.13`, `--head-python PATH`, `sweep --pythons 3.11,3.12,3.13`.

An interpreter is given as a path, a command on PATH, or a version that the machine has ('3.13':
`python3.13` on PATH, else the newest 3.13.x of pyenv's versions folder, as nox and tox look for
them). It is asked its version before anything runs in it, with a line that any Python reads: one
older than the code run inside a side supports is refused in one line, not with its usage error.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from serialbench.core.errors import UsageError

# The lowest interpreter a side can run in: the launch line (Side.command) passes -P, an option of
# 3.11, so that the folder of start.py never shadows a library on a side's sys.path, and the project
# declares requires-python >= 3.11 and tests on 3.11. 3.10 reached its end of life in October 2026;
# running it would take a launch line without -P (start.py dropping its folder from sys.path itself)
# and code inside a side kept to 3.10, with no interpreter in CI to keep it so.
LOWEST = (3, 11)
# Printed by any Python from 2.7 on: what a side's interpreter is, before it runs serialbench's code.
PROBE = ("import json, sys; print(json.dumps({'version': list(sys.version_info[:3]), 'executable': sys.executable, "
         "'venv': sys.prefix != getattr(sys, 'base_prefix', sys.prefix)}))")
VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")


@dataclass(frozen=True)
class Interpreter:
    path: str  # absolute: a side's workers start in another directory
    version: str  # '3.13.0'
    venv: bool  # a virtual environment: used as it is, never made again


def pyenv_versions() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"


def candidates(given: str) -> list[str]:
    """Where an interpreter given as '3.13' may be: python3.13 on PATH, then pyenv's 3.13.x, newest first."""
    if not VERSION.match(given):
        found = shutil.which(given)
        return [os.path.abspath(found)] if found else []
    places = [found] if (found := shutil.which(f"python{given}")) else []
    if given.count(".") == 2:
        places.append(str(pyenv_versions() / given / "bin" / "python"))
    else:
        def patch(path: Path) -> int:
            tail = path.name.removeprefix(given + ".")
            return int(tail) if tail.isdigit() else -1

        versions = sorted(pyenv_versions().glob(f"{given}.*"), key=patch, reverse=True)
        places += [str(path / "bin" / "python") for path in versions if patch(path) >= 0]
    return places


def probe(python: str) -> dict | None:
    """The interpreter's version, executable and whether it is a venv; None when it does not run
    (a pyenv shim whose version is not active says so and exits 127)."""
    try:
        done = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return None


def find(given: str, label: str) -> Interpreter:
    """The interpreter a side's --*-python names, checked to be one a side can run in."""
    for place in candidates(given):
        found = probe(place)
        if found is None:
            continue
        version = tuple(found["version"])
        shown = ".".join(map(str, version))
        if version < LOWEST:
            lowest = ".".join(map(str, LOWEST))
            where = f" ({place})" if place != given else ""
            raise UsageError(f"{label}: python {shown}{where} is older than {lowest}, the lowest a side's "
                             f"interpreter can be; give python {lowest} or newer")
        return Interpreter(os.path.abspath(found["executable"] or place), shown, found["venv"])
    where = (f"python{given} on PATH or {pyenv_versions()}/{given}*" if VERSION.match(given)
             else "a path or a command on PATH")
    raise UsageError(f"{label}: interpreter {given!r} not found or does not run (looked for {where}); give a path, "
                     "a command on PATH (e.g. python3.12) or a version the machine has (e.g. 3.12)")


def missing(python: str, distributions: list[str]) -> list[str]:
    """The distributions an interpreter does not have installed."""
    code = ("import json, sys\nfrom importlib import metadata\nmissing = []\n"
            "for name in json.loads(sys.argv[1]):\n"
            "    try:\n        metadata.version(name)\n"
            "    except metadata.PackageNotFoundError:\n        missing.append(name)\n"
            "print(json.dumps(missing))")
    done = subprocess.run([python, "-c", code, json.dumps(distributions)], capture_output=True, text=True)
    if done.returncode != 0:
        return list(distributions)
    return json.loads(done.stdout.strip().splitlines()[-1])


def parse_pythons(given: str) -> list[str]:
    """sweep --pythons '3.11,3.12,3.13' (versions, commands or paths): the interpreters, in order."""
    pythons = [word.strip() for word in given.split(",") if word.strip()]
    if len(pythons) < 2:
        raise UsageError(f"--pythons {given!r}: give two interpreters or more, comma-separated: versions the machine "
                         "has (3.11,3.12,3.13), commands on PATH or paths")
    twice = [python for python in dict.fromkeys(pythons) if pythons.count(python) > 1]
    if twice:
        raise UsageError(f"--pythons {given!r}: {', '.join(twice)} given twice; give each interpreter once")
    return pythons


def labels(pythons: Sequence[str]) -> list[str]:
    """Each interpreter's column in a sweep: 'python 3.13.0' (with what was given, where two are one version)."""
    versions = [find(given, f"--pythons {given}").version for given in pythons]
    return [f"python {version}" if versions.count(version) == 1 else f"python {version} ({given})"
            for version, given in zip(versions, pythons)]
