"""Loading serialbench result files: the one loader that every command reading results uses.

A result file is pyperf JSON (optionally .json.gz) whose benchmarks carry serialbench's metadata
(catalog/registry.benchmark_metadata). Anything else -- a missing file, truncated or malformed JSON, a
pyperf file that some other program wrote, a file from an older or newer serialbench -- is a
UsageError with one line saying what is wrong and what to do. Partial runs (a worker failed, the
run was interrupted) and files that `--append` added runs to load like any other.

The memory pass (`python -m serialbench memory`) writes a companion file beside the result file,
`NAME.memory.json`; `load` picks it up when it is there, or gzip'd as `NAME.memory.json.gz`.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pyperf

from serialbench.catalog.case import DIRECTIONS
from serialbench.catalog.discovery import source_root
from serialbench.catalog.inputs import INPUT_KINDS
from serialbench.catalog.registry import FLOOR, builtin_no_copy
from serialbench.core.errors import UsageError
from serialbench.core.formatting import format_machine
from serialbench.core.gitinfo import commit_and_dirty
from serialbench.results.kinds import open_text

# Bumped when the meaning of the metadata changes. Files carry it as `serialbench_results_format`
# (suite metadata); a file without it is format 1 when it has every key below.
RESULTS_FORMAT = 1
REQUIRED_METADATA = (
    "serialbench_format",
    "serialbench_impl",
    "serialbench_input",
    "serialbench_tier",
    "serialbench_direction",
    "input_bytes",
    "payload_bytes",
)
MEMORY_FORMAT = 2  # 2 added bytes_per_op and allocs_per_op (memray); format 1 files still load


@dataclass(frozen=True)
class Memory:
    """One benchmark's memory per op, from the memory pass (measure/memory.py)."""

    peak_bytes: int  # most traced memory above the level before the call, while the op ran
    retained_bytes: int  # traced memory the op's result still holds when it returns
    calls: int
    # Go's B/op and allocs/op: every allocation call during one op, native ones included, the harness's
    # own (baseline/noop) taken off (inside/allocations.py); None in a format 1 file or without memray.
    bytes_per_op: float | None = None
    allocs_per_op: float | None = None


@dataclass(frozen=True)
class Result:
    """One benchmark of a result file: its serialbench metadata and its timings (seconds per op)."""

    name: str
    format: str
    impl: str
    input: str
    tier: str
    direction: str
    input_bytes: int
    payload_bytes: int
    values: tuple[float, ...]
    benchmark: pyperf.Benchmark = field(repr=False, compare=False)
    memory: Memory | None = None

    @property
    def row(self) -> str:
        return f"{self.format}/{self.impl}"

    @property
    def roundtrip(self) -> str:
        """The protocol whose real path this benchmark is, as its case declared it (Case.roundtrip);
        '' for none, or in a file written before the metadata recorded it."""
        metadata = self.benchmark.get_metadata() if self.benchmark is not None else {}
        return str(metadata.get("serialbench_roundtrip", ""))

    @property
    def copies(self) -> bool:
        """Whether the op copies a tensor's bytes, as its case declared it (Case.no_copy); in a file written
        before the metadata recorded it, the built-in cases' declaration for a built-in input kind."""
        metadata = self.benchmark.get_metadata() if self.benchmark is not None else {}
        if "serialbench_copies" in metadata:
            return bool(metadata["serialbench_copies"])
        kind = INPUT_KINDS.get(self.input)
        return kind is None or kind.form not in builtin_no_copy().get((self.format, self.impl), ())

    @property
    def median(self) -> float | None:
        return median_of(self.benchmark)

    @property
    def throughput_mb_s(self) -> float | None:
        median = self.median
        return self.input_bytes / median / 1e6 if median else None

    @property
    def size_ratio(self) -> float | None:
        return self.payload_bytes / self.input_bytes if self.input_bytes else None


