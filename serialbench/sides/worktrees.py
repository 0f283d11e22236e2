"""The revisions of a comparison: temporary git worktrees of the repository that holds the cases.

A revision is checked out at a path of the same length as the other's (the trees differ in nothing
but their code); None stands for a snapshot of the work tree with its uncommitted changes, so that
edits made while a comparison runs do not leak into it.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from serialbench.catalog.discovery import PACKAGE_DIR, source_root
from serialbench.core.errors import UsageError
from serialbench.core.formatting import last_line
from serialbench.sides.sides import Side


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"git {' '.join(args)}: {last_line(done.stderr) or 'failed'}")
    return done.stdout


def toplevel(path: Path) -> Path:
    done = subprocess.run(["git", "-C", str(path), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"{path} is not in a git repository; compare checks out revisions of the repository "
                         "holding the cases")
    return Path(done.stdout.strip()).resolve()


def project_repository() -> Path | None:
    """serialbench's own git checkout, or None when it runs from an installed package."""
    root = source_root()
    if root is None:
        return None
    try:
        return toplevel(root)
    except UsageError:  # a source tree without git (an unpacked sdist)
        return None


@functools.cache
def installed_root() -> Path:
    """A side's root without git: a scratch folder holding only a copy of the installed serialbench.
    A side's workers get its root first on PYTHONPATH; site-packages itself would hand a side of
    another interpreter (--base-python/--head-python, the run's --python) this interpreter's numpy
    and every other compiled library, where that interpreter lacks them or has its own. A copy, not
    a link: a worker checks that it imported serialbench from its side's root."""
    root = Path(tempfile.mkdtemp(prefix="serialbench-installed-"))
    shutil.copytree(PACKAGE_DIR, root / "serialbench", ignore=shutil.ignore_patterns("__pycache__"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def resolve(repo: Path, revision: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"{revision!r} is not a revision of {repo}; give a commit, branch or tag "
                         "(e.g. HEAD~1, main)")
    return done.stdout.strip()


def _add_worktree(repo: Path, path: Path, commit: str) -> None:
    git(repo, "worktree", "add", "--detach", "--quiet", str(path), commit)


def _copy_uncommitted(repo: Path, snapshot: Path) -> bool:
    """Copy the work tree's uncommitted changes (modified, deleted, untracked) into a fresh worktree.

    Returns whether tracked files differ from HEAD (serialbench's meaning of dirty).
    """
    # Against HEAD, not the index: staged changes (a `git mv`, a `git add`) are uncommitted too.
    tracked_changed = git(repo, "diff", "--name-only", "--no-renames", "-z", "HEAD")
    untracked = git(repo, "ls-files", "-z", "--others", "--exclude-standard")
    for relative in filter(None, (tracked_changed + "\0" + untracked).split("\0")):
        if relative.startswith("results/"):
            continue  # result files are data, not code
        source, target = repo / relative, snapshot / relative
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif not source.exists() and target.exists():
            target.unlink()
    return bool(tracked_changed.strip("\0"))


def cases_repository(case_dirs: Sequence[str] = ()) -> Path:
    """The repository whose revisions are compared: the first --cases DIR's, else serialbench's own."""
    if case_dirs:
        return toplevel(Path(case_dirs[0]))
    project = project_repository()
    if project is None:
        raise UsageError(f"comparing revisions needs a git checkout of the cases, and this serialbench is installed "
                         f"({PACKAGE_DIR}): clone serialbench, give --cases DIR in a git repository, or compare "
                         "environments (--base-with/--head-with SPEC, --base-python/--head-python PY)")
    return project


@contextlib.contextmanager
def checkout(revisions: Sequence[str | None], labels: Sequence[str],
             case_dirs: Sequence[str] = ()) -> Iterator[list[Side]]:
    """Temporary worktrees of the revisions (None: a snapshot of the work tree), removed on the way out.

    The revisions are of the repository holding the cases: serialbench's own, or the repository of
    the first --cases DIR when that lies elsewhere (then serialbench itself runs from here).
    """
    repo = cases_repository(case_dirs)
    own = repo == project_repository()
    commits = [resolve(repo, revision or "HEAD") for revision in revisions]
    scratch = Path(tempfile.mkdtemp(prefix="serialbench-compare-"))
    added: list[Path] = []
    try:
        sides = []
        for index, (label, revision, commit) in enumerate(zip(labels, revisions, commits)):
            path = scratch / f"tree-{index:02d}"  # equal lengths: the trees differ in nothing but their code
            _add_worktree(repo, path, commit)
            added.append(path)
            dirty = _copy_uncommitted(repo, path) if revision is None else False
            mapped = tuple(str(path / Path(d).resolve().relative_to(repo)) if _inside(d, repo)
                           else str(Path(d).resolve()) for d in case_dirs)
            sides.append(Side(label, path if own else (source_root() or installed_root()), mapped,
                              revision=revision or "work tree",
                              commit=commit, dirty=dirty, own_serialbench=own))
        yield sides
    finally:
        for path in added:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(path)], capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)
        subprocess.run(["git", "-C", str(repo), "worktree", "prune"], capture_output=True)


def _inside(directory: str, repo: Path) -> bool:
    try:
        Path(directory).resolve().relative_to(repo)
    except ValueError:
        return False
    return True


@contextlib.contextmanager
def work_tree(case_dirs: Sequence[str] = ()) -> Iterator[Side]:
    """This serialbench as it is now, for comparisons of environments: a snapshot of its work tree
    when it is a git checkout (so edits made meanwhile do not leak in), else the installed files.
    Case directories are used where they are, whatever repository holds them."""
    dirs = tuple(str(Path(d).resolve()) for d in case_dirs)
    if project_repository() is None:
        yield Side("work tree", source_root() or installed_root(), dirs)
        return
    with checkout([None], ["work tree"]) as (snapshot,):
        yield dataclasses.replace(snapshot, case_dirs=dirs, revision="")
