"""Library overlays: the specs of one side (`tritonclient==2.45.0`, a local checkout, a wheel or an
sdist file) installed into a directory that goes first on that side's workers' sys.path. A spec may
be a set of them for one side, `'protobuf==4.21.12 tritonclient[grpc]==2.30.0'` or a requirements
file (requirement_set): a protobuf release together with the generated code of its time.

Only the specs themselves are installed (pip's --no-deps): the running environment supplies
everything else, so that the two sides differ in nothing but what was asked. Overlays are cached
in the user's cache directory, keyed by the specs, the interpreter and, for a local path, its
files' names, sizes and modification times: the next call with the same specs installs nothing,
and an edited checkout is installed again. Each use touches the overlay's manifest, so that
`cache list` shows when it was last used and `cache prune` removes the least recently used first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from serialbench.core.errors import UsageError

MANIFEST = "serialbench-overlay.json"
IGNORED_DIRS = {".git", "__pycache__", ".venv", "build", "dist", ".tox", ".mypy_cache", ".pytest_cache"}
SPEC_HELP = ("name==version, a wheel, an sdist (.tar.gz), a local checkout, a commit of a library's git repository "
             "(PATH@REV, built from a clean tree), or several of them for one side: "
             "'protobuf==4.21.12 tritonclient[grpc]==2.30.0' or a requirements file (.txt)")


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "serialbench" / "overlays"


def interpreter_identity(python: str) -> dict:
    """What an overlay's contents depend on besides the specs: the interpreter's version and ABI."""
    code = ("import json, sys, sysconfig; print(json.dumps({'version': sys.version, 'prefix': sys.prefix, "
            "'soabi': sysconfig.get_config_var('SOABI')}))")
    done = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"{python} does not run: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    return json.loads(done.stdout)


def local_path(spec: str) -> Path | None:
    """The file or directory a spec names, when it names one (a checkout or a wheel)."""
    path = Path(spec).expanduser()
    return path.resolve() if (path.is_dir() or path.is_file()) and (os.sep in spec or path.exists()) else None


def requirement_set(spec: str) -> list[str]:
    """The specs one SPEC stands for: itself; the words of a set ('protobuf==4.21.12 tritonclient==2.30.0');
    or the lines of a requirements file (a .txt file: one spec a line, '#' comments, no pip options)."""
    path = local_path(spec)
    if path is not None and path.is_file() and path.suffix == ".txt":
        specs = []
        for number, line in enumerate(path.read_text().splitlines(), 1):
            line = line.split(" #", 1)[0].strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("-"):
                raise UsageError(f"{spec}, line {number}: {line!r}: pip options are not read here; give one "
                                 f"spec a line ({SPEC_HELP.split(', or several')[0]})")
            specs.append(line)
        if not specs:
            raise UsageError(f"{spec} names no requirement; give one spec a line")
        return specs
    if path is not None or _one_requirement(spec):
        return [spec]  # 'protobuf >= 4.21' is one requirement, spaces and all
    return spec.split() or [spec]


def _one_requirement(spec: str) -> bool:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(spec)
    except InvalidRequirement:
        return False
    return True


def fingerprint(path: Path) -> str:
    """Changes when any file of a local checkout (or the wheel file) changes."""
    digest = hashlib.sha256()
    if path.is_file():
        stat = path.stat()
        digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}".encode())
        return digest.hexdigest()
    for directory, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            stat = os.stat(os.path.join(directory, name))
            digest.update(f"{os.path.relpath(os.path.join(directory, name), path)}:{stat.st_size}:"
                          f"{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def overlay_key(specs: Sequence[str], identity: dict) -> str:
    parts = {"specs": sorted(specs), "python": identity,
             "local": {spec: fingerprint(path) for spec in specs if (path := local_path(spec))}}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def installed_distributions(directory: Path) -> list[str]:
    """'name version' of each distribution installed in an overlay, from its .dist-info folders."""
    found = []
    for info in sorted(directory.glob("*.dist-info")):
        fields = {}
        for line in (info / "METADATA").read_text(errors="replace").splitlines():
            if not line.strip():
                break
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
        if "Name" in fields:
            found.append(f"{fields['Name']} {fields.get('Version', '?')}")
    return found


def overlay(specs: Sequence[str], python: str, say: Callable[[str], None]) -> tuple[Path, list[str], bool]:
    """The overlay directory of these specs for this interpreter, installing it unless cached.

    Returns (directory, its distributions, whether it was installed now). A spec that is a set
    (requirement_set) counts as its members: the cache keys on the whole set, however it was given.
    """
    specs = list(dict.fromkeys(member for spec in specs for member in requirement_set(spec)))
    identity = interpreter_identity(python)
    key = overlay_key(specs, identity)
    directory = cache_root() / key
    if (directory / MANIFEST).exists():
        os.utime(directory / MANIFEST)  # its last use, for `cache list` and `cache prune`
        return directory, json.loads((directory / MANIFEST).read_text())["installed"], False
    with staged(directory) as staging:
        by_spec = {}
        for spec in specs:
            say(f"installing {spec} (pip install --no-deps --target, cached in {directory.parent})")
            target = local_path(spec)
            before = set(installed_distributions(staging))
            done = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-input",
                                   "--disable-pip-version-check", "--upgrade", "--target", str(staging),
                                   str(target) if target else spec], capture_output=True, text=True)
            if done.returncode != 0:
                lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
                why = [line for line in lines if line.startswith("ERROR")] or lines or ["pip failed"]
                raise UsageError(f"cannot install {spec!r}: {why[-1]}; give {SPEC_HELP} that pip installs")
            by_spec[spec] = [found for found in installed_distributions(staging) if found not in before]
        installed = installed_distributions(staging)
        manifest = {"specs": list(specs), "installed": installed, "by_spec": by_spec,
                    "python": identity["version"].split()[0], "prefix": identity["prefix"]}
        (staging / MANIFEST).write_text(json.dumps(manifest))
    return directory, installed, True


@contextlib.contextmanager
def staged(directory: Path) -> Iterator[Path]:
    """A folder to fill beside `directory`, renamed to it when the block ends (kept as another call
    made it, if that call finished first) and removed when the block fails: a cache entry is whole
    or absent, never half-written."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{directory.name}-", dir=directory.parent))
    try:
        yield staging
        try:
            staging.rename(directory)
        except OSError:  # another call made it meanwhile
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def spec_of(directory: Path, distribution: str) -> str | None:
    """The spec (as the user gave it) that put `distribution` ('msgpack') into an overlay."""
    manifest = json.loads((Path(directory) / MANIFEST).read_text())
    by_spec = manifest.get("by_spec") or {}
    if not by_spec and len(manifest["specs"]) == 1:  # an overlay cached before by_spec was recorded
        by_spec = {manifest["specs"][0]: manifest["installed"]}
    wanted = normalized(distribution)
    for spec, installed in by_spec.items():
        if any(normalized(found.split()[0]) == wanted for found in installed):
            return spec
    return None


