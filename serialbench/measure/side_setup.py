"""Preparing the sides of a session: each side's environment (a library overlay, an interpreter), the
benchmarks every side can run, and each side's name, all said before any timing.

The order: where every side runs the work tree's cases (sweep, bisect, compare of environments), the
user's selection is checked here first, before any overlay is installed (a typo in --tier or -b is
the user's, not a side's). Each side then makes its selection once, in one small process of its own
environment (measure/side_check.py), as its revision sees it, and prepares every selected case once
at the smallest tier, which imports the cases' libraries and generated code: a protobuf too old for
the gencode is refused here, with one line per cause, not in the first round. Each side is
named by the library versions it imported, where the sides differ or an overlay put them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from serialbench.core.errors import UsageError
from serialbench.core.formatting import last_line
from serialbench.measure import commits, overlays
from serialbench.measure.sides import Side, worker_environment

CHECK_SCRIPT = Path(__file__).with_name("side_check.py")
SHOWN = 3  # benchmarks (or FORMAT/IMPL groups) named on a refusal line before "and N more"
ERROR_PREFIX = "serialbench: error: "
ACTIVE_OVERLAY = "SERIALBENCH_OVERLAY"  # set in a command re-run with --with: its overlay is in place


def check_selection(case_dirs: Sequence[str], patterns: Sequence[str], tiers: str | None,
                    inputs: str | None, payloads: Sequence[str] = ()) -> None:
    """The user's selection, checked once before any side: the tiers, the input kinds, the payloads,
    and that every -b pattern names a benchmark of the catalog, whether or not its libraries are
    installed here (an overlay may bring them)."""
    from serialbench.catalog.discovery import discover
    from serialbench.catalog.inputs import INPUT_KINDS, TIERS, default_inputs
    from serialbench.catalog.payloads import parse_payloads
    from serialbench.catalog.registry import all_benchmarks, name_matches
    from serialbench.catalog.registry import case_dirs as directories
    from serialbench.core.parsing import parse_words

    sources = parse_payloads(payloads)
    tier_list = parse_words(tiers, list(TIERS), "tier") or list(TIERS)
    input_list = parse_words(inputs, list(INPUT_KINDS), "input") or ([] if sources else default_inputs())
    if not patterns:
        return
    names = [b.name for b in all_benchmarks(discover(directories(case_dirs), lambda message: None),
                                            input_list, tier_list, sources)]
    for pattern in patterns:
        if not any(name_matches(name, pattern) for name in names):
            raise UsageError(f"-b {pattern!r} matches no benchmark at --tier {','.join(tier_list)} and --input "
                             f"{','.join(input_list)}; names are FORMAT/IMPL/INPUT/TIER, "
                             "see 'python -m serialbench list'")


@dataclass(frozen=True)
class Checked:
    """A side before timing: what it selects, what of that it cannot run and why, what it imported."""

    side: Side
    listed: list[str]
    failed: dict[str, str] = field(default_factory=dict)  # name -> cause
    why: str = ""  # why it lists nothing
    versions: dict[str, str] = field(default_factory=dict)  # distribution -> version it imported
    left_out: list[str] = field(default_factory=list)  # its cases left out: a library is not installed

    @property
    def runnable(self) -> list[str]:
        return [name for name in self.listed if name not in self.failed]


def check_side(side: Side, filters: dict, list_only: bool = False) -> Checked:
    """The side's selection from the user's filters (options.filters), made once, in the side's own
    environment, and (unless list_only) each selected case prepared once (measure/side_check.py)."""
    config = {"filters": filters, "case_dirs": list(side.case_dirs), "payloads": list(side.payloads),
              "distributions": [installed.split()[0] for installed in side.installed], "list_only": list_only}
    done = subprocess.run([side.python, "-P", str(CHECK_SCRIPT), json.dumps(config)], cwd=side.root,
                          env=worker_environment(side), capture_output=True, text=True)
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        why = last_line(done.stderr).removeprefix(ERROR_PREFIX) or f"the check exited with status {done.returncode}"
        return Checked(side, [], why=why)
    if answer.get("libraries"):
        side = dataclasses.replace(side, libraries=tuple(answer["libraries"]))
    return Checked(side, answer["listed"], answer.get("failed", {}), answer["why"], answer.get("versions", {}),
                   answer["left_out"])


def check_sides(sides: Sequence[Side], filters: dict, say: Callable[[str], None]) -> list[Checked]:
    """Every side's selection made and checked, its refusals said (one line per cause), and named."""
    checked = []
    for side in sides:
        item = check_side(side, filters)
        if item.listed and item.left_out:
            say(f"{side.label}: {'; '.join(item.left_out)}")
        for line in refusal_lines(side.label, item.failed, item.listed):
            say(line)
        checked.append(item)
    return name_sides(checked)


