"""The multiple of the memcpy floor taken two ways in one process, round by round (docs/reference/run.md,
"Why the floor alternates with each benchmark"): the floor timed as a benchmark of its own elsewhere
in the round (`sep`), and the floor's values alternated with the benchmark's, milliseconds apart,
with REWARM_CALLS untimed calls before each value (`alt`, the run's way since issue 34). Prints, per
tier, the median over the benchmarks of the spread (standard deviation of the log) of the round's
multiple over the rounds, each way, and the op's own time alternated against alone.

    python results/probe_floor_alternation.py 8 'triton-binary/[jz]*' 'tfserving-grpc/direct' \\
        'kserve-grpc/raw' 'msgpack/packb' 'tfserving-rest/orjson-numpy'

(run from the repository's root; 8 rounds of that selection took 7 minutes on a loaded VM)
"""

import collections
import dataclasses
import os
import random
import sys

import numpy as np

from serialbench.catalog.registry import select
from serialbench.measure import schedule, timeloop
from serialbench.measure.worktrees import work_tree

VALUES = 20


def floor_of(name: str) -> str:
    _, _, kind, tier = name.split("/")
    return f"baseline/tobytes/{kind}/{tier}"


def main(rounds: int, patterns: list[str]) -> None:
    names = [bench.name for bench in select((), patterns, floor=True)[0]]
    loops: dict[str, int] = {}
    sep, alt = collections.defaultdict(dict), collections.defaultdict(dict)
    rng = random.Random(2)
    with work_tree() as tree:
        side = dataclasses.replace(tree, label="A")
        for round_index in range(rounds):
            order = [(name, way) for name in names
                     for way in (("sep",) if name.startswith("baseline/tobytes") else ("sep", "alt"))]
            rng.shuffle(order)
            cpus = sorted(os.sched_getaffinity(0))
            process = schedule.Process(side, cpus[round_index % len(cpus)])
            try:
                for name, way in order:
                    answer = process.ask({"do": "prepare", "name": name, "loops": loops.get(name, 0),
                                          "min_time": schedule.MIN_TIME, "check": False})
                    loops.setdefault(name, answer["loops"])
                    if way == "sep":
                        values = process.ask({"do": "cycles", "count": VALUES, "slots": [0],
                                              "warm": timeloop.WARM_UP_SECONDS})["values"]
                        sep[name][round_index] = np.median(values[0])
                    else:
                        floor = floor_of(name)
                        answer = process.ask({"do": "prepare", "name": floor, "loops": loops.get(floor, 0),
                                              "min_time": schedule.MIN_TIME, "check": False, "slot": 1})
                        loops.setdefault(floor, answer["loops"])
                        own, other = process.ask({"do": "cycles", "count": VALUES, "slots": [0, 1],
                                                  "warm": timeloop.WARM_UP_SECONDS,
                                                  "rewarm_calls": timeloop.REWARM_CALLS})["values"]
                        alt[name][round_index] = (np.median(own), np.median(np.log(np.array(own) / np.array(other))))
                    process.ask({"do": "release"})
            finally:
                process.close()
            print(f"round {round_index + 1} of {rounds}", file=sys.stderr, flush=True)
    spreads = collections.defaultdict(lambda: collections.defaultdict(list))
    for name, by_round in alt.items():
        tier = name.rsplit("/", 1)[1]
        floor = sep[floor_of(name)]
        separate = [np.log(sep[name][r] / floor[r]) for r in by_round if r in floor and r in sep[name]]
        spreads[tier]["sep"].append(np.std(separate, ddof=1))
        spreads[tier]["alt"].append(np.std([ratio for _, ratio in by_round.values()], ddof=1))
        spreads[tier]["alt/alone"].append(np.median([np.log(t) for t, _ in by_round.values()])
                                          - np.median(np.log(list(sep[name].values()))))
    print("tier  benchmarks  multiple's spread: floor apart / floor alternated   op alternated / alone")
    for tier, found in spreads.items():
        print(f"{tier:5s} {len(found['sep']):10d}  {np.median(found['sep']):27.1%} / {np.median(found['alt']):.1%}"
              f"   {np.expm1(np.median(found['alt/alone'])):+.1%}")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
