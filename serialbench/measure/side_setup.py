"""Preparing the sides of a session: each side's environment (a library overlay, an interpreter) and
the benchmarks every side can run, said before any timing."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from collections.abc import Callable, Sequence

from serialbench.core.errors import UsageError
from serialbench.core.formatting import last_line
from serialbench.measure import overlays
from serialbench.measure.sides import Side, worker_environment


def list_benchmarks(side: Side, filters: Sequence[str]) -> tuple[list[str], str]:
    """The side's selected benchmark names, or ([], why) when it cannot list them."""
    cases = [arg for directory in side.case_dirs for arg in ("--cases", directory)]
    done = subprocess.run([side.python, "-P", "-m", "serialbench", "list", *filters, *cases], cwd=side.root,
                          env=worker_environment(side), capture_output=True, text=True)
    if done.returncode != 0:
        return [], last_line(done.stderr) or f"list exited with status {done.returncode}"
    left_out = [line for line in done.stderr.splitlines() if "is not installed" in line]
    return done.stdout.split(), "; ".join(left_out)


def common_benchmarks(sides: Sequence[Side], filters: Sequence[str], say: Callable[[str], None]) -> list[str]:
    """Benchmarks selected on every side, in the first side's order; said before any timing: what a
    side cannot run, and why."""
    listed = [list_benchmarks(side, filters) for side in sides]
    for side, (names, why) in zip(sides, listed):
        if not names:
            raise UsageError(f"{side.label} ({side.description}, {side.python}) cannot run the selection: {why}")
    everywhere = set.intersection(*(set(names) for names, _ in listed))
    for side, (names, why) in zip(sides, listed):
        elsewhere = [name for name in names if name not in everywhere]
        if elsewhere:
            say(f"only in {side.label}, not compared: {', '.join(elsewhere)}")
        missing = [name for name in listed[0][0] if name not in names]
        if missing and why:
            say(f"{side.label} cannot run {len(missing)} selected benchmarks: {why}")
    common = [name for name in listed[0][0] if name in everywhere]
    if not common:
        raise UsageError("no benchmark is selected on both sides; see 'python -m serialbench list'")
    return common


def with_environment(side: Side, python: str | None, specs: Sequence[str], say: Callable[[str], None]) -> Side:
    if python:
        python = resolve_python(python)
        side = dataclasses.replace(side, python=python,
                                   python_version=overlays.interpreter_identity(python)["version"].split()[0])
    if specs:
        directory, installed, fresh = overlays.overlay(specs, side.python, say)
        if not fresh:
            say(f"{side.label}: {', '.join(installed)} (cached overlay {directory})")
        side = dataclasses.replace(side, overlay=directory, specs=tuple(specs), installed=tuple(installed))
    return side


def resolve_python(python: str) -> str:
    found = shutil.which(python)
    if not found:
        raise UsageError(f"interpreter {python!r} not found; give a path or a command on PATH (e.g. python3.12)")
    return found
