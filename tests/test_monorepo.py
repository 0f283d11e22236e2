"""A package inside its repository (sides/package_trees.py): toyser in `python/toy` of a monorepo
whose other files are not the package, with commits that touch only those (tests/toys.py
make_history_repo). bisect, sweep and compare build the folder alone, a bare repository included;
a range keeps the commits that change the folder; a blob missing elsewhere does not matter; the
work tree's uncommitted change is compared with its HEAD in one command (--patch); a side is never
named by its path; bad input is one line."""

import json
import os
import shutil
import subprocess
import textwrap

import pytest

from tests.helpers import run_serialbench, written_results
from tests.toys import BROKEN_AT, SLOW_AT, TOYSER_CASES, make_history_repo

SETTINGS = ["--rounds", "8", "--min-effect", "10"]
BENCHMARK = "lib/toyser/float32/10K"
FOLDER = "python/toy"
BROKEN = "does not build: RuntimeError: toyser needs a C compiler: cc not found"


@pytest.fixture(scope="module")
def mono(tmp_path_factory):
    root = tmp_path_factory.mktemp("mono")
    shas = make_history_repo(root / "toyrepo", FOLDER)
    (root / "cases").mkdir()
    (root / "cases" / "lib.py").write_text(textwrap.dedent(TOYSER_CASES))
    env = {"XDG_CACHE_HOME": str(root / "cache"), "PIP_NO_INDEX": "1"}
    return {"root": root, "repo": root / "toyrepo", "shas": shas, "labels": [sha[:8] for sha in shas],
            "cases": root / "cases", "env": env, "builds": root / "cache" / "serialbench" / "builds"}


def session(mono, *args, env=None):
    """A command of the toy's cases, its side files removed from the project's results/."""
    done = run_serialbench(*args, "-b", BENCHMARK, "--cases", mono["cases"], *SETTINGS, env=env or mono["env"])
    for path in written_results(done.stderr):
        os.remove(path)
    return done


def builds(mono) -> set[str]:
    return {path.name for path in mono["builds"].iterdir()} if mono["builds"].exists() else set()


