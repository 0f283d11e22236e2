"""Sides from a library's git history: `PATH@REV` names a commit of the git repository at PATH (a
work tree or a bare repository), and `PATH@A..B` the commits from A to B on B's first-parent line
(A included: merges count as one commit each, as `git log --first-parent` lists them). PATH may be
a folder inside a clone, or carry pip's `#subdirectory=DIR`: the package is that folder
(sides/package_trees.py), and a range keeps the commits that change it. `PATH@{worktree}` is
the work tree as it is now, uncommitted changes included: a maintainer's patch against its base.

A commit becomes a side through a wheel built from a clean tree of its own, so that nothing the
user's work tree holds (edits, files another build generated and git ignores, such as a Cython .c
file) can leak into it: a fresh clone checked out at the commit for a package at the top of its
repository (its build may read the git metadata), the package's folder alone, exported from the
commit, for one inside it. The wheel is then installed as any local wheel (sides/overlays.py).
Builds are cached by the folder's tree hash, the folder, the interpreter and the build options,
failures included: a second search over the same range builds nothing. A build that fails is a
`BuildFailed` whose message is one line, the cause in the build's own words (its exception, the
compiler's error), not pip's account of which step failed. A failure may come from the environment
(tritonclient's setup.py raises unless VERSION is set), so it is remembered with a fingerprint of
the environment's variables and built again once they change; a remembered failure says that it is
one, and which folder to remove to build it again.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from serialbench.core.errors import UsageError
from serialbench.core.formatting import last_line
from serialbench.sides import package_trees
from serialbench.sides.package_trees import WORK_TREE, Place
from serialbench.sides.worktrees import git, resolve

BUILD_RECORD = "serialbench-overlay.json"  # the overlays' manifest name: `cache list` and `prune` see builds too
FULL_SHA = re.compile(r"[0-9a-f]{40}")
LABEL_LENGTH = 8
RECIPE = 3  # how a commit is built; a change to _build or _tool_environment bumps it, and the cache with it
# pip's own lines around a failed build: they say that it failed, not why.
PIP_NOISE = re.compile(r"^(error: subprocess-exited-with-error|error: metadata-generation-failed|error: "
                       r"failed-wheel-build|ERROR: Failed|ERROR: Could not build|note: |exit code: |"
                       r"\[end of output\]|Building wheel for|Preparing metadata|hint: |See above for|.*did not run "
                       r"successfully|Failed to build|\[\d+ lines? of output\]|Traceback|"
                       r"Encountered error while|.*: (started|finished with status)|Getting requirements to build)")
# A missing file, module or tool, or a compiler's error, says more than the command that failed of it.
MISSING = re.compile(r"fatal error|: error:|no such file|no module named|not found", re.I)
# The exception a build raised, last line of its traceback: 'Exception: envvar VERSION must be specified'.
RAISED = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b:? ")
# Variables that differ between two shells of one user and say nothing of a build: left out of the
# environment's fingerprint, so that a remembered failure is not built again for them.
VOLATILE = re.compile(r"^(_|PWD|OLDPWD|SHLVL|PS\d|TERM.*|COLORTERM|COLUMNS|LINES|LS_COLORS|DISPLAY|WINDOWID|"
                      r"SSH_.*|TMUX.*|STY|XDG_SESSION_.*|XDG_RUNTIME_DIR|HISTFILE|PYTEST_.*)$")


class BuildFailed(UsageError):
    """A commit that could not be built: `why` is the one-line cause (what result files record), `note`
    what the user is told besides (a remembered failure); str() names the commit too."""

    def __init__(self, why: str, label: str = "", note: str = ""):
        super().__init__(f"commit {label} {why}{note}" if label else why + note)
        self.why = why
        self.note = note


@dataclass(frozen=True)
class Build:
    """What every commit's build gets besides what it declares: --build-with tools, a requirements file
    of each commit's own tree (--build-requirements: its pins at that commit), --build-step commands."""

    tools: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    requirements: str = ""  # a path inside the commit's tree

    @property
    def own_environment(self) -> bool:
        """Whether the build needs an environment of its own (pip's isolated one holds only what is declared)."""
        return bool(self.tools or self.requirements)


DECLARED_ONLY = Build()  # a commit built with what it declares, nothing more