def median_of(bench: pyperf.Benchmark) -> float | None:
    """A benchmark's median time per op. In a file of rounds (the run's, a compare session's: every run
    records its `serialbench_round`) the median over the rounds of each one's median: a round is one
    process, the unit they sample, and the run's interval is for that median (verdicts/timings.py).
    Otherwise (a pyperf run) pyperf's own, the median of every value."""
    runs = [run for run in bench.get_runs() if run.values]
    if not runs:
        return None
    if all("serialbench_round" in run.get_metadata() for run in runs):
        return statistics.median(statistics.median(run.values) for run in runs)
    return statistics.median(value for run in runs for value in run.values)


@dataclass
class ResultFile:
    path: str
    results: list[Result]
    metadata: dict  # metadata common to every benchmark (machine, python, pyperf)
    commits: list[str]  # serialbench commits of the runs, in first-seen order (several after --append)
    dirty: bool
    memory_path: str | None = None
    memory_commit: str | None = None

    def get(self, name: str) -> Result | None:
        for result in self.results:
            if result.name == name:
                return result
        return None

    def floor(self, result: Result) -> Result | None:
        """baseline/tobytes of the same input and tier in this file: the memcpy floor."""
        return self.get(f"{FLOOR[0]}/{FLOOR[1]}/{result.input}/{result.tier}")

    @property
    def machine(self) -> str:
        """Where the file was timed, as every view names it (core/formatting.format_machine)."""
        return format_machine(self.metadata.get("cpu_model_name"), self.metadata.get("cpu_count"))

    def library_versions(self) -> dict[str, str]:
        versions: dict[str, str] = {}
        for result in self.results:
            for key, value in result.benchmark.get_metadata().items():
                if key.endswith("_version") and key not in ("perf_version", "python_version"):
                    versions.setdefault(key[: -len("_version")], str(value))
        return dict(sorted(versions.items()))


def differing_versions(files: Sequence[ResultFile]) -> list[str]:
    """Each file's libraries whose version differs between the files that have them, 'name version, ...' (a
    library some files lack says nothing: a file gives the versions of the cases it timed)."""
    versions = [loaded.library_versions() for loaded in files]
    varying = sorted({name for v in versions for name in v if len({o[name] for o in versions if name in o}) > 1})
    return [", ".join(f"{name} {mine[name]}" for name in varying if name in mine) for mine in versions]


def memory_path_for(results_path: str | os.PathLike) -> Path:
    """Where the memory pass writes its companion file: results/abc.json -> results/abc.memory.json."""
    path = Path(results_path)
    name = path.name
    for suffix in (".json.gz", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return path.with_name(f"{name}.memory.json")


def memory_companion(results_path: str | os.PathLike) -> Path | None:
    """The memory file beside a result file, as the memory pass wrote it or gzip'd; None without one."""
    written = memory_path_for(results_path)
    for path in (written, written.with_name(written.name + ".gz")):
        if path.is_file():
            return path
    return None


def load(path: str | os.PathLike, with_memory: bool = True) -> ResultFile:
    """Load and check one serialbench result file (and its memory companion, if any)."""
    path = str(path)
    suite = _load_pyperf(path)
    suite_metadata = suite.get_metadata()
    _check_format_version(path, suite_metadata)
    results = [_result(path, bench) for bench in suite.get_benchmarks()]
    commits: list[str] = []
    dirty = False
    for bench in suite.get_benchmarks():
        for run in bench.get_runs():
            run_metadata = run.get_metadata()
            commit = run_metadata.get("serialbench_commit")
            if commit and commit not in commits:
                commits.append(str(commit))
            dirty = dirty or bool(run_metadata.get("serialbench_dirty", 0))
    loaded = ResultFile(path, results, suite_metadata, commits, dirty)
    if with_memory:
        _attach_memory(loaded)
    return loaded


def _load_pyperf(path: str) -> pyperf.BenchmarkSuite:
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file; give a result file written by 'python -m serialbench -o FILE'")
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory; give a result file (.json)")
    try:
        return pyperf.BenchmarkSuite.load(path)
    except json.JSONDecodeError as exc:
        where = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        if not _begins_as_pyperf(path):  # a README, a CSV: it never was a result, and no re-run writes it
            raise UsageError(f"{path}: not a serialbench result (not pyperf JSON: {where}); give a result file "
                             "written by 'python -m serialbench'") from None
        raise UsageError(f"{path}: truncated or malformed JSON ({where}); re-run the benchmarks to write it "
                         "again") from None
    except (UnicodeDecodeError, EOFError, OSError) as exc:
        raise UsageError(f"{path}: cannot be read as pyperf JSON ({type(exc).__name__}: {_one_line(exc)}); "
                         "give a result file written by 'python -m serialbench'") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{path}: not a pyperf result file ({type(exc).__name__}: {_one_line(exc)}); "
                         "give a result file written by 'python -m serialbench'") from None


