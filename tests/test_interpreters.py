"""Interpreters as sides: how a version is found, what a side needs, the refusals (an interpreter too
old, a library missing), and an environment made for a bare interpreter, then reused."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from serialbench.core.errors import UsageError
from serialbench.sides import environments, interpreters
from serialbench.sides.checks import by_interpreter
from serialbench.sides.selection import selection_distributions
from serialbench.sides.sides import Checked, Side
from tests import toys
from tests.helpers import PROJECT_ROOT, assert_one_line_usage_error, run_serialbench, written_results


def fake_python(path: Path, version: str) -> Path:
    """A program that answers the version probe as an interpreter of `version` would, and runs nothing else."""
    path.parent.mkdir(parents=True, exist_ok=True)
    numbers = version.replace(".", ", ")
    path.write_text(f"#!/bin/sh\necho '{{\"version\": [{numbers}], \"executable\": \"{path}\", \"venv\": false}}'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_version_is_found_in_pyenvs_folder_newest_patch_first(tmp_path, monkeypatch):
    for version in ("3.12.1", "3.12.10", "3.12.9", "3.13.0"):
        (tmp_path / "versions" / version / "bin").mkdir(parents=True)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert interpreters.candidates("3.12") == [str(tmp_path / "versions" / v / "bin" / "python")
                                               for v in ("3.12.10", "3.12.9", "3.12.1")]
    assert interpreters.candidates("3.13.0") == [str(tmp_path / "versions" / "3.13.0" / "bin" / "python")]


def test_the_selection_needs_its_cases_libraries_and_pillow_only_for_png():
    assert selection_distributions((), ["triton-binary/struct-pack/float32/*"], None, None) == [
        "numpy", "python-rapidjson", "tritonclient"]
    assert selection_distributions((), ["msgpack/packb/png/1K"], None, None) == ["numpy", "pillow", "msgpack"]
    # a decoder needs what its source case encodes with
    assert "msgpack" in selection_distributions((), ["msgpack/decode-unpackb/float32/1K"], None, None)


def test_requirements_are_pinned_at_this_environments_versions_with_serialbenchs_extras():
    from importlib import metadata

    assert environments.pinned(["numpy", "tritonclient", "no-such-distribution"]) == [
        f"numpy=={metadata.version('numpy')}", f"tritonclient[grpc,http]=={metadata.version('tritonclient')}",
        "no-such-distribution"]


def test_every_side_is_named_by_its_interpreter_once_one_is_given():
    base, head = Side("BASE", PROJECT_ROOT, commit="842eac172f00"), Side("HEAD", PROJECT_ROOT, python_version="3.13.0")
    named = by_interpreter([Checked(base, ["x"], python="3.11.7"), Checked(head, ["x"], python="3.13.0")])
    assert [item.side.description for item in named] == ["python 3.11.7", "python 3.13.0"]
    plain = by_interpreter([Checked(base, ["x"], python="3.11.7"), Checked(base, ["x"], python="3.11.7")])
    assert [item.side.description for item in plain] == ["842eac172f", "842eac172f"]


@pytest.mark.slow
def test_an_interpreter_older_than_the_lowest_is_one_line_naming_it(tmp_path):
    old = fake_python(tmp_path / "old" / "python", "3.10.13")
    done = run_serialbench("compare", "--head-python", old, "-b", "baseline/tobytes/float32/1K")
    assert assert_one_line_usage_error(done) == (
        f"serialbench: error: --head-python {old}: python 3.10.13 is older than 3.11, the lowest a side's "
        "interpreter can be; give python 3.11 or newer")


@pytest.mark.slow
@pytest.mark.source_tree  # the side is the repository's own tree: its serialbench/ is the side's code
def test_a_side_whose_interpreter_lacks_numpy_names_it_and_the_command_that_installs_it(tmp_path):
    from importlib import metadata

    from serialbench.sides.checks import check_side

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    side = Side("HEAD", PROJECT_ROOT, python=str(tmp_path / "bare" / "bin" / "python"))
    checked = check_side(side, {"patterns": ["baseline/tobytes/float32/1K"], "tiers": None, "inputs": None})
    assert checked.why.startswith(f"its interpreter has no module 'numpy': install numpy there ({side.python} -m pip "
                                  f"install numpy=={metadata.version('numpy')}), or give a bare interpreter")


# --- an environment made for a bare interpreter --------------------------------------------------

@pytest.fixture(scope="module")
def made(library, tmp_path_factory):
    """An A/A of this interpreter's base against itself on a toy library that the base lacks: the
    first side makes the environment (numpy and toylib from the test's wheels, no index), the second
    reuses it. One environment for the module: making one takes seconds."""
    base = Path(sys._base_executable)
    if not interpreters.missing(str(base), ["toylib"]):
        pytest.skip(f"{base} has toylib installed: nothing to make")
    wheels = tmp_path_factory.mktemp("wheels")
    toys.repacked_wheel("numpy", wheels)  # this environment's numpy, as a wheel: no index is read
    os.link(library["v1"], wheels / Path(library["v1"]).name)
    env = {**library["env"], "PIP_FIND_LINKS": str(wheels)}
    done = run_serialbench("compare", "--base-python", base, "--head-python", base, "--cases", library["cases"],
                           "-b", "lib/toylib/float32/10K", "--rounds", "8", "--min-effect", "10", env=env)
    again = run_serialbench("compare", "--base-python", base, "--head-python", base, "--cases", library["cases"],
                            "-b", "lib/toylib/float32/10K", "--rounds", "2", env=env)
    listed = run_serialbench("cache", "list", env=env)
    for path in written_results(done.stderr) + written_results(again.stderr):
        os.remove(path)
    return {"done": done, "again": again, "listed": listed, "env": env, "cases": library["cases"]}


@pytest.mark.slow
def test_the_first_side_makes_the_environment_and_says_how_long_the_second_reuses_it(made):
    done = made["done"]
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert sum("making an environment for python" in line for line in lines) == 1
    assert any(line.startswith("BASE: environment made in ") for line in lines)
    assert any(line.startswith("HEAD: numpy ") and "(cached environment " in line for line in lines)
    assert made["again"].returncode == 0, made["again"].stderr
    assert "making an environment" not in made["again"].stderr and "cached environment" in made["again"].stderr


@pytest.mark.slow
def test_an_a_a_of_one_interpreter_through_its_environment_flags_nothing(made):
    table = made["done"].stdout
    version = sys.version.split()[0]
    assert f"BASE python {version}" in table and f"HEAD python {version}" in table
    assert "0 slower, 0 faster" in table


@pytest.mark.slow
def test_cache_lists_and_prunes_the_environment(made):
    assert "toylib 1.0" in made["listed"].stdout and "python" in made["listed"].stdout
    assert any(line.startswith("environment ") for line in made["listed"].stdout.splitlines())
    assert "1 environment" in made["listed"].stdout.splitlines()[-1]
    pruned = run_serialbench("cache", "prune", "--all", "--dry-run", env=made["env"])  # the other tests reuse it
    assert pruned.returncode == 0 and "would remove environment python" in pruned.stdout


@pytest.mark.slow
def test_a_sweep_across_interpreters_judges_each_against_the_first_and_an_a_a_a_flags_nothing(made, tmp_path):
    base = Path(sys._base_executable)
    (tmp_path / "again").symlink_to(base)  # the same interpreter by other paths: an A/A/A sweep
    (tmp_path / "third").symlink_to(base)
    done = run_serialbench("sweep", "--pythons", f"{base},{tmp_path / 'again'},{tmp_path / 'third'}",
                           "--cases", made["cases"],
                           "-b", "lib/toylib/float32/10K", "--rounds", "8", "--min-effect", "10",
                           "--json", tmp_path / "sweep.json", env=made["env"])
    for path in written_results(done.stderr):
        os.remove(path)
    assert done.returncode == 0, done.stderr
    version = sys.version.split()[0]
    header = done.stdout.splitlines()[0]
    assert f"python {version} ({base})" in header and f"python {version} ({tmp_path / 'again'})" in header
    assert "making an environment" not in done.stderr  # the fixture's, reused
    data = json.loads((tmp_path / "sweep.json").read_text())
    rows = data["benchmarks"]
    assert rows and all(step["verdict"] not in ("slower", "faster") for row in rows for step in row["steps"])
    # each interpreter judged against the first, not against the one before it
    assert data["steps_judged"] == "against the anchor" and data["side_noun"] == "interpreter"
    assert [(step["from"], step["to"]) for step in rows[0]["steps"]] == [(data["sides"][0], data["sides"][1]),
                                                                        (data["sides"][0], data["sides"][2])]
    assert "no interpreter changed any benchmark against" in done.stdout
    assert "lib/toylib/float32/10K: no change" in done.stdout.splitlines()


def test_sides_whose_labels_differ_past_a_file_names_limit_get_a_file_each(tmp_path, monkeypatch):
    from serialbench.results.session_files import result_paths

    monkeypatch.chdir(tmp_path)
    long = tmp_path / ("a-folder-long-enough-to-pass-the-limit" * 2)
    sides = [Side(f"python 3.11.7 ({long / name})", tmp_path) for name in ("base", "again", "third")]
    paths = result_paths(sides, "sweep", "sweep-pythons")
    assert len(set(paths)) == 3 and paths[1].name.endswith("-2.json") and paths[2].name.endswith("-3.json")


def test_an_interpreter_given_twice_is_refused():
    with pytest.raises(UsageError, match="3.12 given twice"):
        interpreters.parse_pythons("3.12,3.13,3.12")


@pytest.mark.slow
def test_a_version_the_interpreter_cannot_install_gives_way_to_the_closest_below_it(library, tmp_path, monkeypatch):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    os.link(library["v1"], wheels / Path(library["v1"]).name)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "env")], check=True)
    python = tmp_path / "env" / "bin" / "python"
    assert environments.install(python, ["toylib==3.0"], "3.11") == {"toylib==3.0": "toylib 1.0"}
    assert environments.versions_in(python, ["toylib"]) == {"toylib": "1.0"}
