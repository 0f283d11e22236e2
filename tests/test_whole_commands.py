"""Whole commands in this process, as benchstat's main_test.go runs benchstat: the program's
main(argv, stdout, stderr) on the files of tests/testdata/ (made by `python -m tests.hand_built`),
its stdout and stderr against tests/golden/commands/, and the files it writes against their own.
Nothing is timed and no process starts.

When a change of output is intended, regenerate and review:

    SERIALBENCH_GOLDEN=update python -m pytest tests/test_whole_commands.py
    git diff tests/golden/commands/
"""

import shutil

import pytest

from tests.helpers import GOLDEN, PROJECT_ROOT, check_golden, in_process

TESTDATA = PROJECT_ROOT / "tests" / "testdata"
EXPECTED = GOLDEN / "commands"


@pytest.fixture
def testdata(tmp_path, monkeypatch):
    """A copy of tests/testdata/ as the working directory (a command may write beside its inputs)."""
    shutil.copytree(TESTDATA, tmp_path / "testdata")
    monkeypatch.chdir(tmp_path / "testdata")
    return tmp_path / "testdata"


def check_command(name: str, *argv, status: int = 0, files: tuple[str, ...] = ()):
    """Run the command, and check its exit status, stdout, stderr and the files it wrote (by name)."""
    done = in_process(*argv)
    assert done.returncode == status, done.stderr
    check_golden(f"{name}.stdout", done.stdout, EXPECTED)
    check_golden(f"{name}.stderr", done.stderr, EXPECTED)
    for file in files:
        check_golden(f"{name}.{file}", open(file).read(), EXPECTED)
    return done


def test_report_of_one_file_with_its_memory_companion(testdata):
    check_command("report", "report", "run.json", "--markdown", "out.md", "--json", "out.json",
                  files=("out.md", "out.json"))


def test_report_of_a_compare_sessions_two_files_paired(testdata):
    check_command("report-session", "report", "compare-base.json", "compare-head.json", "--json", "out.json",
                  files=("out.json",))


def test_sweep_merges_its_parts(testdata):
    check_command("sweep-merge", "sweep", "--merge", "sweep-part-1.json", "sweep-part-2.json", "--json", "out.json",
                  "--markdown", "out.md", files=("out.json", "out.md"))


def test_memory_of_a_file_already_measured_shows_its_figures(testdata):
    before = (testdata / "run.memory.json").read_text()
    check_command("memory", "memory", "run.json", "--json", "out.json", files=("out.json",))
    assert (testdata / "run.memory.json").read_text() == before  # never overwritten


def test_verify_of_a_small_selection(testdata):
    check_command("verify", "verify", "-b", "msgpack/packb", "-b", "kserve-json/json", "--input", "float32,png",
                  "--tier", "1K", "--no-edge", "--json", "out.json", files=("out.json",))


def test_an_existing_output_is_refused_before_any_work(testdata):
    (testdata / "taken.json").write_text("kept")
    check_command("refused", "report", "run.json", "--json", "taken.json", status=2)
    assert (testdata / "taken.json").read_text() == "kept"


def test_every_reader_reads_the_files_gzipped(testdata):
    """pyperf reads .json.gz; so does every serialbench reader: report (with the memory companion), the
    pairing of a session's two files, sweep --merge, memory's check for a companion, and html."""
    import gzip

    plain = {"report": in_process("report", "run.json"),
             "session": in_process("report", "compare-base.json", "compare-head.json"),
             "merge": in_process("sweep", "--merge", "sweep-part-1.json", "sweep-part-2.json")}
    for path in sorted(testdata.glob("*.json")):
        path.with_name(path.name + ".gz").write_bytes(gzip.compress(path.read_bytes()))
        path.unlink()
    zipped = {"report": in_process("report", "run.json.gz"),
              "session": in_process("report", "compare-base.json.gz", "compare-head.json.gz"),
              "merge": in_process("sweep", "--merge", "sweep-part-1.json.gz", "sweep-part-2.json.gz")}
    for what, done in zipped.items():
        assert done.returncode == plain[what].returncode == 0, done.stderr
        assert done.stdout == plain[what].stdout.replace(".json", ".json.gz"), what
    assert "memory per op: run.memory.json.gz" in zipped["report"].stdout
    done = in_process("memory", "run.json.gz")
    assert done.returncode == 0 and "run.memory.json.gz exists and is never overwritten" in done.stderr
    assert not (testdata / "run.memory.json").exists()
    done = in_process("html", testdata, "-o", testdata / "site")
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in (testdata / "site").glob("*.html")) == [
        "bisect.html", "check-harness.html", "compare.html", "index.html", "run-rounds.html", "run.html",
        "sweep-part-1.html", "sweep-part-2.html"]
