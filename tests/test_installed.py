"""serialbench as a library's CI installs it: the wheel, in a fresh venv, run from an empty directory.

The venv gets only the wheel (`--no-deps`); the test environment's site-packages supplies the
dependencies through a .pth line, which does not run that environment's own .pth files, so the
editable install of this checkout stays out of it. Nothing may land at the top of site-packages
but serialbench, and results go to ./results of the working directory.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.helpers import PROJECT_ROOT

# Every test here starts a process (tests/conftest.py) and builds the wheel from the repository's sources.
pytestmark = [pytest.mark.slow, pytest.mark.source_tree]

SOURCES = ("serialbench", "cases", "pyproject.toml", "README.md")
BENCHMARK = "msgpack/packb/float32/1K"


def run(*args, cwd, check=True, env=None):
    done = subprocess.run([str(arg) for arg in args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of a fresh venv holding only the wheel, that venv's site-packages, the build's output)."""
    root = tmp_path_factory.mktemp("installed")
    source = root / "source"  # a copy, so that building leaves nothing in the checkout
    for name in SOURCES:
        copy = shutil.copytree if (PROJECT_ROOT / name).is_dir() else shutil.copy2
        copy(PROJECT_ROOT / name, source / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                                    if (PROJECT_ROOT / name).is_dir() else {}))
    # The build backend itself, as pip or `python -m build` calls it, so that its whole output is seen
    # (pip's -q hides it); byte-compiling on, since setuptools warns when the environment turns it off.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    build = run(sys.executable, "-c", "import sys; from setuptools import build_meta as backend; "
                "dist = sys.argv[1]; backend.build_sdist(dist); backend.build_wheel(dist)", root / "dist",
                cwd=source, env=env)
    (wheel,) = (root / "dist").glob("serialbench-*.whl")
    run(sys.executable, "-m", "venv", "--without-pip", root / "venv", cwd=root)
    python = root / "venv" / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheel, cwd=root)
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=root)
                .stdout.strip())
    (site / "test-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python, site, build.stdout + build.stderr


def test_building_the_sdist_and_the_wheel_prints_no_warning(installed):
    *_, output = installed
    assert "running sdist" in output and "running bdist_wheel" in output
    assert [line for line in output.splitlines() if "warning" in line.lower()] == []


def test_the_wheel_installs_nothing_at_the_top_of_site_packages_but_serialbench(installed):
    python, site, _ = installed
    top = sorted(path.name for path in site.iterdir() if path.name != "test-environment.pth")
    assert top == ["serialbench", "serialbench-0.1.0.dist-info"]
    assert (site / "serialbench" / "cases" / "msgpack.py").is_file()
    done = run(python, "-c", "import cases", cwd=site.parent, check=False)
    assert "No module named 'cases'" in done.stderr


def test_list_run_and_report_from_an_empty_directory(installed, tmp_path):
    python, site, _ = installed
    where = run(python, "-c", "import serialbench; print(serialbench.__file__)", cwd=tmp_path).stdout
    assert where.startswith(str(site))
    assert run(python, "-m", "serialbench", "list", "-b", BENCHMARK, cwd=tmp_path).stdout.split() == [BENCHMARK]
    done = run(python, "-m", "serialbench", "--debug-single-value", "-b", BENCHMARK, cwd=tmp_path)
    (result,) = (tmp_path / "results").glob("*.json")
    assert result.name.startswith("run-") and f"results: {Path('results') / result.name}" in done.stdout.replace(
        str(tmp_path) + "/", "")
    assert json.loads(result.read_text())["metadata"]["serialbench_commit"] == "unknown"
    assert "msgpack/packb " in run(python, "-m", "serialbench", "report", result, cwd=tmp_path).stdout
    assert not (site / "results").exists()


def test_comparing_revisions_without_a_checkout_is_one_line(installed, tmp_path):
    python, *_ = installed
    done = run(python, "-m", "serialbench", "compare", "HEAD~1", "-b", BENCHMARK, cwd=tmp_path, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("serialbench: error: comparing revisions needs a git checkout")


def test_a_source_tree_imports_its_cases_as_the_wheel_does(tmp_path):
    # Without an install of any kind (no site-packages, so no editable hook): the source tree alone on
    # sys.path makes its top-level cases/ `serialbench.cases`, as the wheel's serialbench/cases is.
    script = "import sys; sys.path.insert(0, sys.argv[1]); import serialbench.cases as c; print(c.__path__[0])"
    done = run(sys.executable, "-S", "-c", script, PROJECT_ROOT, cwd=tmp_path)
    assert done.stdout.strip() == str(PROJECT_ROOT / "cases")
