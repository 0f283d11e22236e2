"""The project's git commit and dirty flag, recorded with every result."""

from __future__ import annotations

import subprocess
from pathlib import Path


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def commit_and_dirty(root: Path) -> tuple[str, bool]:
    """(full commit hash or 'unknown', whether tracked files differ from it)."""
    commit = _git(root, "rev-parse", "HEAD") or "unknown"
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return commit, bool(status)
