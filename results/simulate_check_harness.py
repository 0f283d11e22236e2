"""How often check-harness's verdict flags an unbiased benchmark, and finds a biased one, on the
process-to-process noise of a real result file.

Each benchmark's per-worker medians (100K and 1M tiers) are resampled into three ways of K
processes with no bias between them; then one way is scaled by a bias. The rates are those of
`verdict` (DISAGREE) and of the medians alone (largest over smallest beyond the tolerance).

It needs workers to resample: at least 5 a benchmark. The figures in results/README.md are from the
reference of 1ea4795 (6 workers a benchmark; the current one has 3):

    git show 0e77d55:results/REFERENCE.json > /tmp/reference-1ea4795.json
    python results/simulate_check_harness.py /tmp/reference-1ea4795.json
"""

import random
import statistics
import sys

import pyperf

from serialbench.commands.check_harness import TOLERANCE, WAYS, disagreement, verdict

suite = pyperf.BenchmarkSuite.load(sys.argv[1])
workers = [[statistics.median(run.values) for run in bench.get_runs() if run.values]
           for bench in suite.get_benchmarks() if bench.get_name().endswith(("/100K", "/1M"))]
workers = [medians for medians in workers if len(medians) >= 5]
if not workers:
    sys.exit(f"{sys.argv[1]}: no benchmark at 100K or 1M has 5 workers or more to resample; "
             "give a run of -p 5 or more")
rng = random.Random(24)
print(f"{len(workers)} benchmarks of {sys.argv[1]}, 20 draws each; DISAGREE by the medians alone / by the verdict")
for processes in (3, 5):
    for bias in (1.0, 1.3, 1.5, 2.0, 4.0):
        alone = flagged = draws = 0
        for medians in workers:
            for _ in range(20):
                ways = {way: [rng.choice(medians) for _ in range(processes)] for way in WAYS}
                ways["run"] = [value * bias for value in ways["run"]]
                alone += disagreement({way: statistics.median(v) for way, v in ways.items()}) > TOLERANCE
                flagged += verdict(ways, TOLERANCE) == "DISAGREE"
                draws += 1
        print(f"{processes} processes a way, run x{bias:g}: {alone / draws:6.1%} / {flagged / draws:6.1%}")