def normalized(distribution: str) -> str:
    """A distribution's name as pip compares them (PEP 503): 'tensorflow_serving_api' -> 'tensorflow-serving-api'."""
    return "-".join(part for part in distribution.lower().replace("_", "-").replace(".", "-").split("-") if part)


@dataclass(frozen=True)
class Cached:
    """One directory of the cache (an overlay, a build, an environment), for `cache list` and `cache prune`."""

    directory: Path
    specs: tuple[str, ...]  # () for what no manifest describes: an install cut short
    installed: tuple[str, ...]
    python: str
    size: int  # bytes
    last_used: float  # epoch seconds: the manifest's modification time

    @property
    def complete(self) -> bool:
        return bool(self.specs)

    @property
    def kind(self) -> str:
        """What it is, by the cache's folder it lies in: a library overlay, a commit's build (sides/commits.py),
        or an environment made for an interpreter (sides/environments.py)."""
        return {"builds": "build", "environments": "environment"}.get(self.directory.parent.name, "overlay")


def cached_overlays(roots: Sequence[Path] = ()) -> list[Cached]:
    """Every directory of the cache (and of the other `roots` that keep a manifest per directory, as
    commits' builds do), least recently used first."""
    found = []
    for directory in [d for root in (cache_root(), *roots) if root.is_dir() for d in sorted(root.iterdir())]:
        if not directory.is_dir():
            continue
        manifest_path = directory / MANIFEST
        try:
            manifest = json.loads(manifest_path.read_text())
            last_used = manifest_path.stat().st_mtime
        except (OSError, ValueError):
            manifest, last_used = {}, directory.stat().st_mtime
        found.append(Cached(directory, tuple(manifest.get("specs", ())), tuple(manifest.get("installed", ())),
                            manifest.get("python", "?"), tree_size(directory), last_used))
    return sorted(found, key=lambda cached: cached.last_used)


def tree_size(directory: Path) -> int:
    total = 0
    for folder, _, files in os.walk(directory):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
    return total


def to_prune(cached: Sequence[Cached], keep_days: float | None, max_bytes: int | None,
             now: float | None = None) -> list[Cached]:
    """What `cache prune` removes: installs cut short (older than an hour: one may be under way),
    overlays unused for more than keep_days, then the least recently used until max_bytes is kept."""
    now = time.time() if now is None else now
    doomed = [c for c in cached if not c.complete and now - c.last_used > 3600]
    if keep_days is not None:
        doomed += [c for c in cached if c.complete and now - c.last_used > keep_days * 86400]
    if max_bytes is not None:
        kept = [c for c in cached if c not in doomed]  # least recently used first
        total = sum(c.size for c in kept)
        for c in kept:
            if total <= max_bytes:
                break
            doomed.append(c)
            total -= c.size
    return sorted(doomed, key=lambda c: c.last_used)


def remove(cached: Cached) -> None:
    shutil.rmtree(cached.directory, ignore_errors=True)