@dataclass(frozen=True)
class Commit:
    repo: Path
    sha: str
    subject: str = ""
    date: str = ""  # the author date, YYYY-MM-DD
    files: tuple[str, ...] = ()  # changed against its first parent
    folder: str = ""  # the package's folder in the repository ('' at the top)
    work_tree: str = ""  # the tree of the work tree's folder, when the side is the work tree (sha is its HEAD)

    @property
    def label(self) -> str:
        return "work tree" if self.work_tree else self.sha[:LABEL_LENGTH]

    @property
    def place(self) -> Place:
        return Place(self.repo, self.folder)

    @property
    def spec(self) -> str:
        return self.place.spec(WORK_TREE if self.work_tree else self.sha)

    def as_json(self) -> dict:
        return {"sha": self.sha, "subject": self.subject, "date": self.date, "files": list(self.files)}


def repository(path: str) -> Place | None:
    """The git repository at `path` and the package's folder in it (package_trees.place: `path` a
    folder inside a clone, or PATH#subdirectory=DIR), or None when `path` is no git repository."""
    path, folder = package_trees.without_suffix(path)
    return package_trees.place(path, folder)


def split_spec(spec: str) -> tuple[str, str] | None:
    """('PATH', 'REV') when the spec is PATH@REV (with or without #subdirectory=DIR) with PATH an
    existing directory, else None (a pip requirement such as 'name @ https://...' names no directory)."""
    path, at, revision = package_trees.without_suffix(spec)[0].rpartition("@")
    if not at or not path or not revision or not Path(path).expanduser().is_dir():
        return None
    return path, revision


def is_commit_spec(spec: str) -> bool:
    return split_spec(spec) is not None


def repository_of(spec: str) -> tuple[Place, str]:
    """The repository (and package folder) and revision of a PATH@REV spec, or a one-line error
    naming what PATH is."""
    path, revision = split_spec(spec) or ("", "")
    found = package_trees.place(path, package_trees.without_suffix(spec)[1])
    if found is None:
        raise UsageError(f"{spec!r}: {path} is not a git repository; give PATH@REV with PATH a clone of the "
                         "library (a work tree or a bare repository) or a folder inside one")
    return found, revision


@functools.cache
def describe(repo: Path, sha: str, folder: str = "") -> Commit:
    """The commit with its subject, date and the files it changed against its first parent; once per
    commit (a range's commits are described by the range, the name check and each side's build)."""
    head = git(repo, "log", "-1", "--format=%H%x00%ad%x00%s", "--date=short", sha).rstrip("\n").split("\0")
    files = git(repo, "diff-tree", "-r", "--root", "--name-only", "--no-commit-id", "-m", "--first-parent", sha)
    return Commit(repo, head[0], head[2], head[1], tuple(files.split()), folder)


@functools.cache
def commit_of(spec: str) -> Commit:
    """The commit a PATH@REV spec names; PATH@{worktree}: the work tree's folder as it is now, on its HEAD.
    Once per spec and process: the check before anything is built and the build see the same commit,
    and the same snapshot of a work tree (edits made meanwhile do not leak in)."""
    where, revision = repository_of(spec)
    if revision == WORK_TREE:
        tree = package_trees.work_tree_tree(where)
        head = describe(where.repo, resolve(where.repo, "HEAD"), where.folder)
        return dataclasses.replace(head, subject=f"uncommitted changes on {head.label}", work_tree=tree)
    return describe(where.repo, resolve(where.repo, revision), where.folder)


def first_parent(where: Place, good: str, bad: str) -> list[Commit]:
    """GOOD, then every commit after it on BAD's first-parent line up to BAD, oldest first; for a
    package inside its repository, only the commits that change its folder (and GOOD)."""
    repo = where.repo
    low, high = resolve(repo, good), resolve(repo, bad)
    if subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", low, high]).returncode != 0:
        raise UsageError(f"{good} is not an ancestor of {bad} in {repo}; give the older commit first (GOOD..BAD)")
    later = git(repo, "rev-list", "--first-parent", "--reverse", f"{low}..{high}").split()
    if where.folder:  # a commit that leaves the folder as it was builds what the one before it built
        trees = package_trees.folder_trees(where, [low, *later])
        later = [sha for sha, tree, before in zip(later, trees[1:], trees) if tree != before]
    if not later:
        changing = f" that changes {where.folder}" if where.folder else ""
        raise UsageError(f"{good}..{bad} holds no commit{changing} after {good}; give an older GOOD or a later BAD")
    return [describe(repo, sha, where.folder) for sha in [low, *later]]


