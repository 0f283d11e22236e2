"""Tests import the built-in cases as `serialbench.cases`, from this checkout's `cases/` folder; and the
fixtures that several test modules share."""

import json
import shutil
import textwrap

import pytest

from serialbench.catalog.discovery import import_builtin_cases

import_builtin_cases()

TOY_VERSIONS = {"1.0": 0, "2.0": 0, "3.0": 3, "4.0": 3}  # the toy library's extra copies of the tensor per op
# Fixed rounds and a minimum effect that an unchanged step cannot reach by noise on a loaded machine.
TOY_SWEEP = ["--rounds", "8", "--min-effect", "10", "--tier", "10K", "-b", "lib/toylib"]


@pytest.fixture(scope="session")
def toy(tmp_path_factory):
    """A toy library at four versions as local wheels (v1 and v2 equal, v3 doing clearly more work, v4
    equal to v3), found through pip's --find-links: no package index is reached."""
    from tests.test_compare import LIBRARY_CASES, make_wheel

    root = tmp_path_factory.mktemp("sweep")
    (root / "cases").mkdir()
    (root / "cases" / "lib.py").write_text(textwrap.dedent(LIBRARY_CASES))
    (root / "wheels").mkdir()
    for version, extra in TOY_VERSIONS.items():
        make_wheel(root / "wheels", version, extra)
    env = {"XDG_CACHE_HOME": str(root / "cache"), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(root / "wheels")}
    return {"root": root, "cases": root / "cases", "env": env}


def written_results(stderr):
    return [line.split(" results: ", 1)[1] for line in stderr.splitlines() if " results: " in line]


@pytest.fixture(scope="session")
def swept(toy):
    """The toy library's sweep over its four releases (one step, at v3): (the process, its --json);
    its side files are moved out of the project's results/ into toy["root"] / "sides"."""
    from tests.test_compare import run_serialbench

    out = toy["root"] / "sweep.json"
    done = run_serialbench("sweep", "toylib>=1,<=4", "--cases", toy["cases"], *TOY_SWEEP, "--json", out,
                           env=toy["env"])
    (toy["root"] / "sides").mkdir()
    for path in written_results(done.stderr):
        shutil.move(path, toy["root"] / "sides")
    return done, json.loads(out.read_text()) if out.exists() else None
