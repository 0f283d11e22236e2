"""Before any timing: what does this side select, can it run each benchmark, and which versions does it import?

Started by sides/checks.py in a side's process (inside/start.py) in a side's environment (its
overlay and its serialbench first on PYTHONPATH), like the timing worker, whose side API (side_api.py)
it shares. It makes the side's selection once, from the user's filters, as the side's own
`list` would; then, unless told to list only, it prepares each selected case and input once at the
smallest tier: that imports the case's libraries and its generated code (where a protobuf too old
or too new for the gencode fails), builds the op and checks the round trip, as the first round
would, in milliseconds. It prints one JSON line: {"listed": [names], "why": why it lists nothing,
"left_out": [lines on cases whose libraries are missing], "failed": {name: cause}, "libraries": [the
selected cases' distributions], "versions": {distribution: version}, "python": version}; a side whose
interpreter lacks a library its serialbench imports answers {"missing": module} with the refusal.
"""

from __future__ import annotations

import json
import os
import sys

from . import side_api
from . import worker as timing_worker


def cause(exc: BaseException, name: str) -> str:
    """The error's first line without the benchmark's name that CaseFailed puts in front."""
    text = f"{type(exc).__name__}: {exc}".splitlines()[0]
    if type(exc).__name__ in ("CaseFailed", "SideRefused"):  # their text names what failed
        text = str(exc).splitlines()[0]
    prefix = name.rsplit("/", 1)[0] + "/"
    if text.startswith(prefix):  # "fmt/impl/input/1K: ImportError: ..." -> "ImportError: ..."
        text = text.split(": ", 1)[-1]
    return text


def select(api, config) -> tuple[list[str], list[str]]:
    """The side's selection from the user's filters, and its lines on cases left out."""
    left_out: list[str] = []
    filters = config["filters"]
    benchmarks, _ = api.select(config["case_dirs"], filters["patterns"], filters["tiers"], filters["inputs"],
                               config["payloads"], left_out.append)
    return [bench.name for bench in benchmarks], [line for line in left_out if "is not installed" in line]


def check(names, worker) -> tuple[dict[str, str], list[str]]:
    """The cause of each benchmark that fails to prepare, and the selected cases' distributions.
    A payload's benchmark is prepared at its own size: it has no other."""
    api = worker.api
    smallest = list(api.TIERS)[0]
    failed: dict[str, str] = {}
    libraries: dict[str, None] = {}
    tried: dict[str, str | None] = {}  # FORMAT/IMPL/INPUT -> its cause, or None when it prepares
    for name in names:
        group = name.rsplit("/", 1)[0]
        libraries.update(dict.fromkeys(getattr(worker.find(name)[0].case, "libraries", ())))
        if group not in tried:
            try:
                kind = name.split("/")[2]
                bench, cases = worker.find(f"{group}/{smallest}" if kind in api.INPUT_KINDS else name)
                api.prepare(bench, cases, True, None)
                tried[group] = None
            except Exception as exc:  # noqa: BLE001 - every failure is a cause to report, not fatal
                tried[group] = cause(exc, name)
        if tried[group] is not None:
            failed[name] = tried[group]
    return failed, list(libraries)


def answer(config) -> dict:
    try:
        api = side_api.load()
    except side_api.MissingLibrary as exc:
        return {"listed": [], "why": str(exc), "left_out": [], "missing": exc.module}
    except side_api.SideRefused as exc:
        return {"listed": [], "why": f"it cannot be timed: {exc}", "left_out": []}
    try:
        names, left_out = select(api, config)
    except api.UsageError as exc:  # a selection this side refuses (a pattern that matches none of its names)
        return {"listed": [], "why": str(exc), "left_out": []}
    found = {"listed": names, "why": "", "left_out": left_out, "failed": {}, "libraries": []}
    if names and not config["list_only"]:
        worker = timing_worker.Worker(config["case_dirs"], payloads=config["payloads"], api=api)
        found["failed"], found["libraries"] = check(names, worker)
    found["versions"] = timing_worker.distribution_versions(dict.fromkeys([*config["distributions"],
                                                                           *found["libraries"]]))
    found["python"] = sys.version.split()[0]
    return found


def main(config: dict) -> None:
    reply = os.fdopen(os.dup(1), "w")  # what a case prints goes to stderr; the answer to stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    reply.write(json.dumps(answer(config)) + "\n")
    reply.flush()
    sys.stderr.flush()
    os._exit(0)  # no teardown (TensorFlow's takes a third of a second)

