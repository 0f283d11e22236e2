"""A side's serialbench as the workers see it: its worker API (serialbench/catalog/worker_api.py), or a refusal.

The workers (worker.py, side_check.py, callgrind_worker.py, allocations_worker.py) are the comparing
serialbench's files, run with a side's serialbench first on sys.path (inside/start.py). They import
this file beside themselves and call `load()`: the side's `serialbench.catalog.worker_api` when it speaks a
VERSION listed in SPOKEN, else one named adapter for the revisions that came just before the worker
API existed, else SideRefused with one line that says what the side lacks. It imports nothing of
serialbench at import time: it runs beside another revision's package.
"""

from __future__ import annotations

SPOKEN = (1,)
PROTOCOL = 1  # the coordinator's requests to worker.py; it goes in the hello with the side API's name
# The revisions before the worker API whose layout the adapter reads: serialbench.catalog, with
# registry.prepare(bench, cases, check=, clock=) (from d780992, 2026-12-01).
ADAPTER = "catalog layout of 2026-12-01 (before the worker API)"


class SideRefused(Exception):
    """The side's serialbench speaks no worker API that this worker can use."""


class MissingLibrary(SideRefused):
    """The side's interpreter lacks a library its serialbench imports (numpy): nothing is too old."""

    def __init__(self, module: str):
        super().__init__(f"its interpreter has no module {module!r}")
        self.module = module


class CatalogLayout:
    """Worker API 1 over a revision from just before it: the same functions, under the names they had."""

    NAME = ADAPTER

    def __init__(self):
        from serialbench.catalog import inputs, registry
        from serialbench.core.errors import UsageError

        # The layout's mark: a prepared op records its own timed call (first_call), which the revisions
        # before it cannot give (their prepare takes no clock).
        if "first_call" not in getattr(registry.Prepared, "__dataclass_fields__", {}):
            raise SideRefused(f"its serialbench predates the worker API and the {ADAPTER}: its prepare takes "
                              "no clock")
        self.registry, self.TIERS, self.INPUT_KINDS = registry, inputs.TIERS, inputs.INPUT_KINDS
        self.CaseFailed, self.UsageError = registry.CaseFailed, UsageError
        self.select_named = registry.select_named

    def select(self, case_dirs, patterns, tiers, inputs, payloads, warn):
        return self.registry.select(case_dirs, patterns, tiers, inputs, warn, payloads=payloads)

    def prepare(self, bench, cases, check, clock):
        return self.registry.prepare(bench, cases, check=check, clock=clock)

    def metadata(self, bench, prepared):
        return self.registry.benchmark_metadata(bench, prepared)


def load():
    """The side's worker API (a module, or the adapter), or SideRefused."""
    try:
        from serialbench.catalog import worker_api
    except ImportError as exc:
        missing_library(exc)
        try:
            return CatalogLayout()
        except ImportError as exc:
            missing_library(exc)
            raise SideRefused(f"its serialbench has no worker API (serialbench.catalog.worker_api) and is older "
                              f"than the {ADAPTER}: {exc}") from None
    if worker_api.VERSION not in SPOKEN:
        raise SideRefused(f"its serialbench speaks worker API {worker_api.VERSION}; this worker speaks "
                          f"{', '.join(map(str, SPOKEN))}: compare with the newer serialbench")
    return worker_api


def missing_library(exc: ImportError) -> None:
    """MissingLibrary when the import failed for want of a library, not of a part of serialbench."""
    module = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if module and module.split(".")[0] != "serialbench":
        raise MissingLibrary(module) from None


def name(api) -> str:
    """What the hello says of the side's API: 'worker API 1', or the adapter's name."""
    return getattr(api, "NAME", None) or f"worker API {api.VERSION}"


def load_or_exit(what: str):
    """load(), or the process's exit with the refusal as its one line (the count workers)."""
    try:
        return load()
    except SideRefused as exc:
        raise SystemExit(f"this side cannot be {what}: {exc}") from None
