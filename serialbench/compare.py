"""`python -m serialbench compare BASE [HEAD]`: did this change make the selected benchmarks cheaper?

Both revisions are checked out into temporary git worktrees (HEAD, by default, is a snapshot of the
work tree with its uncommitted changes, so that edits made meanwhile do not leak in), at paths of
the same length, and run with this interpreter and environment. The timing alternates between them
in small slices: for each round and each benchmark, one worker process of BASE and one of HEAD,
back to back, the order flipping every round, with the same loop count. A burst of load or a slow
drift of the machine then falls on both alike, and each round gives one paired ratio;
serialbench/stats.py turns the rounds into a change, a confidence interval and a verdict. The
worker is the runner's timing loop on CPU time, in a heap laid out at random (see WORKER); its runs
are pyperf runs, and both result files stay in results/ (run i of a benchmark in one file ran in
the same round as run i in the other).

`--instructions` counts instructions per op under callgrind instead (serialbench/instructions.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pyperf

from serialbench import results, stats
from serialbench.case import PROJECT_ROOT
from serialbench.errors import UsageError
from serialbench.listing import parser as make_parser
from serialbench.runner import RESULTS_DIR, add_filter_arguments
from serialbench.table import text_table

# A round is one worker per revision per benchmark; six rounds is the fewest that can give a 95%
# interval. The sign test's interval at 16 rounds tolerates 3 rounds on the wrong side (at 10: 1).
# On these 2-core machines, over calibrate's 20 benchmarks, 10 rounds detected a 10% slowdown in
# 16 and 19 of 20 (two sessions) and 5% in 15 and 16; 16 rounds (the second session, whole)
# 19 and 19 of 20, with 1 A/A benchmark of 20 flagged.
ROUNDS = 16
VALUES = 6  # values per worker, after one warm-up: the fastest of them is the worker's number
WARMUPS = 1
MIN_TIME = 0.02  # seconds per value; short, so that a burst of load spoils few values
WORKER_TIMEOUT = 900


@dataclass(frozen=True)
class Tree:
    """One revision, ready to run: serialbench runs from `root`, with `case_dirs`."""

    label: str  # BASE or HEAD
    revision: str  # as the user named it
    commit: str
    dirty: bool
    root: Path
    case_dirs: tuple[str, ...] = ()
    own_serialbench: bool = True  # the tree's own serialbench runs it (not so for a foreign --cases repo)

    @property
    def short(self) -> str:
        return self.commit[:10] + ("-dirty" if self.dirty else "")


@dataclass(frozen=True)
class Timing:
    values: int = VALUES
    warmups: int = WARMUPS
    min_time: float = MIN_TIME


@dataclass
class Session:
    """Timings of the same benchmarks in several trees, round by round."""

    trees: Sequence[Tree]
    names: list[str]
    benchmarks: dict[str, dict[str, pyperf.Benchmark]] = field(default_factory=dict)  # label -> name -> runs
    failed: dict[str, str] = field(default_factory=dict)  # name -> why
    rounds: int = 0
    seconds: float = 0.0

    def paired(self, base_label: str, head_label: str, name: str) -> tuple[list[float], list[float]]:
        """Per-round worker statistics of one benchmark in two trees, in round order."""
        return (_worker_statistics(self.benchmarks[base_label].get(name)),
                _worker_statistics(self.benchmarks[head_label].get(name)))


def _worker_statistics(bench: pyperf.Benchmark | None) -> list[float]:
    if bench is None:
        return []
    return [stats.worker_statistic(run.values) for run in bench.get_runs() if run.values]


# --- git ------------------------------------------------------------------------------------------

def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"git {' '.join(args)}: {last_line(done.stderr) or 'failed'}")
    return done.stdout


def toplevel(path: Path) -> Path:
    done = subprocess.run(["git", "-C", str(path), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"{path} is not in a git repository; compare checks out revisions of the repository "
                         "holding the cases")
    return Path(done.stdout.strip()).resolve()


def resolve(repo: Path, revision: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"{revision!r} is not a revision of {repo}; give a commit, branch or tag "
                         "(e.g. HEAD~1, main)")
    return done.stdout.strip()


def _add_worktree(repo: Path, path: Path, commit: str) -> None:
    git(repo, "worktree", "add", "--detach", "--quiet", str(path), commit)


def _overlay_work_tree(repo: Path, snapshot: Path) -> bool:
    """Copy the work tree's uncommitted changes (modified, deleted, untracked) into a fresh worktree.

    Returns whether tracked files differ from HEAD (serialbench's meaning of dirty).
    """
    changed = git(repo, "ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard")
    tracked_changed = git(repo, "ls-files", "-z", "--modified", "--deleted")
    for relative in filter(None, changed.split("\0")):
        if relative.startswith("results/"):
            continue  # result files are data, not code
        source, target = repo / relative, snapshot / relative
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif not source.exists() and target.exists():
            target.unlink()
    return bool(tracked_changed.strip("\0"))


@contextlib.contextmanager
def checkout(revisions: Sequence[str | None], labels: Sequence[str],
             case_dirs: Sequence[str] = ()) -> Iterator[list[Tree]]:
    """Temporary worktrees of the revisions (None: a snapshot of the work tree), removed on the way out.

    The revisions are of the repository holding the cases: serialbench's own, or the repository of
    the first --cases DIR when that lies elsewhere (then serialbench itself runs from here).
    """
    project = toplevel(PROJECT_ROOT)
    repo = toplevel(Path(case_dirs[0])) if case_dirs else project
    own = repo == project
    commits = [resolve(repo, revision or "HEAD") for revision in revisions]
    scratch = Path(tempfile.mkdtemp(prefix="serialbench-compare-"))
    added: list[Path] = []
    try:
        trees = []
        for index, (label, revision, commit) in enumerate(zip(labels, revisions, commits)):
            path = scratch / f"tree-{index:02d}"  # equal lengths: the trees differ in nothing but their code
            _add_worktree(repo, path, commit)
            added.append(path)
            dirty = _overlay_work_tree(repo, path) if revision is None else False
            mapped = tuple(str(path / Path(d).resolve().relative_to(repo)) if _inside(d, repo)
                           else str(Path(d).resolve()) for d in case_dirs)
            trees.append(Tree(label, revision or "work tree", commit, dirty, path if own else PROJECT_ROOT,
                              mapped, own_serialbench=own))
        yield trees
    finally:
        for path in added:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(path)], capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)
        subprocess.run(["git", "-C", str(repo), "worktree", "prune"], capture_output=True)


def _inside(directory: str, repo: Path) -> bool:
    try:
        Path(directory).resolve().relative_to(repo)
    except ValueError:
        return False
    return True


# --- selection and workers ------------------------------------------------------------------------

def filter_args(patterns: Sequence[str], tier: str | None, inputs: str | None) -> list[str]:
    args: list[str] = []
    for pattern in patterns:
        args += ["-b", pattern]
    if tier:
        args += ["--tier", tier]
    if inputs:
        args += ["--input", inputs]
    return args


def case_args(tree: Tree) -> list[str]:
    return [arg for directory in tree.case_dirs for arg in ("--cases", directory)]


def list_benchmarks(tree: Tree, filters: Sequence[str]) -> tuple[list[str], str]:
    """The tree's selected benchmark names, or ([], why) when its selection is empty or broken."""
    done = subprocess.run([sys.executable, "-m", "serialbench", "list", *filters, *case_args(tree)],
                          cwd=tree.root, capture_output=True, text=True)
    if done.returncode != 0:
        return [], last_line(done.stderr) or f"list exited with status {done.returncode}"
    return done.stdout.split(), ""


def common_benchmarks(trees: Sequence[Tree], filters: Sequence[str], say: Callable[[str], None]) -> list[str]:
    """Benchmarks selected in every tree, in the first tree's order; the others are named."""
    listed = [list_benchmarks(tree, filters) for tree in trees]
    everywhere = set.intersection(*(set(names) for names, _ in listed))
    for tree, (names, why) in zip(trees, listed):
        if why:
            say(f"{tree.label} ({tree.revision}): {why}")
        elsewhere = [name for name in names if name not in everywhere]
        if elsewhere:
            say(f"only in {tree.label}, not compared: {', '.join(elsewhere)}")
    common = [name for name in listed[0][0] if name in everywhere]
    if not common:
        raise UsageError("no benchmark is selected in both revisions; see 'python -m serialbench list'")
    return common


# glibc's malloc moves its mmap and trim thresholds as a process frees large blocks, so an op on
# 100 KB-10 MB buffers runs in one of several regimes (page faults on every call or none: 2x to
# 11x apart) depending on the heap's history. The runner's workers fix both thresholds with
# mallopt (runner.steady_allocator); compare's workers get the same values through glibc's
# environment variables, which also reach revisions older than that function. Other allocators
# ignore them.
STEADY_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(4 * 1024 * 1024 * 8), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}
# numpy's OpenBLAS starts a thread that spins for a while after import, on the other core: it would
# compete with the measured thread under load. No serializer calls BLAS.
WORKER_ENV = {**STEADY_MALLOC, "OPENBLAS_NUM_THREADS": "1"}

