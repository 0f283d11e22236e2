"""Building a side's environment: its interpreter and the overlay of libraries its specs install (a
commit as the wheel built from it), said before any timing; for sweep and bisect, one overlay per side."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable, Sequence

from serialbench.core.errors import UsageError
from serialbench.sides import commits, environments, interpreters, overlays
from serialbench.sides.sides import Side


def with_environment(side: Side, python: str | None, specs: Sequence[str], say: Callable[[str], None],
                     build: commits.Build = commits.DECLARED_ONLY, needs: Sequence[str] = (),
                     flag: str = "") -> Side:
    """The side with its interpreter (an environment made for it where it lacks what `needs` names:
    pinned requirements, environments.pinned) and the overlay of its specs."""
    if python:
        interpreter = interpreters.find(python, f"{flag or side.label} {python}")
        path = environments.for_side(interpreter, needs, side.label, flag or "--python", say) if needs else \
            interpreter.path
        side = dataclasses.replace(side, python=path, python_version=interpreter.version)
    if specs:
        directory, installed, fresh = overlays.overlay(installable(specs, side.python, build, say), side.python, say)
        if not fresh:
            say(f"{side.label}: {', '.join(installed)} (cached overlay {directory})")
        side = dataclasses.replace(side, overlay=directory, specs=tuple(specs), installed=tuple(installed))
    return side


def installable(specs: Sequence[str], python: str, build: commits.Build, say: Callable[[str], None]) -> list[str]:
    """The specs as pip installs them: a commit (PATH@REV) as the wheel built from it (sides/commits.py);
    a commit that does not build raises commits.BuildFailed, one line."""
    return [str(commits.wheel(commits.commit_of(spec), python, build, say)) if commits.is_commit_spec(spec) else spec
            for spec in specs]


def check_commits(specs: Sequence[str]) -> dict[str, commits.Commit]:
    """The commits among the specs (PATH@REV), each checked before anything is built: its revision
    exists, the first and last of each repository's folder hold a package (a commit between them
    that does not is skipped as any build that fails), and the commits of one folder build one
    package. Returns label -> commit."""
    given = list(dict.fromkeys(spec for spec in specs if commits.is_commit_spec(spec)))
    found = {spec: commits.commit_of(spec) for spec in given}
    by_place: dict[object, list[str]] = {}
    for spec, commit in found.items():
        by_place.setdefault(commit.place, []).append(spec)
    for group in by_place.values():
        for spec in dict.fromkeys([group[0], group[-1]]):
            commits.check_package(found[spec], spec)
        commits.check_names([found[spec] for spec in group])
    found = {commits.label(spec): commit for spec, commit in found.items()}
    return found


def resolve_python(python: str) -> str:
    """The interpreter as an absolute path: a side's workers start in another directory."""
    found = shutil.which(python)
    if not found:
        raise UsageError(f"interpreter {python!r} not found; give a path or a command on PATH (e.g. python3.12)")
    return os.path.abspath(found)


def sides_with_overlays(tree: Side, labels: Sequence[str], specs: Sequence[Sequence[str]],
                        say: Callable[[str], None],
                        build: commits.Build = commits.DECLARED_ONLY) -> tuple[list[Side], dict[str, str]]:
    """One side per label, each with its own overlay (sweep, bisect); a side whose install (or a
    commit's build) fails is named, left out, and the others go on. Returns (sides, left out: label -> why)."""
    sides, left_out = [], {}
    for label, side_specs in zip(labels, specs):
        try:
            sides.append(with_environment(dataclasses.replace(tree, label=label), None, side_specs, say, build))
        except UsageError as exc:
            left_out[label] = getattr(exc, "why", str(exc))
            say(f"{label}: left out: {left_out[label]}{getattr(exc, 'note', '')}")
    return sides, left_out


def sides_with_interpreters(tree: Side, pythons: Sequence[str], labels: Sequence[str], specs: Sequence[str],
                            needs: Sequence[str], say: Callable[[str], None],
                            build: commits.Build = commits.DECLARED_ONLY) -> tuple[list[Side], dict[str, str]]:
    """One side per interpreter (sweep --pythons), each with an environment made where it lacks what
    the selection needs, and --with's overlay; one that cannot be made is named, left out, and the
    others go on. Returns (sides, left out: label -> why)."""
    sides, left_out = [], {}
    for label, python in zip(labels, pythons):
        try:
            sides.append(with_environment(dataclasses.replace(tree, label=label), python, specs, say, build, needs,
                                          "--pythons"))
        except UsageError as exc:
            left_out[label] = getattr(exc, "why", str(exc))
            say(f"{label}: left out: {left_out[label]}")
    return sides, left_out
