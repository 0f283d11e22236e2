"""The revisions of a comparison: temporary git worktrees of the repository that holds the cases.

A revision is checked out at a path of the same length as the other's (the trees differ in nothing
but their code); None stands for a snapshot of the work tree with its uncommitted changes, so that
edits made while a comparison runs do not leak into it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from serialbench.case import PROJECT_ROOT
from serialbench.errors import UsageError
from serialbench.sides import Side


def last_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


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
    changed = git(repo, "ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard")
    tracked_changed = git(repo, "ls-files", "-z", "--modified", "--deleted")
    for relative in filter(None, changed.split("\0")):
        if relative.startswith("results/"):
            continue  # result files are data, not code
        source, target = repo / relative, snapshot / relative
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif not source.exists() and target.exists():
            target.unlink()
    return bool(tracked_changed.strip("\0"))


@contextlib.contextmanager
def checkout(revisions: Sequence[str | None], labels: Sequence[str],
             case_dirs: Sequence[str] = ()) -> Iterator[list[Side]]:
    """Temporary worktrees of the revisions (None: a snapshot of the work tree), removed on the way out.

    The revisions are of the repository holding the cases: serialbench's own, or the repository of
    the first --cases DIR when that lies elsewhere (then serialbench itself runs from here).
    """
    project = toplevel(PROJECT_ROOT)
    repo = toplevel(Path(case_dirs[0])) if case_dirs else project
    own = repo == project
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
            sides.append(Side(label, path if own else PROJECT_ROOT, mapped, revision=revision or "work tree",
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
    try:
        toplevel(PROJECT_ROOT)
    except UsageError:
        yield Side("work tree", PROJECT_ROOT, dirs)
        return
    with checkout([None], ["work tree"]) as (snapshot,):
        yield dataclasses.replace(snapshot, case_dirs=dirs, revision="")
