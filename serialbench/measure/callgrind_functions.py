"""callgrind's per-function counts, read from its output file, for compare --explain with a count.

The file format is valgrind's (callgrind's manual, "Callgrind Format Specification"): `fn=` opens a
function's block, whose cost lines (a position, then one number per event of the `events:` line,
trailing zeros left out) are its own (exclusive) cost; `calls=` says the next cost line is the
inclusive cost of a call it makes to `cfn=`. Names are compressed: `(id) name` defines an id, `(id)`
reuses it; `cob=` names the object of the next call alone (the caller's object when absent). A
function is its object (`ob=`, the executable or shared library) and its name, as callgrind_annotate
reports it; its depths of recursion (`name'2`) are one function. Its inclusive cost is its own plus
what its calls to other functions cost (a call to itself is already in its own cost).
"""

from __future__ import annotations

import os
import re
from collections import defaultdict

RECURSION = re.compile(r"'\d+$")  # callgrind's mark of a recursion depth: _PyEval_EvalFrameDefault'2
EXTENSION_TAG = re.compile(r"\.cpython-[^.]+")  # _cmsgpack.cpython-311-x86_64-linux-gnu.so -> _cmsgpack.so
NAMED = ("ob", "cob", "fl", "fi", "fe", "cfl", "cfi", "fn", "cfn")
SPACE = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfl": "fl", "cfi": "fl", "fn": "fn",
         "cfn": "fn"}


def _name(spec: str, space: dict[str, str]) -> str:
    """`(id) name` (defines id), `(id)` (reuses it), or a plain name."""
    if spec.startswith("("):
        ident, _, name = spec.partition(")")
        name = name.strip()
        if name:
            space[ident] = name
        return space.get(ident, name)
    return spec


def read(path: str) -> tuple[list[str], dict[tuple[str, str], tuple[list[int], list[int]]]]:
    """The events, and per function (object's file name, function name): its own and its inclusive
    cost, one number per event."""
    events: list[str] = []
    names: dict[str, dict[str, str]] = {space: {} for space in ("ob", "fl", "fn")}
    own: dict[tuple[str, str], list[int]] = defaultdict(list)
    called: dict[tuple[str, str], list[int]] = defaultdict(list)
    current = {"ob": "", "fn": "", "cob": "", "cfn": ""}
    in_call = False
    with open(path) as profile:
        for line in profile:
            if not line or line[0] == "\n":
                continue
            if line[0].isdigit() or line[0] in "+-*":
                costs = [int(word) for word in line.split()[1:]]
                key = (current["ob"], current["fn"])
                if in_call:
                    target = (current["cob"] or current["ob"], current["cfn"])
                    if target != key:
                        _add(called[key], costs)
                    in_call, current["cob"] = False, ""  # cob= names the object of the next call only
                else:
                    _add(own[key], costs)
                continue
            field, _, value = line.rstrip("\n").partition("=")
            if field in NAMED:
                name = _name(value, names[SPACE[field]])
                if field == "fn":
                    current["fn"], current["cob"] = name, ""
                elif field == "ob":
                    current["ob"] = name
                elif field in ("cob", "cfn"):
                    current[field] = name
            elif field == "calls":
                in_call = True
            elif line.startswith("events:"):
                events = line.split()[1:]
    functions: dict[tuple[str, str], tuple[list[int], list[int]]] = {}
    for key in sorted(own.keys() | called.keys()):
        mine = _padded(own[key], len(events))
        inclusive = [a + b for a, b in zip(mine, _padded(called[key], len(events)))]
        where = (EXTENSION_TAG.sub("", os.path.basename(key[0])), RECURSION.sub("", key[1]))
        if where in functions:  # the same function at another depth of recursion: its own costs add up,
            # and the outermost call's inclusive cost holds the inner ones'
            before = functions[where]
            mine = [a + b for a, b in zip(before[0], mine)]
            inclusive = max(before[1], inclusive)
        functions[where] = (mine, inclusive)
    return events, functions


def _add(total: list[int], costs: list[int]) -> None:
    if len(total) < len(costs):
        total.extend([0] * (len(costs) - len(total)))
    for index, cost in enumerate(costs):
        total[index] += cost


def _padded(costs: list[int], size: int) -> list[int]:
    return costs + [0] * (size - len(costs))
