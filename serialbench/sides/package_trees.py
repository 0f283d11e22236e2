"""Where a library's package sits in its git repository, and its folder as one tree: at a commit, or
as the work tree holds it now.

A package need not sit at the top of its repository: KServe's SDK is `python/kserve`, Triton's
client `src/python/library`. A side names it by a folder inside a clone (`../kserve/python/kserve@v0.20.0`)
or, for any repository, a bare one included, by pip's suffix (`../kserve.git@v0.20.0#subdirectory=python/kserve`).
Its folder is a git tree object: `COMMIT:FOLDER` for a commit, and for the work tree a tree written
from a private index (`git add -A` of the folder, as `git stash create` writes objects without
touching the user's index or files), so that uncommitted changes are built exactly as any commit is,
keyed by their content. Exporting that tree (`git archive`) reads only its own blobs: a repository
missing large files elsewhere still builds its package.
"""

from __future__ import annotations

import io
import os
import posixpath
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from serialbench.core.errors import UsageError
from serialbench.core.formatting import last_line

SUFFIX = "#subdirectory="  # pip's, in `git+URL@REV#subdirectory=DIR`
WORK_TREE = "{worktree}"  # the revision that names the work tree, uncommitted changes included
PACKAGE_FILES = ("pyproject.toml", "setup.py")  # what makes a folder a package pip builds


@dataclass(frozen=True)
class Place:
    """A repository (its top level, or the bare repository) and the package's folder in it ('' at the top)."""

    repo: Path
    folder: str = ""

    def spec(self, revision: str) -> str:
        return f"{self.repo}@{revision}" + (f"{SUFFIX}{self.folder}" if self.folder else "")


def without_suffix(text: str) -> tuple[str, str]:
    """('PATH@REV', 'python/kserve') from 'PATH@REV#subdirectory=python/kserve'; ('PATH@REV', '') without it."""
    head, found, folder = text.partition(SUFFIX)
    return (head, folder.strip("/")) if found else (text, "")


def _git(where: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, env=env)


def place(path: str, folder: str = "") -> Place | None:
    """The Place a directory names: the repository holding it (a work tree's top level, or a bare
    repository) and the folder `path` is inside it, joined with `folder` (the #subdirectory= suffix).
    None when `path` is no git repository; a folder that leaves the repository is a one-line error."""
    where = Path(path).expanduser()
    if not where.is_dir():
        return None
    done = _git(where, "rev-parse", "--is-bare-repository")
    if done.returncode != 0:
        return None
    if done.stdout.strip() == "true":  # a bare repository has no top level to ask for
        repo, inside = where.resolve(), ""
    else:
        top = _git(where, "rev-parse", "--show-toplevel")
        if top.returncode != 0:  # inside a repository's .git folder
            return None
        repo = Path(top.stdout.strip()).resolve()
        inside = where.resolve().relative_to(repo).as_posix()
    joined = posixpath.normpath(posixpath.join(inside, folder)) if folder else inside
    joined = "" if joined in (".", "") else joined
    if joined.startswith("../") or joined == ".." or posixpath.isabs(joined):
        raise UsageError(f"{path}{SUFFIX}{folder}: the folder {joined} is outside the repository {repo}; give a "
                         "folder inside it (e.g. #subdirectory=python/kserve)")
    return Place(repo, joined)


def folder_trees(place_: Place, shas: list[str]) -> list[str | None]:
    """The tree of the package's folder at each commit (None where a commit has no such folder), in one
    git call: `SHA:FOLDER` names it, `SHA:` the commit's whole tree."""
    names = "".join(f"{sha}:{place_.folder}\n" for sha in shas)
    done = subprocess.run(["git", "-C", str(place_.repo), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
                          input=names, capture_output=True, text=True)
    found = [line.split() for line in done.stdout.splitlines()]  # '<name> missing' for a path not there
    return [parts[0] if len(parts) == 2 and parts[1] == "tree" else None for parts in found]


def folder_tree(place_: Place, sha: str) -> str | None:
    return folder_trees(place_, [sha])[0]


def has_package(place_: Place, tree: str) -> bool:
    """Whether a folder's tree holds what pip builds (pyproject.toml or setup.py)."""
    return any(_git(place_.repo, "cat-file", "-e", f"{tree}:{name}").returncode == 0 for name in PACKAGE_FILES)


def work_tree_tree(place_: Place) -> str:
    """The package's folder as the work tree holds it now (tracked files with their uncommitted
    changes, untracked files git does not ignore) as a tree object of the repository."""
    if _git(place_.repo, "rev-parse", "--is-bare-repository").stdout.strip() == "true":
        raise UsageError(f"{place_.repo} is a bare repository: it has no work tree to build; give a clone with "
                         "a work tree, or a revision (PATH@REV)")
    # --missing-ok: a clone without some large files elsewhere (a sparse or partial one) still writes
    # its tree; only the folder's own blobs are ever read.
    with tempfile.TemporaryDirectory(prefix="serialbench-index-") as scratch:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(scratch) / "index")}
        has_head = _git(place_.repo, "rev-parse", "--verify", "--quiet", "HEAD").returncode == 0
        steps = ([["read-tree", "HEAD"]] if has_head else []) + [["add", "-A", "--", place_.folder or "."],
                                                                  ["write-tree", "--missing-ok"]]
        for step in steps:
            done = _git(place_.repo, *step, env=env)
            if done.returncode != 0:
                raise UsageError(f"cannot read the work tree of {place_.repo}: git {step[0]}: "
                                 f"{last_line(done.stderr) or 'failed'}")
        top = done.stdout.strip()
    if not place_.folder:
        return top
    found = _git(place_.repo, "rev-parse", "--verify", "--quiet", f"{top}:{place_.folder}")
    if found.returncode != 0:
        raise UsageError(f"{place_.repo / place_.folder} holds no file git tracks or would add; give the folder of "
                         "the package")
    return found.stdout.strip()


def export(place_: Place, tree: str, into: Path) -> None:
    """Write the files of a tree into an empty folder: only its own blobs are read."""
    done = subprocess.run(["git", "-C", str(place_.repo), "archive", "--format=tar", tree], capture_output=True)
    if done.returncode != 0:
        raise UsageError(f"cannot export {tree[:12]} of {place_.repo}: "
                         f"{last_line(done.stderr.decode(errors='replace')) or 'git archive failed'}")
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        archive.extractall(into, filter="data")
