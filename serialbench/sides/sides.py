"""What is compared: a side is a revision of the cases, an environment (an interpreter, libraries
installed at other versions or from a local checkout), or both.

Everything downstream (the engine, the verdicts, the tables, --instructions, calibrate) takes
sides and never asks which kind a side is: a side says where its serialbench and cases run from
(`root`, `case_dirs`), with which interpreter (`python`), and which directory of installed
libraries goes first on its workers' sys.path (`overlay`).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from serialbench.inside import START
from serialbench.sides.environment import worker_variables


@dataclass(frozen=True)
class Side:
    label: str  # BASE, HEAD (calibrate: A, A', +5%)
    root: Path  # serialbench and the cases run from here
    case_dirs: tuple[str, ...] = ()
    python: str = sys.executable
    overlay: Path | None = None  # libraries installed for this side, first on sys.path
    specs: tuple[str, ...] = ()  # what the overlay was installed from, as the user gave it
    installed: tuple[str, ...] = ()  # what the overlay holds: "tritonclient 2.45.0"
    revision: str = ""  # as the user named it; "" when the revision is not what is compared
    commit: str = ""
    dirty: bool = False
    python_version: str = ""  # when the interpreter is what is compared
    own_serialbench: bool = True  # its serialbench is root's (not so for a foreign --cases repository)
    libraries: tuple[str, ...] = ()  # distributions the selected cases use: their versions go in its files
    ran: tuple[str, ...] = ()  # what it imported, as named: "protobuf 6.33.6 (installed)" (sides/naming.py)
    payloads: tuple[str, ...] = ()  # --payload arguments (paths absolute): its workers build the same inputs
    # The process state of its workers (environment.worker_variables); () for the default one. The
    # run's --malloc-default and --memcpy-default set it; compare's sides always take the default.
    variables: tuple[tuple[str, str], ...] = ()
    name: str = ""  # the user's name for it (--base-label, --head-label): its description


    @property
    def short(self) -> str:
        return self.commit[:10] + ("-dirty" if self.dirty else "")

    @property
    def description(self) -> str:
        """What this side is, in the words of what differs: '2c37bd4', 'tritonclient 2.45.0',
        'protobuf 6.33.6 (installed)', 'msgpack 1.1.2 (local: msgpack-1.1.2)', or the user's name."""
        if self.name:
            return self.name
        parts = []
        if self.revision:
            parts.append(self.short)
        if self.python_version:
            parts.append(f"python {self.python_version}")
        libraries = ", ".join(self.ran or self.installed or self.specs)
        if libraries:
            parts.append(libraries)
        return " ".join(parts) or self.short or "work tree"

    @property
    def distributions(self) -> tuple[str, ...]:
        """The distributions whose versions its workers report: its overlay's, then its cases'."""
        names = [installed.split()[0] for installed in self.installed]
        return tuple(dict.fromkeys([*names, *self.libraries]))

    def command(self, script: str, request: dict) -> tuple[list[str], dict[str, str]]:
        """The argv and the environment of a process in this side (run it with cwd=root): the module
        `script` of serialbench/inside/ (the timing serialbench's, whatever the side's revision), given
        `request`, in the side's interpreter with its overlay and its serialbench first on sys.path.
        The one place that writes the launch line (asv's `env.run()`)."""
        return [self.python, "-P", str(START), script, json.dumps(request)], worker_environment(self)

    def serialbench(self, *args: str) -> tuple[list[str], dict[str, str]]:
        """The argv and the environment of `python -m serialbench ARGS` run in this side."""
        return [self.python, "-P", "-m", "serialbench", *args], worker_environment(self)


@dataclass(frozen=True)
class Checked:
    """A side before timing: what it selects, what of that it cannot run and why, what it imported."""

    side: Side
    listed: list[str]
    failed: dict[str, str] = field(default_factory=dict)  # name -> cause
    why: str = ""  # why it lists nothing
    versions: dict[str, str] = field(default_factory=dict)  # distribution -> version it imported
    left_out: list[str] = field(default_factory=list)  # its cases left out: a library is not installed
    python: str = ""  # the version of the interpreter it ran in: '3.13.0'

    @property
    def runnable(self) -> list[str]:
        return [name for name in self.listed if name not in self.failed]



def worker_environment(side: Side) -> dict[str, str]:
    """The environment of a side's workers: its overlay, then its serialbench, first on sys.path."""
    path = [str(side.overlay)] if side.overlay else []
    path.append(str(side.root))
    inherited = os.environ.get("PYTHONPATH")
    if inherited:
        path.append(inherited)
    variables = dict(side.variables) if side.variables else worker_variables()
    return {**os.environ, **variables, "PYTHONPATH": os.pathsep.join(path)}
