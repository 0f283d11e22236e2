"""The package's layers, read from the import statements (docs/architecture.md, "The layers").

serialbench/ is in layers whose imports go one way: core -> catalog -> inside -> sides -> measure
-> results -> verdicts -> views -> commands. inside/ is the code that runs in a side's interpreter;
sides/ builds and checks the sides and sits beside the engine (measure/ imports sides.Side, the
sides import nothing of measure/). A module imports from its own layer or the layers before it, never
from a later one (so nothing outside commands/ imports a command); no import circle; the built-in
case modules see only the public API (serialbench.case, serialbench.inputs). Imports inside
functions count too: a lazy import is still a dependency.
"""

import ast
import re
from pathlib import Path

import pytest

from tests.helpers import PROJECT_ROOT

pytestmark = pytest.mark.source_tree  # reads serialbench/ and cases/ as files of the repository

PACKAGE = PROJECT_ROOT / "serialbench"
LAYERS = ("core", "catalog", "inside", "sides", "measure", "results", "verdicts", "views", "commands")
# Modules at the top of the package: the public API of case modules sits with the catalog; the
# entry points (the commands' and the workers') with the commands.
TOP = {"serialbench": "core", "serialbench.case": "catalog", "serialbench.inputs": "catalog",
       "serialbench.__main__": "commands", "serialbench.workers": "commands"}
