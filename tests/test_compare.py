"""compare between two commits of a throwaway git repository of cases: a real run, small settings."""

import subprocess
import textwrap

import pytest

from serialbench.compare import checkout, compare_files
from tests.helpers import assert_one_line_usage_error, serialbench

CASE_MODULE = '''
from serialbench.case import Case


def steady(payload):
    return payload.tensors[0].value.tobytes


def grows(payload):
    array = payload.tensors[0].value

    def op():
        {body}

    return op


CASES = [
    Case("toy", "steady", ("float32",), steady),
    Case("toy", "grows", ("float32",), grows),
]
'''
ONE_COPY = "return array.tobytes()"
FOUR_COPIES = "array.tobytes(); array.tobytes(); array.tobytes(); return array.tobytes()"
SMALL = ["--rounds", "12", "--values", "5", "--min-time", "0.01"]  # small, yet robust to 2 spoiled rounds


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def commit_cases(repo, body, message):
    (repo / "cases" / "toy.py").write_text(textwrap.dedent(CASE_MODULE).replace("{body}", body))
    git(repo, "add", "cases/toy.py")
    git(repo, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def toy_repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("toy")
    (repo / "cases").mkdir()
    git(repo, "init", "-q")
    commit_cases(repo, ONE_COPY, "one copy per op")
    commit_cases(repo, FOUR_COPIES, "four copies per op")
    return repo


@pytest.fixture(scope="module")
def compared(toy_repo):
    done = serialbench("compare", "HEAD~1", "HEAD", "--cases", toy_repo / "cases", "-b", "toy/*",
                       "--tier", "10K", "--min-effect", "10", *SMALL)
    stderr = done.stderr.decode()
    written = [line.split(" results: ", 1)[1] for line in stderr.splitlines() if " results: " in line]
    yield done, written
    for path in written:
        __import__("os").remove(path)


def row(stdout: str, name: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith(name))


def test_the_case_doing_more_work_is_slower_and_the_unchanged_one_no_change(compared):
    done, _ = compared
    stdout = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert row(stdout, "toy/grows/float32/10K").endswith("slower")
    assert row(stdout, "toy/steady/float32/10K").endswith("no change")


def test_both_result_files_are_kept_and_give_the_same_verdicts(compared):
    _, written = compared
    assert len(written) == 2 and "results/compare-" in written[0]
    rows = {r.name: r.verdict for r in compare_files(*written, min_effect=0.10)}
    assert rows["toy/grows/float32/10K"].verdict == "slower"
    assert rows["toy/grows/float32/10K"].change > 1.0  # four copies instead of one
    assert rows["toy/steady/float32/10K"].verdict == "no change"


def test_the_work_tree_snapshot_has_uncommitted_changes_and_is_removed(toy_repo):
    toy = toy_repo / "cases" / "toy.py"
    committed = toy.read_text()
    (toy_repo / "cases" / "extra.py").write_text("CASES = []\n")
    toy.write_text(committed + "\n# edited\n")
    try:
        with checkout([None], ["HEAD"], [str(toy_repo / "cases")]) as (tree,):
            snapshot = tree.case_dirs[0]
            assert tree.dirty
            assert open(f"{snapshot}/toy.py").read().endswith("# edited\n")
            assert open(f"{snapshot}/extra.py").read() == "CASES = []\n"
    finally:
        toy.write_text(committed)
        (toy_repo / "cases" / "extra.py").unlink()
    assert not __import__("os").path.exists(snapshot)
    listed = subprocess.run(["git", "-C", str(toy_repo), "worktree", "list"], capture_output=True, text=True).stdout
    assert len(listed.strip().splitlines()) == 1


def test_an_unknown_revision_is_one_line_and_exit_status_2(toy_repo):
    done = serialbench("compare", "no-such-branch", "--cases", toy_repo / "cases", "-b", "toy/*")
    assert "no-such-branch" in assert_one_line_usage_error(done)


def test_calibrate_wraps_every_case_under_its_prefix_and_keeps_its_bytes(tmp_path):
    from serialbench.calibrate import FORMAT_PREFIX, write_case_modules
    from serialbench.case import load_case_module
    from serialbench.inputs import make_payload

    unchanged, _, slowed = write_case_modules(tmp_path, [0.5])
    for directory in (unchanged, slowed):
        cases = {case.label: case for case in load_case_module(directory / "calibrate_cases.py")}
        tobytes = cases[FORMAT_PREFIX + "baseline/tobytes"]
        payload = make_payload("float32", "1K")
        assert tobytes.setup(payload)() == payload.tensors[0].value.tobytes()
