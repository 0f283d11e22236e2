"""Do two runs agree? Each row's multiple of the memcpy floor, with its interval, in run 1 against run 2,
and each format's star (or tie) in both: a Markdown table on stdout.

    python tools/agreement.py RUN1.json RUN2.json > agreement.md

Made for result files of the run's rounds (each row's multiple a paired ratio with a 95% interval,
docs/reference/run.md), e.g. two default runs of one format an hour apart:

    python -m serialbench -b 'triton-binary/*' -o results/agree-1.json
    sleep 3600
    python -m serialbench -b 'triton-binary/*' -o results/agree-2.json
    python tools/agreement.py results/agree-1.json results/agree-2.json

What "agree within the stated interval" means is printed three ways, because the choice decides the
figure. With h1, h2 the half-widths of the two rows' intervals (log scale) and d the difference of
their multiples (log):
- combined (the criterion): |d| <= sqrt(h1^2 + h2^2), the 95% interval of the difference of two
  independent estimates; two runs of one machine state agree in about 95% of rows;
- each in the other's: run 2's multiple inside run 1's interval and run 1's inside run 2's; for two
  independent estimates with intervals of equal width this holds in about 83% of rows even when
  nothing moved, so it cannot reach 90% by design;
- overlap: the two intervals share a point; about 99% when nothing moved.
A row without an interval in either run (too few rounds, no floor) is counted apart.
"""

import argparse
import math
import sys

from serialbench.catalog.registry import FLOOR
from serialbench.core.errors import UsageError
from serialbench.core.formatting import format_percent
from serialbench.results.files import load
from serialbench.verdicts.rankings import marks as ranking_marks
from serialbench.verdicts.rankings import table_rankings
from serialbench.verdicts.timings import timing


def log_interval(found):
    if found is None or found.multiple is None or found.multiple_low is None:
        return None
    if not (math.isfinite(found.multiple_low) and math.isfinite(found.multiple_high)):
        return None
    return math.log(found.multiple), math.log(found.multiple_low), math.log(found.multiple_high)


def main(first: str, second: str) -> None:
    one, two = load(first, with_memory=False), load(second, with_memory=False)
    rows = []
    counts = {"rows": 0, "combined": 0, "each": 0, "overlap": 0, "no interval": 0}
    timings = [{r.name: timing(r.benchmark) for r in results.results} for results in (one, two)]
    for result in one.results:
        other = two.get(result.name)
        if other is None or result.format == FLOOR[0]:
            continue
        a, b = log_interval(timings[0][result.name]), log_interval(timings[1][result.name])
        if a is None or b is None:
            counts["no interval"] += 1
            continue
        counts["rows"] += 1
        (m1, low1, high1), (m2, low2, high2) = a, b
        h1, h2 = max(m1 - low1, high1 - m1), max(m2 - low2, high2 - m2)
        combined = abs(m1 - m2) <= math.hypot(h1, h2)
        each = low1 <= m2 <= high1 and low2 <= m1 <= high2
        overlap = low1 <= high2 and low2 <= high1
        counts["combined"] += combined
        counts["each"] += each
        counts["overlap"] += overlap
        rows.append((result.name, math.exp(m1), math.exp(low1), math.exp(high1), math.exp(m2), math.exp(low2),
                     math.exp(high2), math.expm1(m2 - m1), combined, each, overlap))
    print(f"# Two runs: {first} against {second}\n")
    print("| benchmark | run 1 multiple [95%] | run 2 multiple [95%] | moved | combined | each in other | overlap |")
    print("|---|---:|---:|---:|:-:|:-:|:-:|")
    for name, m1, l1, h1, m2, l2, h2, moved, combined, each, overlap in rows:
        print(f"| {name} | {m1:.3g}x [{l1:.3g}, {h1:.3g}] | {m2:.3g}x [{l2:.3g}, {h2:.3g}] | "
              f"{moved * 100:+.1f}% | {'yes' if combined else 'NO'} | {'yes' if each else 'no'} | "
              f"{'yes' if overlap else 'no'} |")
    total = max(counts["rows"], 1)
    print(f"\n{counts['rows']} rows with an interval in both runs ({counts['no interval']} without):")
    for key, what in (("combined", "the difference within the combined interval (the criterion)"),
                      ("each", "each run's multiple inside the other's interval"),
                      ("overlap", "the intervals overlap")):
        print(f"- {what}: {counts[key]} of {counts['rows']} ({format_percent(counts[key] / total)})")
    stars(one, two)


def stars(one, two) -> None:
    """Each group's mark in both runs: same star, star in one and tie in the other, ties, or moved."""
    marks = []
    for results in (one, two):
        selected = results.results
        marks.append(ranking_marks(table_rankings(selected, {r.name: timing(r.benchmark) for r in selected})))
    groups: dict[tuple, list[str]] = {}
    for result in one.results:
        if result.format != FLOOR[0] and two.get(result.name) is not None:
            groups.setdefault((result.input, result.direction, result.format, result.tier), []).append(result.name)
    outcome = {"same star": [], "ties in both": [], "star in one, tie in the other": [], "MOVED": []}
    for key, members in groups.items():
        if len(members) < 2:
            continue
        starred = [[name for name in members if found.get(name) == "*"] for found in marks]
        tied = [any(found.get(name) == "=" for name in members) for found in marks]
        if starred[0] and starred[0] == starred[1]:
            outcome["same star"].append(key)
        elif starred[0] and starred[1]:
            outcome["MOVED"].append(key)
        elif tied[0] and tied[1]:
            outcome["ties in both"].append(key)
        else:
            outcome["star in one, tie in the other"].append(key)
    print(f"\nStars over {sum(len(v) for v in outcome.values())} groups of two or more implementations:")
    for what, keys in outcome.items():
        print(f"- {what}: {len(keys)}" + (": " + "; ".join("/".join(key) for key in keys) if what == "MOVED" and keys
                                          else ""))


def cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/agreement.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", metavar="RUN1.json", help="a result file of the run's rounds")
    parser.add_argument("second", metavar="RUN2.json", help="another of the same selection")
    args = parser.parse_args(argv)
    try:
        main(args.first, args.second)
    except UsageError as exc:
        print(f"agreement: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(cli())
