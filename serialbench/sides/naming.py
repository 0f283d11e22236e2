"""Each side named by the library versions it imported, where the sides differ or an overlay put
them: 'protobuf 6.33.6 (installed)', 'msgpack 1.1.2 (local: msgpack-fix)', 'tritonclient 2.45.0 (commit 9f9bdae0)'."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from serialbench.sides import commits, overlays
from serialbench.sides.sides import Checked, Side


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
    a build of a commit or of a work tree (sides/commits.py); for a local build (a checkout, an
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