def _begins_as_pyperf(path: str) -> bool:
    """Whether the file begins as pyperf writes a suite, `{"benchmarks": [`, so that a parse error means a
    result cut short or damaged rather than a file of another kind."""
    try:
        with open_text(path) as file:
            start = file.read(200)
    except (OSError, EOFError, UnicodeDecodeError):
        return False
    return re.match(r'\s*\{\s*"benchmarks"\s*:', start) is not None


def _check_format_version(path: str, suite_metadata: dict) -> None:
    version = suite_metadata.get("serialbench_results_format")
    if version is None:
        return
    if not isinstance(version, int):
        raise UsageError(f"{path}: serialbench_results_format {version!r} is not an integer; "
                         "the file was not written by serialbench")
    if version > RESULTS_FORMAT:
        raise UsageError(f"{path}: written by a newer serialbench (results format {version}, this one reads "
                         f"up to {RESULTS_FORMAT}); update serialbench to read it")


def _result(path: str, bench: pyperf.Benchmark) -> Result:
    name = bench.get_name()
    metadata = bench.get_metadata()
    missing = [key for key in REQUIRED_METADATA if key not in metadata]
    if "serialbench_format" not in metadata:
        raise UsageError(f"{path}: benchmark {name!r} has no serialbench metadata; this pyperf file was not "
                         "written by serialbench (give a file from 'python -m serialbench -o FILE')")
    disagreeing = [key for key in missing if any(key in run.get_metadata() for run in bench.get_runs())]
    if disagreeing:
        raise UsageError(f"{path}: the runs of {name!r} disagree on {', '.join(disagreeing)}: runs appended from "
                         "another serialbench version; keep them in separate files")
    if missing:
        raise UsageError(f"{path}: benchmark {name!r} lacks {', '.join(missing)}: written by an older "
                         "serialbench; re-run it with this version")
    words = [str(metadata[key]) for key in REQUIRED_METADATA[:4]]
    if name != "/".join(words):
        raise UsageError(f"{path}: benchmark {name!r} does not match its metadata {'/'.join(words)}; "
                         "the file was edited or merged by hand")
    if metadata["serialbench_direction"] not in DIRECTIONS:
        raise UsageError(f"{path}: benchmark {name!r} has direction {metadata['serialbench_direction']!r}; "
                         f"accepted: {', '.join(DIRECTIONS)}")
    if metadata.get("unit", "second") != "second":
        raise UsageError(f"{path}: benchmark {name!r} measures {metadata['unit']!r}, not time; a memory pass "
                         "of pyperf (--track-memory) is not a timing result")
    for key in ("input_bytes", "payload_bytes"):
        if not isinstance(metadata[key], int):
            raise UsageError(f"{path}: benchmark {name!r} has {key} {metadata[key]!r}, not an integer")
    values = tuple(bench.get_values())  # runs that only calibrated or warmed up add none
    return Result(name, *words, metadata["serialbench_direction"], metadata["input_bytes"],
                  metadata["payload_bytes"], values, bench)