# The worker: run with the tree's own serialbench (`python -c` puts the tree first on sys.path), so
# BASE and HEAD differ only in their code, never in the timing loop. It is the runner's loop (ten
# calls unrolled for cheap tiers) on the calling thread's CPU clock: on a shared machine a process
# waits for a core for part of its wall time, and at a load of 4 on 2 cores the wall-clock values
# of the same code spread 2x while its CPU time spreads 1-3%. The thread's clock, not the
# process's: the process's also counts other threads (numpy's OpenBLAS thread spinning after
# import doubled a 40 KB copy's process CPU time). An op that hands work to other threads is
# under-counted; no serializer here does.
# Before it prepares the op it allocates a random amount: the same code in two checkouts otherwise gets
# the same heap layout in every process, and a layout can make a memory-bound op 1-10% faster or
# slower for the whole comparison. Randomised per process, layout is noise the interval sees
# (Curtsinger and Berger's Stabilizer, in miniature), not a bias it cannot.
WORKER = r"""
import json, random, sys, time
import pyperf
from serialbench import registry, runner
from serialbench.registry import prepare, select

request = json.loads(sys.argv[1])
heap_padding = (bytearray(random.randrange(16, 4096)),
                [bytes(random.randrange(1, 500)) for _ in range(random.randrange(256))])
benchmarks, cases = select(request["case_dirs"], [request["name"]], request["tier"], request["input"])
bench = next(b for b in benchmarks if b.name == request["name"])
prepared = prepare(bench, cases)
op = prepared.op
inner = runner.UNROLLED_TIERS.get(bench.tier, 1)
clock = time.thread_time

def sample(loops):
    it = range(loops)
    if inner == 10:
        t0 = clock()
        for _ in it:
            op(); op(); op(); op(); op()
            op(); op(); op(); op(); op()
        return clock() - t0
    t0 = clock()
    for _ in it:
        op()
    return clock() - t0

loops = request["loops"]
if not loops:
    loops = 1
    while sample(loops) < request["min_time"] and loops < 2**32:
        loops *= 2
warmups = [sample(loops) for _ in range(request["warmups"])]
values = [sample(loops) for _ in range(request["values"])]
calls = loops * inner
metadata = runner.benchmark_metadata(bench, prepared)
metadata.update(request["metadata"], name=bench.name, loops=loops)
if inner > 1:
    metadata["inner_loops"] = inner
run = pyperf.Run([v / calls for v in values], warmups=[(loops, w / calls) for w in warmups], metadata=metadata)
pyperf.Benchmark([run]).dump(request["output"])
print(json.dumps({"serialbench": registry.__file__}))
"""


