"""Library overlays: the specs of one side (`tritonclient==2.45.0`, a local checkout, a wheel file)
installed into a directory that goes first on that side's workers' sys.path.

Only the specs themselves are installed (pip's --no-deps): the running environment supplies
everything else, so that the two sides differ in nothing but what was asked. Overlays are cached
in the user's cache directory, keyed by the specs, the interpreter and, for a local path, its
files' names, sizes and modification times: the next call with the same specs installs nothing,
and an edited checkout is installed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from serialbench.core.errors import UsageError

MANIFEST = "serialbench-overlay.json"
IGNORED_DIRS = {".git", "__pycache__", ".venv", "build", "dist", ".tox", ".mypy_cache", ".pytest_cache"}


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

    Returns (directory, its distributions, whether it was installed now).
    """
    key = overlay_key(specs, interpreter_identity(python))
    directory = cache_root() / key
    if (directory / MANIFEST).exists():
        return directory, json.loads((directory / MANIFEST).read_text())["installed"], False
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{key}-", dir=directory.parent))
    try:
        for spec in specs:
            say(f"installing {spec} (pip install --no-deps --target, cached in {directory.parent})")
            target = local_path(spec)
            done = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-input",
                                   "--disable-pip-version-check", "--upgrade", "--target", str(staging),
                                   str(target) if target else spec], capture_output=True, text=True)
            if done.returncode != 0:
                lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
                why = [line for line in lines if line.startswith("ERROR")] or lines or ["pip failed"]
                raise UsageError(f"cannot install {spec!r}: {why[-1]}; give a requirement pip accepts "
                                 "(name==version), a wheel file or a local checkout")
        installed = installed_distributions(staging)
        (staging / MANIFEST).write_text(json.dumps({"specs": list(specs), "installed": installed}))
        try:
            staging.rename(directory)
        except OSError:  # another call installed it meanwhile
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return directory, installed, True
