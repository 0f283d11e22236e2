"""Each side's check before timing: it makes its selection once, in one small process of its own
environment (inside/side_check.py), as its revision sees it, and prepares every selected case once
at the smallest tier, which imports the cases' libraries and generated code: a protobuf too old for
the gencode is refused here, with one line per cause, not in the first round.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from collections.abc import Callable, Sequence
from importlib import metadata

from serialbench.catalog.inputs import INPUT_KINDS
from serialbench.core.errors import UsageError
from serialbench.core.formatting import last_line
from serialbench.sides import environments
from serialbench.sides.building import sides_with_overlays
from serialbench.sides.naming import name_sides
from serialbench.sides.sides import Checked, Side

SHOWN = 3  # benchmarks (or FORMAT/IMPL groups) named on a refusal line before "and N more"
ERROR_PREFIX = "serialbench: error: "


def check_side(side: Side, filters: dict, list_only: bool = False) -> Checked:
    """The side's selection from the user's filters (options.filters), made once, in the side's own
    environment, and (unless list_only) each selected case prepared once (inside/side_check.py)."""
    config = {"filters": filters, "case_dirs": list(side.case_dirs), "payloads": list(side.payloads),
              "distributions": [installed.split()[0] for installed in side.installed], "list_only": list_only}
    argv, env = side.command("side_check", config)
    done = subprocess.run(argv, cwd=side.root, env=env, capture_output=True, text=True)
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        why = last_line(done.stderr).removeprefix(ERROR_PREFIX) or f"the check exited with status {done.returncode}"
        return Checked(side, [], why=why)
    if answer.get("missing"):
        return Checked(side, [], why=missing_library(side, answer["missing"]))
    if answer.get("libraries"):
        side = dataclasses.replace(side, libraries=tuple(answer["libraries"]))
    return Checked(side, answer["listed"], answer.get("failed", {}), answer["why"], answer.get("versions", {}),
                   answer["left_out"], answer.get("python", ""))


def missing_library(side: Side, module: str) -> str:
    """Why a side whose interpreter lacks a library cannot run, and what to do: the distribution
    that provides the module (at this environment's version), installed there; or a bare interpreter,
    for which serialbench makes an environment (sides/environments.py)."""
    top = module.split(".")[0]
    distribution = (metadata.packages_distributions().get(top) or [top])[0]
    requirement = environments.pinned([distribution])[0]
    return (f"its interpreter has no module {module!r}: install {distribution} there ({side.python} -m pip install "
            f"{requirement}), or give a bare interpreter (a version such as 3.13, or its path) and serialbench "
            "makes an environment with what the selection needs")


def check_sides(sides: Sequence[Side], filters: dict, say: Callable[[str], None]) -> list[Checked]:
    """Every side's selection made and checked, its refusals said (one line per cause), and named."""
    checked = []
    for side in sides:
        item = check_side(side, filters)
        if item.listed and item.left_out:
            say(f"{side.label}: {'; '.join(item.left_out)}")
        for line in refusal_lines(side.label, item.failed, item.listed):
            say(line)
        checked.append(item)
    return name_sides(by_interpreter(checked))


def by_interpreter(checked: Sequence[Checked]) -> list[Checked]:
    """Where an interpreter was given for a side, every side named by its interpreter too: the side
    that runs this process's is 'python 3.11.7' beside 'python 3.13.0', not its commit alone."""
    if not any(item.side.python_version for item in checked):
        return list(checked)
    return [dataclasses.replace(item, side=dataclasses.replace(item.side, python_version=item.python))
            if item.python and not item.side.python_version else item for item in checked]


def refusal_lines(label: str, failed: dict[str, str], listed: Sequence[str]) -> list[str]:
    """One line per distinct cause: how many benchmarks it hits, a few of them, the cause."""
    by_cause: dict[str, list[str]] = {}
    for name, cause in failed.items():
        by_cause.setdefault(short_cause(cause), []).append(name)
    return [f"{label} cannot run {len(names)} of {len(listed)} selected benchmarks ({few(names, listed)}): {cause}"
            for cause, names in by_cause.items()]


def short_cause(cause: str, limit: int = 240) -> str:
    """A cause without the file paths that tracebacks put in parentheses, nor a closing 'See ...'
    pointer (protobuf's to its version guarantees), at most `limit` characters."""
    cause = re.sub(r" \((?:/|[A-Za-z]:\\)[^)]*\)", "", cause)
    cause = re.sub(r"(?<=\.) See \S.*$", "", cause)
    return cause if len(cause) <= limit else cause[:limit - 3] + "..."


def few(names: Sequence[str], listed: Sequence[str]) -> str:
    """'tfserving-grpc/direct/*, msgpack/packb/png/1K and 3 more': a whole FORMAT/IMPL as one word."""
    hit = set(names)
    items: list[str] = []
    for name in listed:
        if name not in hit:
            continue
        group = name.split("/")[0] + "/" + name.split("/")[1]
        whole = all(other in hit for other in listed if other.startswith(group + "/"))
        item = f"{group}/*" if whole else name
        if item not in items:
            items.append(item)
    shown = ", ".join(items[:SHOWN])
    return shown + (f" and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def common_benchmarks(checked: Sequence[Checked], say: Callable[[str], None]) -> list[str]:
    """The benchmarks every side selects and can run, in the first side's order; a side that
    selects nothing is refused in one line, and what is selected on one side only is said."""
    for item in checked:
        if not item.listed:
            raise UsageError(f"{item.side.label} ({item.side.description}, {item.side.python}) "
                             f"cannot run the selection: {item.why}")
    everywhere = set.intersection(*(set(item.listed) for item in checked))
    for item in checked:
        elsewhere = [name for name in item.listed if name not in everywhere]
        if elsewhere:
            say(f"only in {item.side.label}, not compared: {', '.join(elsewhere)}")
    refused = set().union(*(item.failed for item in checked))
    common = [name for name in checked[0].listed if name in everywhere and name not in refused]
    if not common:
        raise UsageError("no selected benchmark runs on every side" + ("; the causes are above" if refused else ""))
    if refused & everywhere:
        say(f"left out before timing: {len(refused & everywhere)} benchmarks; {len(common)} go on")
    return common


def benchmark_side(tree: Side, label: str, specs: list[str], build, benchmark: str, say) -> tuple[Side | None, str]:
    """A side of one benchmark: the tree with the SPECs overlaid (sides/building.py), checked for that
    benchmark. (the side, "") when it runs it; (None, why) when it cannot be installed or cannot run it."""
    made, left_out = sides_with_overlays(tree, [label], [specs], say, build)
    _, _, kind, tier = benchmark.split("/")
    # A payload's benchmark needs no --input nor --tier: the side carries the payload.
    filters = {"patterns": [benchmark], "tiers": tier if kind in INPUT_KINDS else None,
               "inputs": kind if kind in INPUT_KINDS else None}
    checked = check_sides(made, filters, say) if made else []
    if checked and benchmark in checked[0].runnable:
        return checked[0].side, ""
    if checked:
        why = checked[0].failed.get(benchmark) or checked[0].why or "it does not select the benchmark"
        why = f"does not run it: {short_cause(why)}"
        say(f"{label}: cannot run {benchmark} ({why})")
        return None, why
    return None, left_out.get(label, "cannot be installed")