def refusal_lines(label: str, failed: dict[str, str], listed: Sequence[str]) -> list[str]:
    """One line per distinct cause: how many benchmarks it hits, a few of them, the cause."""
    by_cause: dict[str, list[str]] = {}
    for name, cause in failed.items():
        by_cause.setdefault(short_cause(cause), []).append(name)
    return [f"{label} cannot run {len(names)} of {len(listed)} selected benchmarks ({few(names, listed)}): {cause}"
            for cause, names in by_cause.items()]


def short_cause(cause: str, limit: int = 240) -> str:
    """A cause without the file paths that tracebacks put in parentheses, nor a closing 'See ...'
    pointer (protobuf's to its version guarantees), at most `limit` characters."""
    cause = re.sub(r" \((?:/|[A-Za-z]:\\)[^)]*\)", "", cause)
    cause = re.sub(r"(?<=\.) See \S.*$", "", cause)
    return cause if len(cause) <= limit else cause[:limit - 3] + "..."


def few(names: Sequence[str], listed: Sequence[str]) -> str:
    """'tfserving-grpc/direct/*, msgpack/packb/png/1K and 3 more': a whole FORMAT/IMPL as one word."""
    hit = set(names)
    items: list[str] = []
    for name in listed:
        if name not in hit:
            continue
        group = name.split("/")[0] + "/" + name.split("/")[1]
        whole = all(other in hit for other in listed if other.startswith(group + "/"))
        item = f"{group}/*" if whole else name
        if item not in items:
            items.append(item)
    shown = ", ".join(items[:SHOWN])
    return shown + (f" and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def name_sides(checked: Sequence[Checked]) -> list[Checked]:
    """Each side named by the versions it imported of the distributions that an overlay put in, or
    that differ between the sides: 'protobuf 6.33.6 (installed)', 'msgpack 1.1.2 (local: msgpack-fix)'."""
    display: dict[str, str] = {}  # normalized name -> the name as first seen
    for item in checked:
        for dist in [*(found.split()[0] for found in item.side.installed), *item.versions]:
            display.setdefault(overlays.normalized(dist), dist)
    versions = [{overlays.normalized(d): v for d, v in item.versions.items()} for item in checked if item.listed]
    in_overlays = [overlays.normalized(found.split()[0]) for item in checked for found in item.side.installed]
    differing = [key for key in display if len({found.get(key) for found in versions}) > 1]
    named = list(dict.fromkeys([*in_overlays, *differing]))
    marks = {key: local_marks([item.side for item in checked], key) for key in named}
    out = []
    for index, item in enumerate(checked):
        if not item.listed:
            out.append(item)
            continue
        found = {overlays.normalized(d): v for d, v in item.versions.items()}
        own = {overlays.normalized(installed.split()[0]) for installed in item.side.installed}
        ran = []
        for key in named:
            version = found.get(key, "not found")
            if version == "not found":
                ran.append(f"{display[key]} not installed")
            elif key in own:
                ran.append(f"{display[key]} {version}{marks[key][index]}")
            else:
                ran.append(f"{display[key]} {version} (installed)")
        out.append(dataclasses.replace(item, side=dataclasses.replace(item.side, ran=tuple(ran))))
    return out


def local_marks(sides: Sequence[Side], distribution: str) -> list[str]:
    """Each side's mark for a distribution its overlay holds: ' (commit 9f9bdae0)', ' (work tree)' for
    a build of a commit or of a work tree (measure/commits.py); for a local build (a checkout, an
    sdist), whose version says nothing of its edits, ' (local: NAME)' with NAME the folder that tells
    its path from the other sides' ('kserve-fix' of ../kserve-fix/python/kserve), never the path; ''
    for a release or a wheel file, named by its version."""
    specs = [overlays.spec_of(side.overlay, distribution) if side.overlay else None for side in sides]
    paths = [overlays.local_path(spec) if spec else None for spec in specs]
    built = [commits.built_from(path) if path else None for path in paths]
    local = [path if path is not None and not done and not path.name.endswith(".whl") else None
             for path, done in zip(paths, built)]
    names = distinguishing_names([path for path in local if path is not None])
    marks = []
    for done, path in zip(built, local):
        marks.append(f" ({done})" if done else f" (local: {names.pop(0)})" if path is not None else "")
    return marks


def distinguishing_names(paths: Sequence[Path]) -> list[str]:
    """The first folder (or file name) where each path leaves the parts all of them share at the
    start: ['kserve-base', 'kserve-fix'] for .../kserve-base/python/kserve and .../kserve-fix/python/kserve;
    a path alone, or paths all alike, by their last part."""
    parts = [path.parts for path in paths]
    if len(set(parts)) < 2:
        return [path.name for path in paths]
    start = 0
    while all(len(p) > start for p in parts) and len({p[start] for p in parts}) == 1:
        start += 1
    return [p[start] if len(p) > start else p[-1] for p in parts]


def common_benchmarks(checked: Sequence[Checked], say: Callable[[str], None]) -> list[str]:
    """The benchmarks every side selects and can run, in the first side's order; a side that
    selects nothing is refused in one line, and what is selected on one side only is said."""
    for item in checked:
        if not item.listed:
            raise UsageError(f"{item.side.label} ({item.side.description}, {item.side.python}) "
                             f"cannot run the selection: {item.why}")
    everywhere = set.intersection(*(set(item.listed) for item in checked))
    for item in checked:
        elsewhere = [name for name in item.listed if name not in everywhere]
        if elsewhere:
            say(f"only in {item.side.label}, not compared: {', '.join(elsewhere)}")
    refused = set().union(*(item.failed for item in checked))
    common = [name for name in checked[0].listed if name in everywhere and name not in refused]
    if not common:
        raise UsageError("no selected benchmark runs on every side" + ("; the causes are above" if refused else ""))
    if refused & everywhere:
        say(f"left out before timing: {len(refused & everywhere)} benchmarks; {len(common)} go on")
    return common


def with_environment(side: Side, python: str | None, specs: Sequence[str], say: Callable[[str], None],
                     build: commits.Build = commits.DECLARED_ONLY) -> Side:
    if python:
        python = resolve_python(python)
        side = dataclasses.replace(side, python=python,
                                   python_version=overlays.interpreter_identity(python)["version"].split()[0])
    if specs:
        directory, installed, fresh = overlays.overlay(installable(specs, side.python, build, say), side.python, say)
        if not fresh:
            say(f"{side.label}: {', '.join(installed)} (cached overlay {directory})")
        side = dataclasses.replace(side, overlay=directory, specs=tuple(specs), installed=tuple(installed))
    return side


def installable(specs: Sequence[str], python: str, build: commits.Build, say: Callable[[str], None]) -> list[str]:
    """The specs as pip installs them: a commit (PATH@REV) as the wheel built from it (measure/commits.py);
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


# --with SPEC for the commands that run in one process (profile, verify) and for the run -----------

def run_with_overlay(command: str, argv: Sequence[str], specs: Sequence[str], say: Callable[[str], None]) -> int:
    """`python -m serialbench COMMAND ARGV` again, with the overlay of `specs` first on sys.path: its
    libraries are imported fresh, numpy's and protobuf's included, which an import in this process
    could not undo. Returns the command's exit status."""
    from serialbench.catalog.discovery import PACKAGE_DIR

    directory, installed, _ = overlays.overlay(installable(specs, sys.executable, commits.DECLARED_ONLY, say),
                                               sys.executable, say)
    say(f"with {', '.join(installed) or 'nothing'} first on sys.path (overlay {directory})")
    side = Side("with", PACKAGE_DIR.parent, overlay=directory)
    env = {**worker_environment(side), ACTIVE_OVERLAY: str(directory)}
    return subprocess.run([sys.executable, "-P", "-m", "serialbench", command, *argv], env=env).returncode


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
            say(f"{label}: left out: {left_out[label]}")
    return sides, left_out