def repository_name(where: Place) -> str:
    """'msgpack-python', or 'kserve python/kserve' for a package inside its repository."""
    name = where.repo.name.removesuffix(".git")
    return f"{name} {where.folder}" if where.folder else name


def range_name(spec: str) -> str:
    """'msgpack-python v1.1.2..v1.2.0 (first-parent)' for PATH@v1.1.2..v1.2.0; a folder's range
    keeps the commits that change it."""
    where, revisions = repository_of(spec)
    return f"{repository_name(where)} {revisions} (first-parent" + (", changing it)" if where.folder else ")")


def is_range(spec: str) -> bool:
    found = split_spec(spec)
    return found is not None and ".." in found[1]


def expand_range(spec: str) -> list[Commit]:
    """PATH@A..B to its commits (first_parent)."""
    where, revisions = repository_of(spec)
    good, _, bad = revisions.partition("..")
    if not good or not bad or ".." in bad:
        raise UsageError(f"{spec!r}: give a range as PATH@GOOD..BAD (e.g. ../msgpack-python@v1.1.2..v1.2.0)")
    return first_parent(where, good, bad)


def label(spec: str) -> str:
    """A commit side's column label: the revision as given ('v1.2.0'), a full sha shortened, 'work tree'."""
    _, revision = split_spec(spec) or ("", spec)
    if revision == WORK_TREE:
        return "work tree"
    return revision[:LABEL_LENGTH] if FULL_SHA.fullmatch(revision) else revision


def package_name(commit: Commit) -> str | None:
    """The distribution a commit builds, as its metadata files say it (pyproject.toml's [project],
    setup.cfg's [metadata], a literal name= in setup.py); None when none says it without building."""
    tree = source_tree(commit)

    def show(name: str) -> str | None:
        done = subprocess.run(["git", "-C", str(commit.repo), "show", f"{tree}:{name}"], capture_output=True,
                              text=True)
        return done.stdout if done.returncode == 0 else None

    text = show("pyproject.toml")
    if text:
        try:
            name = tomllib.loads(text).get("project", {}).get("name")
        except tomllib.TOMLDecodeError:
            name = None
        if name:
            return name
    for file, pattern in (("setup.cfg", r"^\[metadata\][^\[]*?^name\s*=\s*(\S+)"),
                          ("setup.py", r"\bname\s*=\s*['\"]([A-Za-z0-9._-]+)['\"]")):
        text = show(file)
        found = text and re.search(pattern, text, re.M | re.S)
        if found:
            return found[1]
    return None


def check_names(commits: Sequence[Commit], expected: str | None = None) -> None:
    """A one-line error when the commits' metadata name more than one package (or another than `expected`)."""
    from serialbench.sides.overlays import normalized

    names = {commit.label: package_name(commit) for commit in commits}
    wanted = expected or next((name for name in names.values() if name), None)
    for commit_label, name in names.items():
        if name and wanted and normalized(name) != normalized(wanted):
            raise UsageError(f"commit {commit_label} builds {name}, not {wanted}; give commits of one package"
                             + (" (NAME is the package the repository builds)" if expected else ""))


# -- building ------------------------------------------------------------------------------------------

def builds_root() -> Path:
    from serialbench.sides.overlays import cache_root

    return cache_root().parent / "builds"


def folder_of(commit: Commit) -> str | None:
    """The tree that is built: the package's folder at the commit (or in the work tree); None when
    the commit has no such folder."""
    return commit.work_tree or package_trees.folder_tree(commit.place, commit.sha)


def source_tree(commit: Commit) -> str:
    """folder_of, or BuildFailed."""
    tree = folder_of(commit)
    if tree is None:
        raise BuildFailed(f"has no folder {commit.folder}", commit.label)
    return tree


def check_package(commit: Commit, spec: str) -> None:
    """A one-line error, before anything is built, when the commit's folder holds no package."""
    tree = folder_of(commit)
    if tree is None or not package_trees.has_package(commit.place, tree):
        where = commit.folder or "its top level"
        raise UsageError(f"{spec!r}: {where} holds no package at {commit.label} (no pyproject.toml or setup.py); "
                         "give the folder of the package inside the repository (e.g. ../kserve/python/kserve@REV)")