PUBLIC_API = {"serialbench.case", "serialbench.inputs"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def layer(module: str) -> int:
    if module in TOP:
        return LAYERS.index(TOP[module])
    return LAYERS.index(module.split(".")[1])


def imports(path: Path) -> list[tuple[str, bool]]:
    """The serialbench modules a file imports, each with whether the import sits in an
    `except ImportError` handler (a fallback for another revision's layout)."""
    tree = ast.parse(path.read_text())
    found = []

    def visit(node, in_fallback):
        for child in ast.iter_child_nodes(node):
            fallback = in_fallback or isinstance(child, ast.ExceptHandler)
            if isinstance(child, ast.Import):
                found.extend((alias.name, fallback) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.append((child.module, fallback))
                # `from serialbench.core import stats` imports the module serialbench.core.stats
                found.extend((f"{child.module}.{alias.name}", fallback) for alias in child.names
                             if f"{child.module}.{alias.name}" in MODULES or child.module == "serialbench")
            visit(child, fallback)

    visit(tree, False)
    return [(name, fallback) for name, fallback in found if name.split(".")[0] == "serialbench"]


def graph() -> dict[str, set[str]]:
    edges = {}
    for name, path in MODULES.items():
        edges[name] = {imported for imported, _ in imports(path) if imported in MODULES and imported != name}
    return edges


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_only_its_own_layer_and_the_layers_before_it(name):
    for imported, fallback in imports(MODULES[name]):
        if imported not in MODULES:
            assert fallback, f"{name} imports {imported}, which does not exist, outside an `except ImportError`"
            continue
        assert layer(imported) <= layer(name), (
            f"{name} ({LAYERS[layer(name)]}) imports {imported} ({LAYERS[layer(imported)]}), a later layer")


def test_there_is_no_import_circle():
    edges = graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def walk(node, path):
        state[node] = 1
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if target not in state:
                walk(target, [*path, target])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            walk(node, [node])


def test_only_commands_import_commands():
    for name, path in MODULES.items():
        if layer(name) < LAYERS.index("commands"):
            assert not [i for i, _ in imports(path) if i.startswith("serialbench.commands")], name


@pytest.mark.parametrize("path", sorted((PROJECT_ROOT / "cases").glob("*.py")), ids=lambda p: p.name)
def test_built_in_cases_see_only_the_public_api(path):
    used = {name for name, _ in imports(path) if name in MODULES and name != "serialbench"}
    assert used <= PUBLIC_API, f"{path.name} imports {sorted(used - PUBLIC_API)}"


def test_the_rule_catches_an_upward_import(tmp_path):
    """The checker itself: an import from a later layer is seen (here, a core module using a view)."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from serialbench.views import grid\n")
    (imported, fallback), = [item for item in imports(probe) if item[0] == "serialbench.views.grid"]
    assert layer(imported) > layer("serialbench.core.stats") and not fallback


# A path named in the text, `serialbench/catalog/registry.py` or (inside the package) `catalog/registry.py`.
NAMED_PATH = re.compile(r"(?<![\w./-])((?:serialbench|cases|tests|results|core|catalog|inside|sides|measure"
                        r"|verdicts|views|commands)/[\w/]*\w\.py)\b")


@pytest.mark.parametrize("path", sorted([*PACKAGE.rglob("*.py"), *(PROJECT_ROOT / "cases").glob("*.py")]),
                         ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
def test_the_module_paths_that_the_code_names_exist(path):
    """Docstrings and comments that point to a module stay true when modules move."""
    named = {found for found in NAMED_PATH.findall(path.read_text())}
    missing = [name for name in named if not (PROJECT_ROOT / name).exists() and not (PACKAGE / name).exists()]
    assert not missing, f"{path.name} names {missing}, which do not exist"


def private_uses(path: Path) -> list[str]:
    """Where a file reads another module's private name: `module._name` on an imported serialbench module,
    or `from serialbench.x import _name`."""
    tree = ast.parse(path.read_text())
    modules = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("serialbench"):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{node.module}.{alias.name}")
                if f"{node.module}.{alias.name}" in MODULES:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(alias.asname for alias in node.names
                           if alias.asname and alias.name.startswith("serialbench"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"{node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_reads_another_module_s_private_names(name):
    assert not private_uses(MODULES[name]), f"{name} reads {private_uses(MODULES[name])}"


def test_the_private_name_rule_catches_a_reach_inside(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from serialbench.measure import engine\nfrom serialbench.measure.engine import _x\nengine._y\n")
    assert private_uses(probe) == ["serialbench.measure.engine._x", "engine._y"]


# The processes of a session: the verdicts, the result files and the views read its data
# (measure/session.py), never these.
PROCESSES = {"serialbench.measure.engine", "serialbench.measure.lanes", "serialbench.measure.process",
             "serialbench.inside.worker"}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if layer(n) in {LAYERS.index(k) for k in
                                                                          ("results", "verdicts", "views")}))
def test_the_verdicts_results_and_views_read_a_session_s_data_not_its_processes(name):
    assert not {imported for imported, _ in imports(MODULES[name])} & PROCESSES, name


INSIDE = sorted(name for name in MODULES if name.startswith("serialbench.inside."))


@pytest.mark.parametrize("name", INSIDE)
def test_the_code_inside_a_side_imports_its_own_folder_relatively_and_nothing_of_serialbench_at_import(name):
    """Loaded as `serialbench_inside` in a side (inside/start.py) and as `serialbench.inside` here: a module
    of its own folder is imported relatively; serialbench itself is the side's, reached inside functions only."""
    tree = ast.parse(MODULES[name].read_text())
    at_import = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    for node in at_import:
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
        if isinstance(node, ast.ImportFrom) and node.level:
            continue
        assert not [n for n in names if n.split(".")[0] == "serialbench"], f"{name} imports {names} at module level"


def test_one_place_writes_the_launch_line_of_a_side_s_process():
    """`[python, "-P", ...]` is built by sides.Side (command, serialbench) and nowhere else."""
    writers = sorted(name for name, path in MODULES.items() if '"-P"' in path.read_text())
    assert writers == ["serialbench.sides.sides"], writers


def test_measure_holds_the_engine_and_the_counts_in_at_most_2000_lines():
    lines = sum(len(path.read_text().splitlines()) for path in (PACKAGE / "measure").glob("*.py"))
    assert lines <= 2000, lines


def test_the_package_docstrings_and_serialbench_s_own_name_the_same_layers_in_the_same_order():
    """serialbench/__init__.py gives the chain; each layer's __init__.py opens with "Layer N, NAME:"."""
    assert " -> ".join(LAYERS) in " ".join((PACKAGE / "__init__.py").read_text().split())
    for index, name in enumerate(LAYERS, start=1):
        opening = (PACKAGE / name / "__init__.py").read_text().lstrip('"')
        assert opening.startswith(f"Layer {index}, {name}:"), f"{name}/__init__.py: {opening[:40]!r}"
    assert sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file() and p.name != "cases") \
        == sorted(LAYERS)
