"""serialbench: what it costs, in Python, to prepare an ML inference request.

The package is in layers whose imports go one way (docs/architecture.md; tests/test_layers.py):
core -> catalog -> inside -> sides -> measure -> results -> verdicts -> views -> commands
(the entry point, __main__.py, and the workers' one, workers.py, with the commands). The public API for case
modules is `serialbench.case.Case` and `serialbench.inputs`.
"""

from pathlib import Path as _Path

# The built-in cases are the repository's top-level cases/ folder, which a wheel installs as
# serialbench/cases (pyproject.toml's package-dir). In a source tree (a clone, or a compare side's
# worktree) the tree's top level is searched too, so that `import serialbench.cases` finds that same
# folder: the source tree and the installed package import the cases the same way, in this process
# and in every process it starts, and an editable install's hook (which maps serialbench.cases to
# the checkout it was made from) is never asked.
_PACKAGE_DIR = _Path(__file__).resolve().parent
if not (_PACKAGE_DIR / "cases").is_dir() and (_PACKAGE_DIR.parent / "cases" / "__init__.py").is_file():
    __path__.append(str(_PACKAGE_DIR.parent))
