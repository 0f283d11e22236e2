"""An environment made for a bare interpreter, as asv, nox and tox make one per interpreter.

`--head-python 3.13` names an interpreter; a side needs numpy and its cases' libraries in it
(sides/selection.py, selection_distributions). An interpreter that has them all is used as it is; a
virtual environment is always used as it is (the user made it: what it lacks is named, with the
command that installs it); any other interpreter gets an environment of its own, made with uv where
it is on PATH (else `python -m venv` and pip), holding those distributions at the versions this
process's environment has (the other side's, unless it too names an interpreter), or the closest
version the interpreter can install, which the side's name then shows (sides/naming.py).

Environments are cached beside the overlays (sides/overlays.py), keyed by the interpreter and the
requirements, with the same manifest: the next session with the same selection makes nothing, and
`cache list` and `cache prune` see them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

from serialbench.core.errors import UsageError
from serialbench.sides import interpreters, overlays
from serialbench.sides.interpreters import Interpreter


def environments_root() -> Path:
    return overlays.cache_root().parent / "environments"


def pinned(distributions: Sequence[str]) -> list[str]:
    """Each distribution as pip installs it, at the version this process's environment has, with the
    extras serialbench's own requirements give it ('tritonclient[grpc,http]==2.73.0'); unpinned where
    this environment does not have it."""
    from packaging.requirements import InvalidRequirement, Requirement

    extras = {}
    declared = (metadata.requires("serialbench") or []) if installed("serialbench") else []
    for line in declared:
        try:
            found = Requirement(line)
        except InvalidRequirement:
            continue
        if found.extras and not (found.marker and "extra" in str(found.marker)):
            extras[overlays.normalized(found.name)] = ",".join(sorted(found.extras))
    out = []
    for name in distributions:
        version = installed(name)
        tail = f"[{extras[overlays.normalized(name)]}]" if overlays.normalized(name) in extras else ""
        out.append(f"{name}{tail}=={version}" if version else f"{name}{tail}")
    return out


def installed(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def name_of(requirement: str) -> str:
    return requirement.split("[")[0].split("=")[0].split("<")[0].split(">")[0]


def for_side(interpreter: Interpreter, requirements: Sequence[str], label: str, flag: str,
             say: Callable[[str], None]) -> str:
    """The interpreter a side runs: the given one when it has every distribution needed, else (a
    bare interpreter) the environment made for it. A venv that lacks some is refused in one line."""
    lacking = interpreters.missing(interpreter.path, [name_of(r) for r in requirements])
    if not lacking:
        return interpreter.path
    if interpreter.venv:
        wanted = [r for r in requirements if name_of(r) in lacking]
        base = interpreter.version.rsplit(".", 1)[0]
        raise UsageError(f"{label}: the environment {interpreter.path} has no {', '.join(lacking)}, which the "
                         f"selection needs: install {'them' if len(lacking) > 1 else 'it'} "
                         f"({interpreter.path} -m pip install {' '.join(wanted)}), or give its base interpreter "
                         f"({flag} {base}) and serialbench makes an environment with them")
    return made(interpreter, requirements, label, say)


def key(interpreter: Interpreter, requirements: Sequence[str]) -> str:
    identity = overlays.interpreter_identity(interpreter.path)
    parts = {"python": identity, "requirements": sorted(requirements)}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def made(interpreter: Interpreter, requirements: Sequence[str], label: str, say: Callable[[str], None]) -> str:
    """The python of the environment made for this interpreter and these requirements, made unless cached."""
    directory = environments_root() / f"python{interpreter.version}-{key(interpreter, requirements)}"
    python = directory / "bin" / "python"
    if (directory / overlays.MANIFEST).exists():
        os.utime(directory / overlays.MANIFEST)  # its last use, for `cache list` and `cache prune`
        manifest = json.loads((directory / overlays.MANIFEST).read_text())
        say(f"{label}: {', '.join(manifest['installed'])} (cached environment {directory})")
        return str(python)
    tool = "uv" if shutil.which("uv") else "venv and pip"
    say(f"{label}: making an environment for python {interpreter.version} ({interpreter.path}) with "
        f"{', '.join(requirements)} ({tool}; cached in {directory.parent})")
    started = time.monotonic()
    with overlays.staged(directory) as staging:
        create(interpreter.path, staging)
        given = install(staging / "bin" / "python", list(requirements), interpreter.version)
        versions = versions_in(staging / "bin" / "python", [name_of(r) for r in requirements])
        manifest = {"specs": list(requirements), "installed": [f"{n} {v}" for n, v in versions.items()],
                    "python": interpreter.version, "prefix": interpreter.path, "closest": given}
        (staging / overlays.MANIFEST).write_text(json.dumps(manifest))
    moved = "; ".join(f"{wanted}: no release for python {interpreter.version}, {got} instead"
                      for wanted, got in given.items())
    say(f"{label}: environment made in {time.monotonic() - started:.0f} s"
        + (f" ({moved})" if moved else ""))
    return str(python)


def create(base: str, directory: Path) -> None:
    if shutil.which("uv"):
        argv = ["uv", "venv", "--quiet", "--python", base, str(directory)]
    else:
        argv = [base, "-m", "venv", str(directory)]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"cannot make an environment with {base}: {why(done)}")


def installer(python: Path) -> list[str]:
    if shutil.which("uv"):
        return ["uv", "pip", "install", "--quiet", "--python", str(python), *pip_settings_for_uv()]
    return [str(python), "-m", "pip", "install", "--quiet", "--no-input", "--disable-pip-version-check"]


def pip_settings_for_uv() -> list[str]:
    """pip's index settings from the environment (--index-url and --find-links set them for every pip
    serialbench starts, sides/releases.py) as uv's options: uv reads no PIP_ variable."""
    options = []
    if os.environ.get("PIP_NO_INDEX", "").lower() in ("1", "true", "yes", "on"):
        options.append("--no-index")
    if os.environ.get("PIP_INDEX_URL"):
        options += ["--index-url", os.environ["PIP_INDEX_URL"]]
    for url in os.environ.get("PIP_EXTRA_INDEX_URL", "").split():
        options += ["--extra-index-url", url]
    for link in os.environ.get("PIP_FIND_LINKS", "").split():
        options += ["--find-links", link]
    return options


