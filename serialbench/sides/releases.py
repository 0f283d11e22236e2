"""The releases a sweep or a bisection times: a range of a package's versions, as the index has them.

`'tritonclient>=2.44,<=2.50'` expands to the releases between, oldest first, from `pip index
versions` run with the sides' interpreter (so only releases it can install). pip reads its usual
settings, PIP_INDEX_URL, PIP_FIND_LINKS and PIP_NO_INDEX among them: a test points it at a local
directory of wheels, and --index-url / --find-links set those for every pip this process starts
(the overlays' installs too). Pre-releases are left out, as pip leaves them out.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence

from serialbench.core.errors import UsageError
from serialbench.core.formatting import last_line
from serialbench.sides import commits
from serialbench.sides.overlays import local_path
from serialbench.sides.overlays import normalized as overlays_normalized
from serialbench.sides.overlays import requirement_set as package_set


def use_index(index_url: str | None, find_links: Sequence[str]) -> None:
    """--index-url / --find-links, for `pip index` here and every overlay's `pip install`."""
    if index_url:
        os.environ["PIP_INDEX_URL"] = index_url
    if find_links:
        os.environ["PIP_FIND_LINKS"] = " ".join(str(link) for link in find_links)


def requirement(spec: str):
    """The spec as a pip requirement, or None when it is a local path or not a requirement."""
    from packaging.requirements import InvalidRequirement, Requirement

    if local_path(spec):
        return None
    try:
        return Requirement(spec)
    except InvalidRequirement:
        return None


def is_range(spec: str) -> bool:
    """A requirement that names more than one release: 'tritonclient>=2.44,<=2.50' (not '==2.44.0')."""
    found = requirement(spec)
    if found is None or not found.specifier:
        return False
    pins = [s for s in found.specifier if s.operator in ("==", "===") and "*" not in s.version]
    return not pins


def index_versions(name: str, python: str) -> list[str]:
    """The releases the index has of `name` for this interpreter, oldest first."""
    from packaging.version import InvalidVersion, Version

    done = subprocess.run([python, "-m", "pip", "index", "versions", name, "--disable-pip-version-check"],
                          capture_output=True, text=True)
    line = next((line for line in done.stdout.splitlines() if line.startswith("Available versions:")), None)
    if done.returncode != 0 or line is None:
        why = last_line(done.stderr) or f"pip index versions exited with status {done.returncode}"
        raise UsageError(f"cannot list the releases of {name}: {why}; check the name, or point pip at an index "
                         "(--index-url URL, --find-links DIR)")
    versions = []
    for word in line.split(":", 1)[1].split(","):
        try:
            versions.append(Version(word.strip()))
        except InvalidVersion:
            continue
    return [str(v) for v in sorted(set(versions)) if not v.is_prerelease]


def requirement_set(spec: str) -> list[str]:
    """The specs one SPEC stands for (overlays.requirement_set); a commit, PATH@REV, is one whatever
    its path holds (spaces included)."""
    return [spec] if commits.is_commit_spec(spec) else package_set(spec)


def expand(spec: str, python: str) -> list[str]:
    """A range to one pinned spec per release in it ('tritonclient==2.44.0', ...), or per commit of a
    git range (PATH@A..B: sides/commits.py); any other spec as it is. A set of specs for one side
    (requirement_set) is one side: its members are pinned, not ranges."""
    if commits.is_range(spec):
        return [commit.spec for commit in commits.expand_range(spec)]
    members = requirement_set(spec)
    if len(members) > 1 or members[0] != spec:
        ranges = [member for member in members if is_range(member)]
        if ranges:
            raise UsageError(f"{spec!r}: {ranges[0]!r} is a range inside a side of several packages; pin each "
                             "package of such a side (name==version), one SPEC per side")
        return [spec]
    found = requirement(spec) if is_range(spec) else None
    if found is None:
        return [spec]
    extras = f"[{','.join(sorted(found.extras))}]" if found.extras else ""
    chosen = [v for v in index_versions(found.name, python) if found.specifier.contains(v)]
    if not chosen:
        raise UsageError(f"{spec!r}: the index has no release of {found.name} in that range")
    return [f"{found.name}{extras}=={version}" for version in chosen]


