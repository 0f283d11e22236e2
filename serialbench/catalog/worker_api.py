"""What serialbench's workers ask of the serialbench whose cases they time: the contract between two versions.

compare times a side with the comparing serialbench's worker files (inside/worker.py, side_check.py,
the count workers), run with the side's own serialbench first on sys.path: another revision's cases,
registry and inputs, maybe older or newer than the worker. The workers reach the side's catalog only
through this module (inside/side_api.py loads it) and check its VERSION: whatever this module offers
is the contract, and changing what it offers, or what its functions take and return, is a new
VERSION. Everything else in the package may change freely between revisions.

VERSION 1:
- TIERS, INPUT_KINDS: the tiers and input kinds, in order.
- select(case_dirs, patterns, tiers, inputs, payloads, warn) -> (benchmarks, cases): the selection as
  `list` makes it (UsageError when a pattern matches nothing); select_named(case_dirs, names,
  payloads): exactly these names.
- prepare(bench, cases, check, clock) -> Prepared (.op, .first_call): the op built outside the timed
  region, its round trip checked when `check`, its own call timed on `clock` when given.
- metadata(bench, prepared) -> dict: what a result file records of the benchmark.
- CaseFailed, UsageError: what they raise for a case that fails and for a selection that is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from serialbench.catalog.inputs import INPUT_KINDS, TIERS
from serialbench.catalog.registry import Benchmark, CaseFailed, Prepared, benchmark_metadata, select_named
from serialbench.catalog.registry import prepare as registry_prepare
from serialbench.catalog.registry import select as registry_select
from serialbench.core.errors import UsageError

VERSION = 1

__all__ = ["INPUT_KINDS", "TIERS", "VERSION", "CaseFailed", "UsageError", "metadata", "prepare", "select",
           "select_named"]


def select(case_dirs: Sequence[str], patterns: Sequence[str], tiers: str | None, inputs: str | None,
           payloads: Sequence[str], warn: Callable[[str], None]):
    return registry_select(case_dirs, patterns, tiers, inputs, warn, payloads=payloads)


def prepare(bench: Benchmark, cases, check: bool, clock: Callable[[], float] | None) -> Prepared:
    return registry_prepare(bench, cases, check=check, clock=clock)


def metadata(bench: Benchmark, prepared: Prepared) -> dict:
    return benchmark_metadata(bench, prepared)