class WorkerFailed(Exception):
    pass


def run_worker(tree: Tree, name: str, scratch: Path, timing: Timing, loops: int | None) -> pyperf.Benchmark:
    """One worker process of one benchmark in one tree; loops=None calibrates them (to min_time)."""
    _, _, kind, tier = name.split("/")
    output = scratch / f"worker-{time.monotonic_ns()}.json"
    request = {"name": name, "input": kind, "tier": tier, "case_dirs": list(tree.case_dirs), "loops": loops or 0,
               "values": timing.values, "warmups": timing.warmups, "min_time": timing.min_time,
               "output": str(output), "metadata": {
                   "serialbench_commit": tree.commit, "serialbench_dirty": int(tree.dirty),
                   "serialbench_results_format": results.RESULTS_FORMAT,
                   "serialbench_clock": "thread_time", "serialbench_malloc": "steady"}}
    try:
        done = subprocess.run([sys.executable, "-c", WORKER, json.dumps(request)], cwd=tree.root,
                              env={**os.environ, **WORKER_ENV}, capture_output=True, text=True,
                              timeout=WORKER_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise WorkerFailed(f"{tree.label}: worker timed out after {WORKER_TIMEOUT} s") from None
    if done.returncode != 0 or not output.exists():
        raise WorkerFailed(f"{tree.label}: {last_line(done.stderr) or f'worker exited with status {done.returncode}'}")
    try:
        bench = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()[0]
    finally:
        output.unlink()
    imported = Path(json.loads(last_line(done.stdout))["serialbench"]).resolve()
    if tree.own_serialbench and tree.root.resolve() not in imported.parents:  # e.g. a non-editable install
        raise UsageError(f"{tree.label}'s worker imported serialbench from {imported.parent}, not from {tree.root}: "
                         "another serialbench shadows the worktree (an install that is not editable?)")
    return bench


def last_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def time_rounds(trees: Sequence[Tree], names: Sequence[str], rounds: int, timing: Timing,
                say: Callable[[str], None]) -> Session:
    """Calibrate loops once per benchmark (first tree), then `rounds` rounds over all trees.

    Within a round every benchmark runs one worker per tree, back to back, in an order that flips
    with the round, so that each pair of trees is first equally often. A benchmark whose worker
    fails in any tree is dropped from all of them; an interrupted session keeps its whole rounds.
    """
    session = Session(trees, list(names), {tree.label: {} for tree in trees})
    started = time.monotonic()
    loops: dict[str, int] = {}
    timings: dict[str, Timing] = {}
    with tempfile.TemporaryDirectory(prefix="serialbench-workers-") as tmp:
        scratch = Path(tmp)
        try:
            for name in names:
                try:
                    calibration = run_worker(trees[0], name, scratch, replace(timing, values=1, warmups=0), None)
                    loops[name] = int(calibration.get_runs()[0].get_metadata()["loops"])
                    timings[name] = _timing_for(calibration, timing)
                except WorkerFailed as exc:
                    _fail(session, name, str(exc), say)
            say(f"calibrated {len(loops)} benchmarks in {time.monotonic() - started:.0f} s; "
                f"{rounds} rounds of {len(loops) * len(trees)} workers")
            for round_index in range(rounds):
                round_started = time.monotonic()
                for index, name in enumerate(names):
                    if name in session.failed:
                        continue
                    order = trees if (round_index + index) % 2 == 0 else list(reversed(trees))
                    try:
                        runs = {tree.label: run_worker(tree, name, scratch, timings[name], loops[name])
                                for tree in order}
                    except WorkerFailed as exc:
                        _fail(session, name, str(exc), say)
                        continue
                    for label, bench in runs.items():
                        known = session.benchmarks[label].get(name)
                        if known is None:
                            session.benchmarks[label][name] = bench
                        else:
                            known.add_runs(bench)
                session.rounds = round_index + 1
                took = time.monotonic() - round_started
                left = took * (rounds - session.rounds)
                say(f"round {session.rounds}/{rounds}: {took:.0f} s"
                    + (f", about {left / 60:.1f} min left" if left else ""))
        except KeyboardInterrupt:
            say(f"interrupted: keeping {session.rounds} complete rounds")
            _trim_to_rounds(session)
    session.seconds = time.monotonic() - started
    return session


def _timing_for(calibration: pyperf.Benchmark, timing: Timing) -> Timing:
    """Fewer values (at least 3) for an op so slow that one value is one call of it."""
    run = calibration.get_runs()[0]
    metadata = run.get_metadata()
    value_seconds = run.values[0] * metadata["loops"] * metadata.get("inner_loops", 1)
    budget = 2 * timing.values * timing.min_time
    return replace(timing, values=max(3, min(timing.values, int(budget / value_seconds))))


def _fail(session: Session, name: str, why: str, say: Callable[[str], None]) -> None:
    session.failed[name] = why
    for per_tree in session.benchmarks.values():
        per_tree.pop(name, None)
    say(f"{name}: not compared ({why})")


def _trim_to_rounds(session: Session) -> None:
    """Drop the runs of an unfinished round, so that every tree keeps the same rounds."""
    for per_tree in session.benchmarks.values():
        for name, bench in list(per_tree.items()):
            runs = [run for run in bench.get_runs() if run.values][: session.rounds]
            if not runs:
                del per_tree[name]
            elif len(runs) < len(bench.get_runs()):
                per_tree[name] = pyperf.Benchmark(runs)


# --- results and the table ------------------------------------------------------------------------

def result_paths(base: Tree, head: Tree) -> tuple[Path, Path]:
    """results/compare-<base>-<head>-{base,head}.json, with -2, -3... so nothing is overwritten."""
    RESULTS_DIR.mkdir(exist_ok=True)
    stem = f"compare-{base.short}-{head.short}"
    counter = 1
    while True:
        suffix = "" if counter == 1 else f"-{counter}"
        paths = (RESULTS_DIR / f"{stem}{suffix}-base.json", RESULTS_DIR / f"{stem}{suffix}-head.json")
        if not any(path.exists() for path in paths):
            return paths
        counter += 1


def write_results(session: Session, label: str, path: Path) -> bool:
    benches = [session.benchmarks[label][name] for name in session.names if name in session.benchmarks[label]]
    if not benches:
        return False
    pyperf.BenchmarkSuite(benches).dump(str(path))
    return True


@dataclass(frozen=True)
class Row:
    name: str
    base: float  # seconds per op: median over rounds of each worker's fastest value
    head: float
    verdict: stats.Verdict


def compare_session(session: Session, base_label: str, head_label: str, min_effect: float) -> list[Row]:
    rows = []
    for name in session.names:
        base, head = session.paired(base_label, head_label, name)
        if base and len(base) == len(head):
            rows.append(Row(name, statistics.median(base), statistics.median(head),
                            stats.compare_rounds(base, head, min_effect)))
    return rows


def compare_files(base_path: str, head_path: str, min_effect: float = stats.MIN_EFFECT) -> list[Row]:
    """The table of two result files written by compare: the i-th run of a benchmark in one file
    ran in the same round as the i-th run in the other."""
    files = [results.load(path, with_memory=False) for path in (base_path, head_path)]
    trees = [Tree(label, "", "", False, Path()) for label in ("BASE", "HEAD")]
    in_head = {result.name for result in files[1].results}
    names = [result.name for result in files[0].results if result.name in in_head]
    session = Session(trees, names, {tree.label: {result.name: result.benchmark for result in loaded.results}
                                     for tree, loaded in zip(trees, files)})
    return compare_session(session, "BASE", "HEAD", min_effect)


def format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:.0f} {unit}"
    raise AssertionError


