"""cache list's table: each library overlay with its size, last use, interpreter, what it holds."""

from __future__ import annotations

import time

from serialbench.core.formatting import format_bytes
from serialbench.sides import overlays
from serialbench.views import table
from serialbench.views.table import Table, column


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


def listing(cached: list[overlays.Cached], now: float | None = None) -> str:
    now = time.time() if now is None else now
    if not cached:
        return f"no overlays in {overlays.cache_root()}"
    columns = [
        column("overlay", "overlay", lambda item: item.directory.name, left=True),
        column("size", "size", lambda item: format_bytes(item.size), lambda item: item.size),
        column("last_used", "last used", lambda item: age(now - item.last_used), lambda item: item.last_used),
        column("python", "python", lambda item: item.python, left=True),
        column("installed", "installed", describe, left=True),
        column("specs", "specs", lambda item: " ".join(item.specs), lambda item: list(item.specs), left=True),
    ]
    total = sum(item.size for item in cached)
    return "\n".join([*table.text(Table.of(columns, list(reversed(cached)))), "",  # most recently used first
                      f"{len(cached)} overlays, {format_bytes(total)}, in {overlays.cache_root()}; "
                      "'cache prune --keep-days N' or '--max-size MB' removes the least recently used"])
