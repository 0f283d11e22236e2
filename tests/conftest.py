"""What the test modules share: the built-in cases imported as `serialbench.cases` from this checkout,
the `slow` marker's rule, and the fixtures that build toys (tests/toys.py) and that several test
modules use.

The rule: a test that starts a process (a command in a subprocess, a worker, a compare side,
git, pip, valgrind), itself or through a fixture it is the first to use, is marked `slow`, so that
`pytest -m "not slow"` is the quick loop. A test that is not marked and starts one fails, naming
the command. With SERIALBENCH_PROCESS_LOG=FILE set, each such test is appended to FILE instead (to
find the tests to mark).
"""

import json
import os
import shutil
import subprocess
import textwrap

import pytest

from serialbench.catalog.discovery import import_builtin_cases
from tests import toys
from tests.helpers import run_serialbench, written_results

import_builtin_cases()

# matplotlib lists the system's fonts with `fc-list` the first time it is imported on a machine (a
# fresh CI machine has no font cache yet): build the cache here, before the process guard below, so
# that no plotting test depends on whether an earlier run on the machine had built it.
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.font_manager  # noqa: E402, F401

_running: dict[str, pytest.Item | None] = {"item": None}
_start_process = subprocess.Popen.__init__


def _guarded_start(self, args, *rest, **kwargs):
    item = _running["item"]
    if item is not None and item.get_closest_marker("slow") is None:
        log = os.environ.get("SERIALBENCH_PROCESS_LOG")
        if log:
            with open(log, "a") as file:
                file.write(item.nodeid + "\n")
        else:
            command = " ".join(map(str, args)) if isinstance(args, (list, tuple)) else str(args)
            pytest.fail(f"{item.nodeid} starts a process ({command[:200]}): mark the test slow", pytrace=False)
    _start_process(self, args, *rest, **kwargs)


subprocess.Popen.__init__ = _guarded_start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _running["item"] = item
    yield
    _running["item"] = None


@pytest.fixture(scope="module")
def toy_repo(tmp_path_factory):
    """A git repository of cases/toy.py at two revisions: HEAD~1 copies once per op, HEAD four times."""
    return toys.make_toy_repo(tmp_path_factory.mktemp("toy"))


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """toylib 1.0 and 2.0 (three more copies per op) as local wheels, and cases that use it."""
    root = tmp_path_factory.mktemp("library")
    (root / "cases").mkdir()
    (root / "cases" / "lib.py").write_text(textwrap.dedent(toys.LIBRARY_CASES))
    return {"v1": toys.make_wheel(root, "1.0", 0), "v2": toys.make_wheel(root, "2.0", 3), "cases": root / "cases",
            "env": {"XDG_CACHE_HOME": str(root / "cache"), "PIP_NO_INDEX": "1"}}


# Fixed rounds and a minimum effect that an unchanged step cannot reach by noise on a loaded machine.
TOY_SWEEP = ["--rounds", "8", "--min-effect", "10", "--tier", "10K", "-b", "lib/toylib"]


@pytest.fixture(scope="session")
def toy(tmp_path_factory):
    """toylib's releases (toys.RELEASES: v1 and v2 equal, v3 doing clearly more work, v4 equal to v3) as
    local wheels that pip finds through --find-links, never an index; and the cases that use it."""
    root = tmp_path_factory.mktemp("sweep")
    (root / "cases").mkdir()
    (root / "cases" / "lib.py").write_text(textwrap.dedent(toys.LIBRARY_CASES))
    (root / "wheels").mkdir()
    for version, extra in toys.RELEASES.items():
        toys.make_wheel(root / "wheels", version, extra)
    env = {"XDG_CACHE_HOME": str(root / "cache"), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(root / "wheels")}
    return {"root": root, "cases": root / "cases", "env": env}


@pytest.fixture(scope="session")
def swept(toy):
    """The toy library's sweep over its four releases (one step, at v3): (the process, its --json);
    its side files are moved out of the project's results/ into toy["root"] / "sides"."""
    out = toy["root"] / "sweep.json"
    done = run_serialbench("sweep", "toylib>=1,<=4", "--cases", toy["cases"], *TOY_SWEEP, "--json", out,
                           env=toy["env"])
    (toy["root"] / "sides").mkdir()
    for path in written_results(done.stderr):
        shutil.move(path, toy["root"] / "sides")
    return done, json.loads(out.read_text()) if out.exists() else None