def build_key(commit: Commit, identity: dict, build: Build) -> str:
    parts = {"recipe": RECIPE, "tree": source_tree(commit), "folder": commit.folder,
             "python": [identity["version"], identity["soabi"]],
             "tools": sorted(build.tools), "steps": list(build.steps), "requirements": build.requirements}
    if commit.work_tree:  # its own entry, named so: a clean work tree is not labelled as its HEAD's build
        parts["work_tree"] = True
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def wheel(commit: Commit, python: str, build: Build, say: Callable[[str], None]) -> Path:
    """The wheel of a commit for this interpreter, built unless cached; BuildFailed (cached too) when
    it does not build."""
    from serialbench.sides.overlays import interpreter_identity, staged

    identity = interpreter_identity(python)
    directory = builds_root() / build_key(commit, identity, build)
    record_path = directory / BUILD_RECORD
    environment = environment_fingerprint()
    if record_path.exists():
        os.utime(record_path)  # its last use, for `cache prune`
        record = json.loads(record_path.read_text())
        if not record["why"]:
            return directory / record["wheel"]
        if record.get("environment") == environment:
            when = record.get("built", "an earlier build")
            raise BuildFailed(record["why"], commit.label, f" (remembered: it failed so in this environment at {when}; "
                                                           f"remove {directory} to build it again)")
        say(f"{commit.label}: building again, the environment's variables changed since it failed ({record['why']})")
        shutil.rmtree(directory, ignore_errors=True)
    started = time.monotonic()
    say(f"building {commit.label} ({commit.subject[:60]}) from a clean tree (cached in {directory.parent})")
    with staged(directory) as staging:
        try:
            made, why = _build(commit, python, build, staging), ""
        except BuildFailed as exc:
            made, why = None, exc.why
        record = {"specs": [commit.spec, *(f"--build-with {t}" for t in build.tools),
                            *([f"--build-requirements {build.requirements}"] if build.requirements else []),
                            *(f"--build-step {s}" for s in build.steps)],
                  "installed": [_wheel_name(made)] if made else [], "python": identity["version"].split()[0],
                  "commit": commit.sha, "work_tree": bool(commit.work_tree), "folder": commit.folder,
                  "subject": commit.subject, "wheel": made.name if made else None,
                  "why": why, "seconds": round(time.monotonic() - started, 1),
                  "environment": environment, "built": time.strftime("%Y-%m-%d %H:%M")}
        (staging / BUILD_RECORD).write_text(json.dumps(record))
    if why:
        raise BuildFailed(why, commit.label)
    return directory / made.name


def _wheel_name(path: Path) -> str:
    """'msgpack 1.1.2' from msgpack-1.1.2-cp311-cp311-linux_x86_64.whl."""
    name, version = path.name.split("-")[:2]
    return f"{name} {version}"


def _check_out(commit: Commit, tree: Path) -> None:
    """The tree to build, in a folder of its own: a clone at the commit for a package at the top of
    its repository (its work tree's files when the side is the work tree), the folder's files alone
    for one inside it."""
    if commit.folder:
        try:
            package_trees.export(commit.place, source_tree(commit), tree)
        except UsageError as exc:
            raise BuildFailed(str(exc)) from None
        return
    commands = [["git", "clone", "--quiet", "--shared", "--no-checkout", str(commit.repo), str(tree)],
                ["git", "-C", str(tree), "checkout", "--quiet", "--detach", commit.sha]]
    if commit.work_tree:  # HEAD's history for a build that asks git its version, the work tree's files
        commands.append(["git", "-C", str(tree), "read-tree", "-u", "--reset", commit.work_tree])
    for command in commands:
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildFailed(f"cannot check out {commit.label}: {last_line(done.stderr) or 'git failed'}")


