"""Where every process in a side starts: `PYTHON -P start.py SCRIPT REQUEST` (sides/sides.py,
`Side.command`) loads this folder as the package `serialbench_inside`, by path, and calls
`main(request)` of its module SCRIPT with the JSON request decoded. The one loader of the code that
runs inside a side (serialbench/inside/__init__.py says why by path).
"""

import importlib
import importlib.util
import json
import sys
from pathlib import Path

PACKAGE = "serialbench_inside"  # a name no side's serialbench has


def load_package() -> None:
    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location(PACKAGE, here / "__init__.py", submodule_search_locations=[str(here)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)


if __name__ == "__main__":
    load_package()
    importlib.import_module(f"{PACKAGE}.{sys.argv[1]}").main(json.loads(sys.argv[2]))
