"""Sides from a library's git history (sides/commits.py): the toy library toyser's twenty commits
(tests/toys.py make_history_repo), built offline by its in-tree backend; bisect to the commit that
added copies, the commit that does not build named as skipped, builds cached, every build from a
clean tree of its own, sweep and compare over commits, and bad input refused before anything is built."""

import json
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

from serialbench.sides import commits
from tests.helpers import run_serialbench, written_results
from tests.toys import BROKEN_AT, MERGE_AT, SLOW_AT, TOYSER_CASES, make_history_repo

SETTINGS = ["--rounds", "8", "--min-effect", "10"]
BENCHMARK = "lib/toyser/float32/10K"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    root = tmp_path_factory.mktemp("history")
    shas = make_history_repo(root / "toyser")
    (root / "cases").mkdir()
    (root / "cases" / "lib.py").write_text(textwrap.dedent(TOYSER_CASES))
    env = {"XDG_CACHE_HOME": str(root / "cache"), "PIP_NO_INDEX": "1"}
    return {"root": root, "repo": root / "toyser", "shas": shas, "labels": [sha[:8] for sha in shas],
            "cases": root / "cases", "env": env, "builds": root / "cache" / "serialbench" / "builds"}


def without_results(done, history):
    """The process, its side files removed from the project's results/ (a test leaves nothing there)."""
    for path in written_results(done.stderr):
        (history["root"] / "results").mkdir(exist_ok=True)
        shutil.move(path, history["root"] / "results")
    return done


def builds(history) -> set[str]:
    return {path.name for path in history["builds"].iterdir()} if history["builds"].exists() else set()


@pytest.mark.slow
def test_bisect_names_the_commit_that_added_copies_and_the_one_that_does_not_build(history):
    labels, out = history["labels"], history["root"] / "bisect.json"
    args = ["bisect", "toyser", history["shas"][0], "main", "--repo", history["repo"], "-b", BENCHMARK,
            "--cases", history["cases"], *SETTINGS, "--json", out]
    done = run_serialbench(*args, env=history["env"])
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert [(s["from"], s["to"], s["verdict"]) for s in data["steps"]] == [
        (labels[SLOW_AT - 1], labels[SLOW_AT], "slower")], done.stdout
    assert len(data["sessions"]) <= 6
    assert data["order"] == labels and data["commits"][labels[MERGE_AT]]["subject"].endswith("merge the side branch")
    assert data["skipped"] == {labels[BROKEN_AT]: "does not build: RuntimeError: toyser needs a C compiler: "
                                                  "cc not found"}
    lines = done.stdout.splitlines()
    answer = next(index for index, line in enumerate(lines) if line.startswith(f"{BENCHMARK}: changed at"))
    assert lines[answer + 1].startswith(f"  commit {labels[SLOW_AT]} ")
    assert lines[answer + 1].endswith("encode: copy the body three more times; files: REVISION, toyser/__init__.py")
    assert f"skipped: {labels[BROKEN_AT]} (revision 9: build: needs a C compiler): does not build: " in done.stdout

    # The second bisect over the same range builds nothing (failures are cached too) and finds the same.
    built = builds(history)
    again = run_serialbench(*args[:-1], history["root"] / "again.json", env=history["env"])
    assert again.returncode == 0, again.stdout + again.stderr
    assert "building" not in again.stderr and builds(history) == built
    assert json.loads((history["root"] / "again.json").read_text())["steps"][0]["to"] == labels[SLOW_AT]


@pytest.mark.slow
def test_compare_of_a_commit_against_its_parent_confirms_it(history):
    repo, shas = history["repo"], history["shas"]
    done = without_results(run_serialbench("compare", "--base-with", f"{repo}@{shas[SLOW_AT - 1]}", "--head-with",
                                           f"{repo}@{shas[SLOW_AT]}", "-b", BENCHMARK, "--cases", history["cases"],
                                           *SETTINGS, env=history["env"]), history)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"toyser 1.0 (commit {history['labels'][SLOW_AT]})" in done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith(BENCHMARK))
    assert "slower" in row


