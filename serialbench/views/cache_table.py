"""cache list's table: each library overlay, commit's build and interpreter's environment, with its
size, last use, interpreter, what it holds."""

from __future__ import annotations

import time

from serialbench.core.formatting import format_bytes
from serialbench.sides import overlays
from serialbench.views.table import Document, Table, column


def describe(item: overlays.Cached) -> str:
    if not item.complete:
        return "an install cut short (no manifest)"
    return ", ".join(item.installed) or " ".join(item.specs)


def age(seconds: float) -> str:
    if seconds < 3600:
        return f"{max(seconds, 0) / 60:.0f} min ago"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} days ago"


def counted(cached: list[overlays.Cached]) -> str:
    """'4 overlays', '3 overlays, 1 environment': how many of each kind, overlays first."""
    kinds = [item.kind for item in cached]
    order = ["overlay", "build", "environment"]
    counts = {kind: kinds.count(kind) for kind in order if kind in kinds} or {"overlay": 0}
    return ", ".join(f"{n} {kind}{'' if n == 1 and kind != 'overlay' else 's'}" for kind, n in counts.items())


def where(cached: list[overlays.Cached]):
    """The overlays' folder, or (when builds or environments are among them) the cache's own."""
    root = overlays.cache_root()
    return root if all(item.kind == "overlay" for item in cached) else root.parent


def listing(cached: list[overlays.Cached], now: float | None = None) -> Document:
    """The table, most recently used first, and what it holds in all; or a line that says it is empty."""
    now = time.time() if now is None else now
    if not cached:
        return Document([], head=[f"no overlays, builds or environments in {overlays.cache_root().parent}"])
    columns = [
        column("kind", "kind", lambda item: item.kind, left=True),
        column("directory", "directory", lambda item: item.directory.name, left=True),
        column("size", "size", lambda item: format_bytes(item.size), lambda item: item.size),
        column("last_used", "last used", lambda item: age(now - item.last_used), lambda item: item.last_used),
        column("python", "python", lambda item: item.python, left=True),
        column("installed", "installed", describe, left=True),
        column("specs", "specs", lambda item: " ".join(item.specs), lambda item: list(item.specs), left=True),
    ]
    total = sum(item.size for item in cached)
    return Document([Table.of(columns, list(reversed(cached)))], notes=[
        f"{counted(cached)}, {format_bytes(total)}, in {where(cached)}; "
        "'cache prune --keep-days N' or '--max-size MB' removes the least recently used"])