def _attach_memory(loaded: ResultFile) -> None:
    companion = memory_companion(loaded.path)
    if companion is None:
        return
    data = load_memory(companion)
    loaded.memory_path = str(companion)
    loaded.memory_commit = data.get("serialbench_commit")
    measured = data["benchmarks"]
    for index, result in enumerate(loaded.results):
        entry = measured.get(result.name)
        if entry is not None:
            memory = Memory(entry["peak_bytes"], entry["retained_bytes"], entry["calls"],
                            entry.get("bytes_per_op"), entry.get("allocs_per_op"))
            loaded.results[index] = replace(result, memory=memory)


def load_memory(path: str | os.PathLike) -> dict:
    """Load and check a memory companion file: {"serialbench_memory": 2, "benchmarks": {name: {...}}}."""
    try:
        with open_text(path) as file:
            data = json.load(file)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: truncated or malformed JSON ({exc.msg} at line {exc.lineno}); "
                         "delete it and run 'python -m serialbench memory' again") from None
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise UsageError(f"{path}: cannot be read ({type(exc).__name__}: {_one_line(exc)})") from None
    if not isinstance(data, dict) or "serialbench_memory" not in data:
        raise UsageError(f"{path}: not a serialbench memory file; it is written by 'python -m serialbench memory'")
    version = data["serialbench_memory"]
    if not isinstance(version, int) or version > MEMORY_FORMAT:
        raise UsageError(f"{path}: memory file format {version!r} is newer than this serialbench reads "
                         f"({MEMORY_FORMAT}); update serialbench")
    benchmarks = data.get("benchmarks")
    if not isinstance(benchmarks, dict):
        raise UsageError(f"{path}: has no 'benchmarks' object; it is written by 'python -m serialbench memory'")
    for name, entry in benchmarks.items():
        if not isinstance(entry, dict) or not all(isinstance(entry.get(key), int)
                                                  for key in ("peak_bytes", "retained_bytes", "calls")):
            raise UsageError(f"{path}: entry {name!r} lacks integer peak_bytes, retained_bytes and calls")
        if any(not isinstance(entry.get(key, 0), int | float) for key in ("bytes_per_op", "allocs_per_op")):
            raise UsageError(f"{path}: entry {name!r} has a bytes_per_op or allocs_per_op that is not a number")
    return data


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] if text else type(exc).__name__


def recorded_payloads(selected) -> list[str]:
    """The --payload arguments the run of these results was given, as its metadata records them."""
    recorded = (result.benchmark.get_metadata().get("serialbench_payload") for result in selected)
    return list(dict.fromkeys(str(payload) for payload in recorded if payload))


def memory_file(results_path: str, measured: dict, overheads: dict, calls: int) -> str:
    """The memory pass's companion file (RESULTS.memory.json): what was measured, by what method, where."""
    root = source_root()
    commit, dirty = commit_and_dirty(root) if root else ("unknown", False)
    data = {
        "serialbench_memory": MEMORY_FORMAT,
        "results_file": os.path.basename(results_path),
        "serialbench_commit": commit,
        "serialbench_dirty": int(dirty),
        "python_version": sys.version.split()[0],
        "calls": calls,
        "method": "bytes_per_op, allocs_per_op: memray (Python and native allocators), regions of K and 2K "
                  "calls (alloc_calls = K), the profiler's frame objects and the harness's overhead (baseline/noop, "
                  "per FORMAT/IMPL worker) taken off; peak, retained: tracemalloc, gc off; peak = max over calls "
                  "of peak above the level before the call; retained = median over calls of memory held when the "
                  "call returns, result alive",
        "overhead": overheads,
        "benchmarks": measured,
    }
    return json.dumps(data, indent=1, sort_keys=False) + "\n"