def install(python: Path, requirements: list[str], version: str) -> dict[str, str]:
    """Install the requirements, each pinned one as a wheel; where the pinned version has none for
    this interpreter, the closest below it (else above it) that has. Returns wanted -> installed instead."""
    wheels_only = ["--only-binary", ",".join(name_of(r) for r in requirements if "==" in r) or ":none:"]
    done = subprocess.run([*installer(python), *wheels_only, *requirements], capture_output=True, text=True)
    if done.returncode == 0:
        return {}
    instead = {}
    for requirement in [r for r in requirements if "==" in r]:
        if installable(python, [requirement]):
            continue
        below, above = requirement.replace("==", "<="), requirement.replace("==", ">")
        other = next((r for r in (below, above) if installable(python, [r])), None)
        if other is None:
            raise UsageError(f"cannot make an environment for python {version}: {name_of(requirement)} has no "
                             f"wheel for it ({why(done)})")
        instead[requirement] = other
    given = [instead.get(r, r) for r in requirements]
    done = subprocess.run([*installer(python), *wheels_only, *given], capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"cannot make an environment for python {version}: {why(done)}")
    got = versions_in(python, [name_of(r) for r in instead])
    return {wanted: f"{name_of(wanted)} {got.get(name_of(wanted), '?')}" for wanted in instead}


def installable(python: Path, requirements: list[str]) -> bool:
    argv = [*installer(python), "--dry-run", "--no-deps", "--only-binary", ":all:", *requirements]
    return subprocess.run(argv, capture_output=True, text=True).returncode == 0


def versions_in(python: Path, names: Sequence[str]) -> dict[str, str]:
    code = ("import json, sys\nfrom importlib import metadata\n"
            "print(json.dumps({n: metadata.version(n) for n in json.loads(sys.argv[1])}))")
    done = subprocess.run([str(python), "-c", code, json.dumps(list(names))], capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}


def why(done: subprocess.CompletedProcess) -> str:
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    errors = [line for line in lines if line.startswith("ERROR") or line.startswith("error")]
    return (errors or lines or [f"exit status {done.returncode}"])[-1]