@pytest.mark.slow
def test_bisect_of_a_folder_names_the_slow_commit_and_a_second_run_builds_nothing(mono):
    labels, out = mono["labels"], mono["root"] / "bisect.json"
    args = ["bisect", "toyser", mono["shas"][0], "main", "--repo", mono["repo"] / FOLDER, "--json", out]
    done = session(mono, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    # 20 commits change the package; the 20 that touch only the server's notes are not sides.
    assert f"20 commits of toyser from {mono['shas'][0]} to main (first-parent, changing {FOLDER})" in done.stderr
    data = json.loads(out.read_text())
    assert [(s["from"], s["to"], s["verdict"]) for s in data["steps"]] == [
        (labels[SLOW_AT - 1], labels[SLOW_AT], "slower")], done.stdout
    assert data["skipped"] == {labels[BROKEN_AT]: BROKEN}
    assert data["history"] == f"toyrepo {FOLDER} {mono['shas'][0]}..main (first-parent, changing it)"

    built = builds(mono)
    again = session(mono, *args[:-1], mono["root"] / "again.json")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "building" not in again.stderr and builds(mono) == built
    assert json.loads((mono["root"] / "again.json").read_text())["steps"][0]["to"] == labels[SLOW_AT]


@pytest.mark.slow
def test_a_sweep_of_a_bare_repository_with_a_subdirectory_skips_what_breaks_only_the_package(mono, tmp_path):
    bare = tmp_path / "toyrepo.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(mono["repo"]), str(bare)], check=True)
    shas, labels, out = mono["shas"], mono["labels"], tmp_path / "sweep.json"
    done = session(mono, "sweep", f"{bare}@{shas[BROKEN_AT - 1]}..{shas[BROKEN_AT + 1]}#subdirectory={FOLDER}",
                   "--json", out)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert list(data["commits"]) == labels[BROKEN_AT - 1:BROKEN_AT + 2]
    assert data["left_out"] == {labels[BROKEN_AT]: BROKEN}
    assert data["sides"] == [labels[BROKEN_AT - 1], labels[BROKEN_AT + 1]]


@pytest.mark.slow
def test_a_folder_builds_although_a_blob_elsewhere_in_the_repository_is_missing(mono, tmp_path):
    repo = tmp_path / "partial"
    shutil.copytree(mono["repo"], repo)
    blob = subprocess.run(["git", "-C", str(repo), "rev-parse", f"{mono['shas'][SLOW_AT]}:server/main.go"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # a large file the clone did not bring
    env = {**mono["env"], "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = session(mono, "compare", "--base-with", f"{repo / FOLDER}@{mono['shas'][SLOW_AT - 1]}",
                   "--head-with", f"{repo / FOLDER}@{mono['shas'][SLOW_AT]}", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith(BENCHMARK))
    assert row.endswith("slower")


@pytest.mark.slow
def test_patch_compares_the_work_tree_with_its_head_and_names_the_sides_without_paths(mono, tmp_path):
    """The maintainer's question: a long path of a clone, an uncommitted fix (three copies fewer), a
    git-ignored file the user's tree holds (never built in): faster, sides named `(commit ...)` and
    `(work tree)`, every table line within 160 characters."""
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "checkouts" / "of" / "the" / "library"
    deep.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", str(mono["repo"]), str(deep)], check=True)
    module = deep / FOLDER / "toyser" / "__init__.py"
    module.write_text(module.read_text().replace("range(3)", "range(0)"))
    (deep / FOLDER / "toyser" / "_generated.py").write_text("raise ImportError('the user tree leaked in')\n")
    env = {**mono["env"], "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = tmp_path / "patch.json"
    done = session(mono, "compare", "--patch", deep / FOLDER, "--json", out, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    head = subprocess.run(["git", "-C", str(deep), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    data = json.loads(out.read_text())
    assert (data["base"], data["head"]) == (f"toyser 1.0 (commit {head[:8]})", "toyser 1.0 (work tree)")
    assert data["benchmarks"][0]["verdict"] == "faster"
    assert max(len(line) for line in done.stdout.splitlines()) <= 160
    assert "a-rather-long" not in done.stdout

    # --base-label and --head-label name them outright; the side files' names stay short.
    labelled = session(mono, "compare", "--patch", f"{deep / FOLDER}@HEAD", "--base-label", "before",
                       "--head-label", "the fix", env=env)
    assert labelled.returncode == 0, labelled.stdout + labelled.stderr
    assert "BASE before" in labelled.stdout and "HEAD the fix" in labelled.stdout
    names = [line.rsplit("/", 1)[1] for line in labelled.stderr.splitlines() if " results: " in line]
    assert names == ["compare-before-the_fix-base.json", "compare-before-the_fix-head.json"]


@pytest.mark.slow
@pytest.mark.parametrize("case, words", [
    ("no package in the folder", "server holds no package at"),
    ("no package at the top", "its top level holds no package at"),
    ("a folder outside the repository", "is outside the repository"),
    ("the work tree of a bare repository", "is a bare repository: it has no work tree"),
    ("not a clone", "is not a folder of a git clone"),
])
def test_bad_input_is_one_line_and_exit_2_with_nothing_built(mono, tmp_path, case, words):
    repo, head = mono["repo"], mono["shas"][-1]
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    argv = {"no package in the folder": ["compare", "--base-with", f"{repo / 'server'}@{head}",
                                         "--head-with", f"{repo / FOLDER}@{head}"],
            "no package at the top": ["compare", "--base-with", f"{repo}@{head}", "--head-with",
                                      f"{repo / FOLDER}@{head}"],
            "a folder outside the repository": ["compare", "--base-with", f"{bare}@{head}#subdirectory=../x",
                                                "--head-with", f"{repo / FOLDER}@{head}"],
            "the work tree of a bare repository": ["compare", "--patch", bare],
            "not a clone": ["compare", "--patch", tmp_path]}[case]
    env = {**mono["env"], "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = session(mono, *argv, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "cache").exists()


@pytest.mark.slow
def test_patch_of_a_clean_work_tree_is_an_a_a_named_as_the_work_tree(mono, tmp_path):
    """With no uncommitted change, both sides build the same files; HEAD is still named the work tree
    (its build its own cache entry), and the row is no change."""
    env = {**mono["env"], "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = tmp_path / "clean.json"
    done = session(mono, "compare", "--patch", mono["repo"] / FOLDER, "--json", out, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    head = subprocess.run(["git", "-C", str(mono["repo"]), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    data = json.loads(out.read_text())
    assert (data["base"], data["head"]) == (f"toyser 1.0 (commit {head[:8]})", "toyser 1.0 (work tree)")
    assert data["benchmarks"][0]["verdict"] in ("no change", "too noisy to tell")