def format_change(fraction: float) -> str:
    if fraction == float("inf"):
        return "+inf"
    if fraction <= -1:
        return "-100%"
    return f"{fraction * 100:+.1f}%"


def format_table(rows: Sequence[Row], base: str, head: str, min_effect: float) -> str:
    header = ("benchmark", base, head, "change [95% CI]", "detectable", "verdict")
    lines = []
    for row in rows:
        v = row.verdict
        interval = f"[{format_change(v.low)}, {format_change(v.high)}]" if v.low > -1 else "[no interval]"
        detectable = f"{v.detectable * 100:.1f}%" if v.detectable != float("inf") else "-"
        lines.append((row.name, format_seconds(row.base), format_seconds(row.head),
                      f"{format_change(v.change)} {interval}", detectable, v.verdict))
    out = text_table([header, *lines], left=(0, 5))
    counts = {word: sum(row.verdict.verdict == word for row in rows)
              for word in (stats.SLOWER, stats.FASTER, stats.NO_CHANGE, stats.TOO_NOISY)}
    rounds = {row.verdict.rounds for row in rows}
    out.append("")
    out.append(", ".join(f"{count} {word}" for word, count in counts.items()) +
               f"; {'/'.join(map(str, sorted(rounds)))} rounds, minimum effect {min_effect * 100:g}%")
    out.append("BASE, HEAD: each worker's fastest value, median over rounds. change: median over the rounds of "
               "HEAD/BASE - 1, 95% interval from the sign test. detectable: the smallest "
               "change this run would flag 4 times in 5.")
    return "\n".join(out)


