"""--with SPEC where no side is compared: the commands that run in one process (profile, verify)
run again with the overlay first on sys.path, and the run puts it first on its own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence

from serialbench.sides import commits, overlays
from serialbench.sides.building import installable
from serialbench.sides.sides import Side

ACTIVE_OVERLAY = "SERIALBENCH_OVERLAY"  # set in a command re-run with --with: its overlay is in place


def run_with_overlay(command: str, argv: Sequence[str], specs: Sequence[str], say: Callable[[str], None]) -> int:
    """`python -m serialbench COMMAND ARGV` again, with the overlay of `specs` first on sys.path: its
    libraries are imported fresh, numpy's and protobuf's included, which an import in this process
    could not undo. Returns the command's exit status."""
    from serialbench.catalog.discovery import PACKAGE_DIR

    directory, installed, _ = overlays.overlay(installable(specs, sys.executable, commits.DECLARED_ONLY, say),
                                               sys.executable, say)
    say(f"with {', '.join(installed) or 'nothing'} first on sys.path (overlay {directory})")
    side = Side("with", PACKAGE_DIR.parent, overlay=directory)
    argv, env = side.serialbench(command, *argv)
    return subprocess.run(argv, env={**env, ACTIVE_OVERLAY: str(directory)}).returncode


def overlay_active() -> bool:
    """Whether this process is the re-run of run_with_overlay (its overlay already on sys.path)."""
    return bool(os.environ.get(ACTIVE_OVERLAY))


def overlay_here(specs: Sequence[str], say: Callable[[str], None]) -> list[str]:
    """The run's --with: the overlay first on this process's sys.path (the selection finds the
    libraries it brings) and on PYTHONPATH, which the run's workers inherit. Returns what it holds."""
    directory, installed, _ = overlays.overlay(installable(specs, sys.executable, commits.DECLARED_ONLY, say),
                                               sys.executable, say)
    say(f"with {', '.join(installed) or 'nothing'} first on sys.path (overlay {directory})")
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(directory), *([inherited] if inherited else [])])
    sys.path.insert(0, str(directory))
    return installed