def _build(commit: Commit, python: str, build: Build, out: Path) -> Path:
    """Check out (or export), run the build steps, pip wheel: the wheel in `out`."""
    with tempfile.TemporaryDirectory(prefix="serialbench-build-") as scratch:
        tree = Path(scratch) / "tree"
        _check_out(commit, tree)
        env = dict(os.environ)
        builder = [python]
        isolation = []
        if build.own_environment:  # the commit's declared requirements and the tools, in an environment of its own
            builder = [_tool_environment(tree, python, build, Path(scratch) / "env")]
            env["PATH"] = os.pathsep.join([str(Path(builder[0]).parent), env.get("PATH", "")])
            isolation = ["--no-build-isolation"]
        for step in build.steps:
            done = subprocess.run(step, shell=True, cwd=tree, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise BuildFailed(f"--build-step {step!r} failed: {cause(done.stdout + done.stderr)}")
        done = subprocess.run([*builder, "-m", "pip", "wheel", "--no-deps", "--no-input", "--disable-pip-version-check",
                               *isolation, "--wheel-dir", str(out), str(tree)],
                              cwd=scratch, env=env, capture_output=True, text=True)
        made = sorted(out.glob("*.whl"))
        if done.returncode != 0 or len(made) != 1:
            raise BuildFailed(f"does not build: {cause(done.stdout + done.stderr)}")
        return made[0]


def _tool_environment(tree: Path, python: str, build: Build, env: Path) -> str:
    """A virtual environment holding the commit's build-system.requires, its requirements file
    (--build-requirements) and the --build-with tools."""
    system = {}  # no [build-system]: pip assumes setuptools' legacy backend and these requirements
    if (tree / "pyproject.toml").exists():
        try:
            system = tomllib.loads((tree / "pyproject.toml").read_text()).get("build-system", {})
        except tomllib.TOMLDecodeError as exc:
            raise BuildFailed(f"does not build: pyproject.toml: {exc}") from None
    requires = system.get("requires", ["setuptools>=40.8.0", "wheel"])
    # wheel: what setuptools before 70 asks for when building a wheel (get_requires_for_build_wheel),
    # which pip's isolated build installs and a build without isolation does not ask for.
    if system.get("build-backend", "setuptools").startswith("setuptools"):
        requires = [*requires, "wheel"]
    done = subprocess.run([python, "-m", "venv", str(env)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildFailed(f"cannot make a build environment: {cause(done.stdout + done.stderr)}")
    interpreter = str(env / "bin" / "python")
    wanted = [*requires, *build.tools]
    if build.requirements:
        if not (tree / build.requirements).is_file():
            raise BuildFailed(f"has no {build.requirements} (--build-requirements)")
        wanted += ["-r", str(tree / build.requirements)]
    if wanted:
        done = subprocess.run([interpreter, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               *wanted], capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildFailed(f"cannot install the build tools ({' '.join(wanted)}): {cause(done.stderr)}")
    return interpreter


def environment_fingerprint() -> str:
    """The environment's variables as a build may read them (VOLATILE left out), hashed."""
    kept = sorted((name, value) for name, value in os.environ.items() if not VOLATILE.match(name))
    return hashlib.sha256(json.dumps(kept).encode()).hexdigest()[:16]


def cause(output: str) -> str:
    """The line of pip's (or a build's) output that says why it failed, in the build's own words: the
    last one naming something missing or a compiler's error, else the exception the build raised, else
    the last naming an error; pip's own framing and box drawing left out."""
    lines = [line.strip(" \t│╰─>×║").strip() for line in output.splitlines()]
    lines = [line for line in lines if line and not PIP_NOISE.match(line) and not line.startswith("File \"")]
    missing = [line for line in lines if MISSING.search(line)]
    raised = [line for line in lines if RAISED.match(line)]
    errors = [line for line in lines if re.search(r"error|cannot|failed", line, re.I)]
    found = (missing or raised or errors or lines or ["no output"])[-1]
    return found if len(found) <= 240 else found[:237] + "..."


def built_from(wheel_path: Path) -> str | None:
    """What a wheel of the builds cache was built from, as a side's name says it: 'commit 9f9bdae0',
    'work tree'; None for any other wheel."""
    try:
        wheel_path.relative_to(builds_root())
        record = json.loads((wheel_path.parent / BUILD_RECORD).read_text())
    except (ValueError, OSError):
        return None
    if record.get("work_tree"):
        return "work tree"
    return f"commit {record['commit'][:LABEL_LENGTH]}" if record.get("commit") else None


def between(path: str, name: str, good: str, bad: str) -> list[Commit]:
    """--repo: the commits from GOOD to BAD, checked (a repository, revisions, one package NAME) before any build."""
    where = repository(path)
    if where is None:
        raise UsageError(f"--repo {path} is not a git repository; give a clone of {name} (a work tree or a bare "
                         "repository), or the folder of its package inside one")
    found = first_parent(where, good, bad)
    for end, revision in ((found[0], good), (found[-1], bad)):
        check_package(end, f"{path}@{revision}")
    check_names([found[0], found[-1]], name)
    return found