# --- command line ---------------------------------------------------------------------------------

def interrupt_on_sigterm() -> None:
    """A terminated compare still removes its worktrees and keeps its whole rounds, as on Ctrl-C."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def parse_percent(text: str | None, default: float = stats.MIN_EFFECT, option: str = "--min-effect") -> float:
    if text is None:
        return default
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise UsageError(f"{option} {text!r}: give a percentage such as 2 or 2%") from None
    if not 0 <= value < 100:
        raise UsageError(f"{option} {text!r}: give a percentage from 0 to 100")
    return value / 100


def add_timing_arguments(cli) -> None:
    cli.add_argument("--rounds", type=int, default=ROUNDS,
                     help=f"rounds of one worker per revision per benchmark (default {ROUNDS}; at least 6)")
    cli.add_argument("--values", type=int, default=VALUES, help=f"values per worker (default {VALUES})")
    cli.add_argument("--min-time", type=float, default=MIN_TIME,
                     help=f"seconds per value (default {MIN_TIME})")
    cli.add_argument("--min-effect", metavar="PCT",
                     help=f"changes smaller than this are 'no change' (default {stats.MIN_EFFECT * 100:g}%%; "
                          "with --instructions 1%%)")


def check_timing_arguments(args) -> Timing:
    if args.rounds < 1 or args.values < 1 or args.min_time <= 0:
        raise UsageError("--rounds and --values must be at least 1 and --min-time positive")
    return Timing(values=args.values, min_time=args.min_time)


def run(argv: list[str]) -> int:
    cli = make_parser("compare", "Time two git revisions interleaved and say which benchmarks changed.")
    cli.add_argument("base", metavar="BASE", help="git revision to compare against (e.g. main, HEAD~1)")
    cli.add_argument("head", metavar="HEAD", nargs="?",
                     help="git revision to compare (default: the work tree, uncommitted changes included)")
    add_filter_arguments(cli)
    add_timing_arguments(cli)
    cli.add_argument("--instructions", action="store_true",
                     help="count instructions per op under valgrind's callgrind instead of timing")
    args = cli.parse_args(argv)
    timing = check_timing_arguments(args)
    min_effect = parse_percent(args.min_effect)
    interrupt_on_sigterm()

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    filters = filter_args(args.patterns, args.tier, args.input)
    if args.instructions:
        from serialbench import instructions

        instructions.require_valgrind()
    with checkout([args.base, args.head], ["BASE", "HEAD"], args.case_dirs) as (base, head):
        say(f"BASE {base.revision} = {base.short}, HEAD {head.revision} = {head.short}")
        names = common_benchmarks((base, head), filters, say)
        if args.instructions:
            return instructions.compare_trees(base, head, names, say,
                                              parse_percent(args.min_effect, instructions.THRESHOLD))
        if args.rounds < 6:
            say(f"{args.rounds} rounds cannot give a 95% interval (6 can): every verdict will be "
                "'too noisy to tell'")
        session = time_rounds((base, head), names, args.rounds, timing, say)
    paths = result_paths(base, head)
    for tree, path in zip((base, head), paths):
        if write_results(session, tree.label, path):
            say(f"{tree.label} results: {path}")
    rows = compare_session(session, "BASE", "HEAD", min_effect)
    print(format_table(rows, f"BASE {base.short[:10]}", f"HEAD {head.short[:10]}", min_effect))
    print(f"{len(names)} benchmarks, {session.rounds} rounds in {session.seconds / 60:.1f} min")
    if session.failed:
        print(f"{len(session.failed)} not compared: " + "; ".join(f"{n}: {w}" for n, w in session.failed.items()))
        return 1
    return 0
