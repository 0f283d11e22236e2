"""The Case record and the discovery of case modules.

A case module (one per wire format, in `cases/` or a user's `--cases DIR`) holds a module-level
list `CASES` of `Case` records. Each record names one implementation and points at a `setup`
function that is called outside the timed region and returns the zero-argument callable that is
timed. Third-party libraries are imported inside `setup`, never at module import, so that
discovering every case stays cheap and a pyperf worker loads only what its benchmark needs.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serialbench.inputs import Payload

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BUILTIN_CASES_DIR = PROJECT_ROOT / "cases"

# setup(payload) -> op for encode cases; setup(wire, payload) -> op for decode cases.
Op = Callable[[], Any]


@dataclass(frozen=True)
class Case:
    """One implementation of one wire format.

    format, impl: the first two words of the benchmark name `FORMAT/IMPL/INPUT/TIER`.
    inputs: the input kinds this implementation can carry.
    setup: for an encode case, `setup(payload)` returns the timed op, whose result is the wire
        body as bytes (or a list of buffers handed to the socket, whose concatenation is the body).
        For a decode case, `setup(wire, payload)` returns the op, whose result is the decoded
        tensors in input order; `payload` only tells the dtypes and shapes a server knows from
        the model's signature.
    reference_decoder: for an encode case, `reference_decoder(wire, payload)` decodes the body
        with an independent parser into the tensors in input order; the runner checks it once
        before timing and `verify` reports what does not round-trip.
    source: for a decode case, the IMPL of the encode case (same format) whose bytes it reads.
    requires: importable module names the case needs; a missing one leaves the case out.
    install: the command that installs what `requires` names (e.g. an extra of this project),
        printed by `list` and `run` when one is missing.
    libraries: distributions whose versions go into the benchmark's metadata.
    headers: HTTP headers a client sends with the body, `headers(wire) -> dict`.
    unsupported: input kinds this implementation cannot carry, each with the reason (e.g. raw
        bytes in JSON); `list` and `run` print the reason instead of leaving the input out silently.
    """

    format: str
    impl: str
    inputs: Sequence[str]
    setup: Callable[..., Op]
    reference_decoder: Callable[[bytes, Payload], list] | None = None
    source: str | None = None
    requires: Sequence[str] = ()
    libraries: Sequence[str] = ()
    headers: Callable[[bytes], dict[str, str]] | None = None
    unsupported: Mapping[str, str] = field(default_factory=dict, compare=False)
    install: str = ""
    module: str = field(default="", compare=False)

    @property
    def direction(self) -> str:
        return "decode" if self.source is not None else "encode"

    @property
    def label(self) -> str:
        return f"{self.format}/{self.impl}"

    def missing_requirement(self) -> str | None:
        """The first required module that cannot be imported, or None."""
        for module in self.requires:
            if _find_spec(module) is None:
                return module
        return None


def _find_spec(module: str):
    # find_spec on "a.b" imports package "a"; the top-level name is enough to know it is there
    # and keeps heavy packages (tensorflow) unimported.
    try:
        return importlib.util.find_spec(module.split(".")[0])
    except (ImportError, ValueError):
        return None


class CaseModuleError(Exception):
    """A case module that could not be imported or declares malformed cases."""


def load_case_module(path: Path) -> list[Case]:
    """Import one case module by path and return its CASES.

    Built-in modules import as the `cases` package (so they can share `cases/_kserve.py`);
    a user's module loads from its file under a private name.
    """
    try:
        if path.parent.resolve() == BUILTIN_CASES_DIR:
            if str(PROJECT_ROOT) not in sys.path:
                sys.path.append(str(PROJECT_ROOT))
            module = importlib.import_module(f"cases.{path.stem}")
        else:
            module = _import_file(path)
    except Exception as exc:  # noqa: BLE001 - a user's module may raise anything
        raise CaseModuleError(f"{path}: {type(exc).__name__}: {exc}") from exc
    cases = getattr(module, "CASES", None)
    if not isinstance(cases, (list, tuple)) or not all(isinstance(c, Case) for c in cases):
        raise CaseModuleError(f"{path}: has no CASES list of serialbench.case.Case records")
    return [_with_module(case, str(path)) for case in cases]


def _import_file(path: Path):
    module_name = f"serialbench_user_cases_{abs(hash(str(path.resolve())))}_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def _with_module(case: Case, module: str) -> Case:
    return Case(**{**case.__dict__, "module": module})


def discover(dirs: Sequence[Path], on_error: Callable[[str], None]) -> list[Case]:
    """Every case of every `*.py` module in `dirs`, in a deterministic order.

    Modules load in file-name order, cases in declaration order: pyperf's workers find their
    benchmark by index, so the order must be the same in every process. A module that fails to
    import is reported through `on_error` and skipped; the others still load.
    """
    cases: list[Case] = []
    for directory in dirs:
        for path in sorted(Path(directory).glob("*.py")):
            if path.name.startswith("_"):
                continue
            try:
                cases.extend(load_case_module(path))
            except CaseModuleError as exc:
                on_error(f"case module skipped: {exc}")
    return cases