def between(name: str, good: str, bad: str, python: str) -> list[str]:
    """The releases of `name` from GOOD to BAD, both included, oldest first (bisect)."""
    from packaging.version import InvalidVersion, Version

    try:
        low, high = Version(good), Version(bad)
    except InvalidVersion as exc:
        raise UsageError(f"{exc}; give GOOD and BAD as release versions (e.g. 2.40.0 2.50.0)") from None
    if low >= high:
        raise UsageError(f"GOOD {good} is not older than BAD {bad}; give the older release first")
    versions = index_versions(name, python)
    found = [v for v in versions if low <= Version(v) <= high]
    missing = [given for given in (good, bad) if not any(Version(v) == Version(given) for v in versions)]
    if missing:
        raise UsageError(f"the index has no {name} {' or '.join(missing)}; it has {', '.join(versions[-8:])}"
                         + (" and older" if len(versions) > 8 else ""))
    return found


def spread(items: Sequence[str], steps: int | None) -> list[str]:
    """`steps` of the items, evenly spread, always the first and the last (all when steps is None)."""
    if steps is None or steps >= len(items):
        return list(items)
    if steps < 2:
        raise UsageError(f"--steps {steps}: give at least 2 (the first and the last release)")
    last = len(items) - 1
    return [items[round(index * last / (steps - 1))] for index in range(steps)]


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    match = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise UsageError(f"--shard {text!r}: give K/N with 1 <= K <= N, e.g. 2/4")
    return int(match[1]), int(match[2])


def shard(items: Sequence[str], index: int, count: int) -> tuple[list[str], list[str]]:
    """The K-th of N contiguous parts of the releases after the anchor: (its sides, its own columns).

    Its sides are the anchor, the release just before its part (so that the step into the part is
    timed in one session, paired) and the part; its own columns are the anchor and the part."""
    rest = list(items[1:])
    if count > len(rest):
        raise UsageError(f"--shard {index}/{count}: only {len(rest)} releases after the anchor; give N <= {len(rest)}")
    start, end = len(rest) * (index - 1) // count, len(rest) * index // count
    part = rest[start:end]
    before = [rest[start - 1]] if start > 0 else []
    return [items[0], *before, *part], [items[0], *part]


def labels(specs: Sequence[str]) -> list[str]:
    """A short, unique column label per side: the version when every side pins one package
    ('2.46.0'), else 'name version', or a local path's name ('msgpack-1.1.2'). A side of several
    packages is named by what differs from the side before it ('protobuf 4.21.12, tritonclient
    2.30.0'; the first side by all of its packages)."""
    sets = [requirement_set(spec) for spec in specs]
    if any(len(members) > 1 for members in sets):
        return _unique([_set_label(members, before) for members, before in zip(sets, [[], *sets])])
    specs = [members[0] for members in sets]
    pinned = [_pin(spec) for spec in specs]
    one_package = all(pinned) and len({name for name, _ in pinned}) == 1
    return _unique([pin[1] if pin and one_package else _member_label(spec) for spec, pin in zip(specs, pinned)])


def _member_label(spec: str) -> str:
    """'protobuf 4.21.12', a commit ('9f9bdae0', 'v1.2.0'), a local path's name, or the spec as given."""
    if commits.is_commit_spec(spec):
        return commits.label(spec)
    pin, path = _pin(spec), local_path(spec)
    if pin:
        return f"{pin[0]} {pin[1]}"
    if path:
        return _archive_stem(path.name) if path.is_file() else path.name
    return spec


def _set_label(members: Sequence[str], before: Sequence[str]) -> str:
    """The members of a side that differ from the side before it (all of them for the first); a package
    the side before it pinned and this one does not comes from the running environment: '(installed)'."""
    def key(spec):
        found = requirement(spec)
        return overlays_normalized(found.name) if found else spec

    earlier = {key(spec): spec for spec in before}
    changed = [spec for spec in members if earlier.get(key(spec)) != spec]
    gone = [key(spec) for spec in before if key(spec) not in {key(member) for member in members}]
    words = [_member_label(spec) for spec in changed] + [f"{name} (installed)" for name in gone]
    return ", ".join(words) or ", ".join(_member_label(spec) for spec in members)


def _unique(labels: Sequence[str]) -> list[str]:
    found: list[str] = []
    for label in labels:
        candidate, count = label, 1
        while candidate in found:
            count += 1
            candidate = f"{label}#{count}"
        found.append(candidate)
    return found


def _pin(spec: str) -> tuple[str, str] | None:
    found = requirement(spec)
    if found is None:
        return None
    pins = [s.version for s in found.specifier if s.operator in ("==", "===")]
    return (found.name, pins[0]) if len(pins) == 1 and len(found.specifier) == 1 else None


def _archive_stem(name: str) -> str:
    """'toylib-2.0-py3-none-any.whl' and 'toylib-2.0.tar.gz' -> 'toylib-2.0'."""
    if name.endswith(".whl"):
        return "-".join(name.split("-")[:2])
    for suffix in (".tar.gz", ".zip", ".tar.bz2"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