@pytest.mark.slow
def test_a_sweep_of_a_range_times_each_commit_and_names_the_one_that_does_not_build(history):
    repo, shas, labels = history["repo"], history["shas"], history["labels"]
    out = history["root"] / "sweep.json"
    done = without_results(run_serialbench("sweep", f"{repo}@{shas[BROKEN_AT - 1]}..{shas[BROKEN_AT + 2]}", "-b",
                                           BENCHMARK, "--cases", history["cases"], *SETTINGS, "--json", out,
                                           env=history["env"]), history)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    wanted = labels[BROKEN_AT - 1:BROKEN_AT + 3]
    assert data["sides"] == [label for label in wanted if label != labels[BROKEN_AT]]
    assert list(data["commits"]) == wanted
    assert data["left_out"] == {labels[BROKEN_AT]: "does not build: RuntimeError: toyser needs a C compiler: "
                                                   "cc not found"}
    assert data["history"] == f"toyser {shas[BROKEN_AT - 1]}..{shas[BROKEN_AT + 2]} (first-parent)"


@pytest.mark.slow
def test_each_commit_is_built_from_a_clean_tree_of_its_own(history, tmp_path, monkeypatch):
    """The git-ignored module a build generates (as Cython's .c) never reaches another commit's build,
    nor does one lying in the user's work tree."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    (history["repo"] / "toyser" / "_generated.py").write_text("MADE_AT = 'the work tree'\n")
    said = []
    try:
        made = {index: commits.wheel(commits.commit_of(f"{history['repo']}@{history['shas'][index]}"),
                                     sys.executable, commits.DECLARED_ONLY, said.append) for index in (2, 3)}
    finally:
        (history["repo"] / "toyser" / "_generated.py").unlink()
    for index, path in made.items():
        with zipfile.ZipFile(path) as wheel:
            assert wheel.read("toyser/_generated.py").decode() == f"MADE_AT = '{index}'\n"
    assert len(said) == 2
    again = commits.wheel(commits.commit_of(f"{history['repo']}@{history['shas'][2]}"), sys.executable,
                          commits.DECLARED_ONLY, said.append)
    assert again == made[2] and len(said) == 2  # cached: nothing said, nothing built


@pytest.mark.slow
def test_a_tool_the_commit_does_not_declare_comes_from_build_with_and_a_step_runs_before_the_build(
        history, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    tool = tmp_path / "toytool"
    (tool / "toytool").mkdir(parents=True)
    (tool / "toytool" / "__init__.py").write_text("")
    (tool / "pyproject.toml").write_text((history["repo"] / "pyproject.toml").read_text().replace("toyser", "toytool"))
    (tool / "backend.py").write_text((history["repo"] / "backend.py").read_text().replace("toyser", "toytool"))
    for name in ("VERSION", "REVISION"):
        (tool / name).write_text("1.0\n")
    repo = tmp_path / "needs-tool"
    subprocess.run(["git", "clone", "-q", str(history["repo"]), str(repo)], check=True)
    backend = (repo / "backend.py").read_text().replace("import os\n", "import os\nimport toytool  # undeclared\n")
    (repo / "backend.py").write_text(backend)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qam",
                    "the backend imports toytool"], check=True)
    commit = commits.commit_of(f"{repo}@HEAD")
    with pytest.raises(commits.BuildFailed, match="No module named 'toytool'"):
        commits.wheel(commit, sys.executable, commits.DECLARED_ONLY, print)
    # The step runs in the commit's tree with the tools' environment first on PATH.
    build = commits.Build(tools=(str(tool),), steps=("python -c 'import toytool' && echo 'STEP = 1' > toyser/step.py",))
    made = commits.wheel(commit, sys.executable, build, print)
    with zipfile.ZipFile(made) as wheel:
        assert wheel.read("toyser/step.py") == b"STEP = 1\n"


@pytest.mark.slow
@pytest.mark.parametrize("case, words", [
    ("not a repository", "is not a git repository"),
    ("no such revision", "'v9.9' is not a revision of"),
    ("an empty range", "holds no commit after"),
    ("another package", "builds toyser, not ujson"),
])
def test_bad_input_is_one_line_and_exit_2_with_nothing_built(history, tmp_path, case, words):
    repo, first = history["repo"], history["shas"][0]
    env = {**history["env"], "XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = {"not a repository": ["bisect", "toyser", "v1", "v2", "--repo", tmp_path],
            "no such revision": ["bisect", "toyser", "v9.9", "main", "--repo", repo],
            "an empty range": ["sweep", f"{repo}@main..main"],
            "another package": ["bisect", "ujson", first, "main", "--repo", repo]}[case]
    done = run_serialbench(*argv, "-b", BENCHMARK, "--cases", history["cases"], env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "cache").exists()


def test_a_commit_spec_is_a_directory_at_a_revision_and_a_pip_url_is_not(tmp_path):
    assert commits.split_spec(f"{tmp_path}@v1.2.0") == (str(tmp_path), "v1.2.0")
    assert commits.split_spec("msgpack @ https://example.com/msgpack.tar.gz") is None
    assert commits.split_spec("msgpack==1.1.0") is None
    assert commits.is_range(f"{tmp_path}@v1.1.0..v1.2.0") and not commits.is_range(f"{tmp_path}@v1.1.0")
    assert commits.label(f"{tmp_path}@{'9f9bdae0773166e8ed50dfdd1ed13cc4296819ce'}") == "9f9bdae0"
    assert commits.label(f"{tmp_path}@v1.2.0") == "v1.2.0"


def test_the_cause_of_a_failed_build_is_the_line_that_names_what_is_missing():
    output = textwrap.dedent("""\
        error: subprocess-exited-with-error
          × Building wheel for msgpack (pyproject.toml) did not run successfully.
          │ exit code: 1
          ╰─> [30 lines of output]
              running build_ext
              gcc -O3 -c msgpack/_cmsgpack.c -o build/temp/_cmsgpack.o
              cc1: fatal error: msgpack/_cmsgpack.c: No such file or directory
              compilation terminated.
              error: command '/usr/bin/gcc' failed with exit code 1
              [end of output]
          note: This error originates from a subprocess, and is likely not a problem with pip.
          ERROR: Failed building wheel for msgpack
        ERROR: Failed to build one or more wheels
        """)
    assert commits.cause(output) == "cc1: fatal error: msgpack/_cmsgpack.c: No such file or directory"
    assert commits.cause("warning: x\nerror: command 'cc' failed with exit code 1\n") == \
        "error: command 'cc' failed with exit code 1"


@pytest.mark.slow
def test_a_sweep_of_the_cases_own_revisions(toy_repo, tmp_path):
    """sweep --revisions A..B: the revisions of the repository holding the cases, each from a worktree."""
    out = tmp_path / "sweep.json"
    done = run_serialbench("sweep", "--revisions", "HEAD~1..HEAD", "--cases", toy_repo / "cases", "-b", "toy/grows",
                           "--tier", "10K", *SETTINGS, "--json", out)
    for path in written_results(done.stderr):
        shutil.move(path, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    shas = subprocess.run(["git", "-C", str(toy_repo), "rev-list", "--reverse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.split()
    assert data["sides"] == [sha[:8] for sha in shas]
    assert [data["commits"][side]["subject"] for side in data["sides"]] == ["one copy per op", "four copies per op"]
    (row,) = data["benchmarks"]
    assert row["name"] == "toy/grows/float32/10K" and row["steps"][0]["verdict"] == "slower"
