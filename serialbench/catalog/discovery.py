"""Finding case modules: the built-in ones (`serialbench.cases`) and a user's `--cases DIR`.

The built-in cases are the repository's top-level `cases/` folder. A wheel installs that folder as
the package `serialbench.cases`; a source tree (a clone, or one side's worktree in `compare`) has
it beside `serialbench/`. Either way it is imported as `serialbench.cases`, from the folder that
belongs to *this* serialbench: an editable install's import hook would otherwise hand a compare
worktree the main checkout's cases.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from serialbench.catalog.case import Case

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # serialbench/
BUILTIN_PACKAGE = "serialbench.cases"


def source_root() -> Path | None:
    """The source tree this serialbench runs from (a clone or a worktree), or None when installed."""
    root = PACKAGE_DIR.parent
    return root if (root / "cases" / "__init__.py").is_file() and (root / "pyproject.toml").is_file() else None


def builtin_cases_dir() -> Path:
    installed = PACKAGE_DIR / "cases"
    if (installed / "__init__.py").is_file():
        return installed
    return PACKAGE_DIR.parent / "cases"


BUILTIN_CASES_DIR = builtin_cases_dir()


def import_builtin_cases() -> None:
    """Make `serialbench.cases` the package of BUILTIN_CASES_DIR, whatever import hooks say."""
    module = sys.modules.get(BUILTIN_PACKAGE)
    if module is not None and [str(BUILTIN_CASES_DIR)] == list(getattr(module, "__path__", [])):
        return
    spec = importlib.util.spec_from_file_location(BUILTIN_PACKAGE, BUILTIN_CASES_DIR / "__init__.py",
                                                  submodule_search_locations=[str(BUILTIN_CASES_DIR)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[BUILTIN_PACKAGE] = module
    spec.loader.exec_module(module)


class CaseModuleError(Exception):
    """A case module that could not be imported or declares malformed cases."""


def load_case_module(path: Path) -> list[Case]:
    """Import one case module by path and return its CASES.

    Built-in modules import as the `serialbench.cases` package (so they can share
    `cases/_kserve.py`); a user's module loads from its file under a private name.
    """
    try:
        if path.parent.resolve() == BUILTIN_CASES_DIR.resolve():
            import_builtin_cases()
            module = importlib.import_module(f"{BUILTIN_PACKAGE}.{path.stem}")
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

    Modules load in file-name order, cases in declaration order, so that every process lists the
    benchmarks in the same order (a worker finds its benchmark by name, inside/worker.py). A module that fails to
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
