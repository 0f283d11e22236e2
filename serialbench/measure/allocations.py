"""compare --memory: B/op and allocs/op of each side's benchmarks, counted in the side's own
processes (inside/allocations_worker.py, with the counter of inside/allocations.py), one per side and
FORMAT/IMPL, several at once."""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
from collections.abc import Sequence

from serialbench.core.formatting import last_line
from serialbench.sides.sides import Side

WORKER_TIMEOUT_S = 900


def count_sides(sides, names, workers: int, say) -> list[dict[str, dict]]:
    """compare --memory: per side, {name: {"bytes_per_op", "allocs_per_op"} or {"error"}}, from one
    worker per side and FORMAT/IMPL (a fresh interpreter, as the memory pass), several at once."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name.rsplit("/", 2)[0], []).append(name)
    jobs = [(index, side, group) for group in groups.values() for index, side in enumerate(sides)]
    found: list[dict[str, dict]] = [{} for _ in sides]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        for done, ((index, side, group), entries) in enumerate(
                zip(jobs, pool.map(lambda job: _run_worker(job[1], job[2]), jobs)), start=1):
            found[index].update(entries)
            say(f"[{done}/{len(jobs)}] {side.label} {group[0].rsplit('/', 2)[0]}")
    return found


def _run_worker(side: Side, names: list[str]) -> dict[str, dict]:
    argv, env = side.command("allocations_worker", {"names": names, "case_dirs": list(side.case_dirs),
                                                    "payloads": list(side.payloads)})
    printed, reason, _ = json_lines(argv, env, side.root)
    entries = {entry.pop("name"): entry for entry in printed if "name" in entry}
    return {name: entries.get(name, {"error": reason}) for name in names}


def json_lines(argv: Sequence[str], env: dict | None = None, cwd: str | None = None
               ) -> tuple[list[dict], str, bool]:
    """Run a worker that answers one JSON object a line (this module's, and the memory pass's): the objects
    it printed, what its stderr last said (or its exit status, or that it did not answer within
    WORKER_TIMEOUT_S), and whether it exited 0."""
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return [], f"no answer within {WORKER_TIMEOUT_S} s", False
    entries = []
    for line in done.stdout.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a case that prints: not ours to parse
        if isinstance(entry, dict):
            entries.append(entry)
    return entries, last_line(done.stderr) or f"exit status {done.returncode}", done.returncode == 0
