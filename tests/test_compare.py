"""compare between sides: two git revisions of a throwaway repository of cases, two versions of a
library made in the test, two interpreters; the gates and the tables. Local paths only: no test
reaches a package index."""

import json
import os
import signal
import subprocess
import sys

import pyperf
import pytest

from serialbench.sides import overlays
from serialbench.sides.worktrees import checkout
from serialbench.verdicts import paired as comparison
from serialbench.verdicts import vocabulary
from serialbench.verdicts.file_changes import compare_files
from tests.helpers import PROJECT_ROOT, assert_one_line_usage_error, run_serialbench, written_results
from tests.toys import broken_wheel

# Few fixed rounds, and a minimum effect that an unchanged case cannot reach by noise on a loaded
# machine: the verdicts these tests assert hold whatever else the machine runs.
SMALL = ["--rounds", "8", "--min-effect", "10", "--tier", "10K"]


def assert_error_line(done) -> str:
    """Exit status 2, no traceback, and the error as the last line (progress lines may precede it)."""
    stderr = done.stderr if isinstance(done.stderr, str) else done.stderr.decode()
    assert done.returncode == 2, stderr
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("serialbench: error: ") and sum("error" in line for line in stderr.splitlines()) == 1
    return last


@pytest.fixture(scope="module")
def compared(toy_repo):
    done = run_serialbench("compare", "HEAD~1", "HEAD", "--cases", toy_repo / "cases", "-b", "toy/*", *SMALL,
                           "--fail-on", "slower")
    written = written_results(done.stderr)
    yield done, written
    for path in written:
        os.remove(path)


def row(stdout: str, name: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith(name))


@pytest.mark.slow
def test_the_case_doing_more_work_is_slower_and_the_unchanged_one_is_not_flagged(compared):
    done, _ = compared
    assert row(done.stdout, "toy/grows/float32/10K").endswith("slower"), done.stdout + done.stderr
    assert row(done.stdout, "toy/steady/float32/10K").endswith(("no change", "too noisy to tell"))


@pytest.mark.slow
def test_fail_on_slower_exits_1_and_names_the_slower_benchmark(compared):
    done, _ = compared
    assert done.returncode == 1
    # the selection (median of the two benchmarks, one four times slower) is slower too
    assert done.stdout.splitlines()[-1] == "--fail-on slower: 2 slower: toy/grows/float32/10K, selection"


@pytest.mark.slow
def test_both_result_files_are_paired_and_give_the_same_verdicts(compared):
    _, written = compared
    assert len(written) == 2 and "results/compare-" in written[0]
    rows, selection, paired, _ = compare_files(*written, min_effect=0.10)
    verdicts = {r.name: r.verdict for r in rows}
    assert paired
    assert verdicts["toy/grows/float32/10K"].word == "slower"
    assert verdicts["toy/grows/float32/10K"].change > 1.0  # four copies instead of one
    runs = pyperf.BenchmarkSuite.load(written[0]).get_benchmark("toy/grows/float32/10K").get_runs()
    assert [run.get_metadata()["serialbench_round"] for run in runs] == list(range(8))


@pytest.mark.slow
def test_a_gate_on_an_unchanged_selection_passes(toy_repo):
    done = run_serialbench("compare", "HEAD~1", "HEAD", "--cases", toy_repo / "cases", "-b", "toy/steady", *SMALL,
                           "--fail-on", "changed")
    for path in written_results(done.stderr):
        os.remove(path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_the_work_tree_snapshot_has_uncommitted_changes_and_is_removed(toy_repo):
    toy = toy_repo / "cases" / "toy.py"
    committed = toy.read_text()
    (toy_repo / "cases" / "extra.py").write_text("CASES = []\n")
    toy.write_text(committed + "\n# edited\n")
    try:
        with checkout([None], ["HEAD"], [str(toy_repo / "cases")]) as (side,):
            snapshot = side.case_dirs[0]
            assert side.dirty
            assert open(f"{snapshot}/toy.py").read().endswith("# edited\n")
            assert open(f"{snapshot}/extra.py").read() == "CASES = []\n"
    finally:
        toy.write_text(committed)
        (toy_repo / "cases" / "extra.py").unlink()
    assert not os.path.exists(snapshot)
    listed = subprocess.run(["git", "-C", str(toy_repo), "worktree", "list"], capture_output=True, text=True).stdout
    assert len(listed.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_benchmark_whose_budget_ends_at_a_look_is_judged_there_and_its_files_replay_it(toy_repo):
    # A budget that no op fits: every benchmark's first look, at 8 rounds, is its last and final.
    done = run_serialbench("compare", "HEAD~1", "HEAD", "--cases", toy_repo / "cases", "-b", "toy/*", "--tier", "10K",
                           "--min-effect", "10", "--max-rounds", "16", "--benchmark-budget", "1e-9")
    written = written_results(done.stderr)
    try:
        assert done.returncode == 0, done.stderr
        assert "2 benchmarks, 8 rounds in" in done.stdout, done.stdout
        assert done.stdout.splitlines()[-1].startswith("2 benchmarks judged at the last look that 1e-09 s of calls")
        bench = pyperf.BenchmarkSuite.load(written[1]).get_benchmark("toy/steady/float32/10K")
        assert {run.get_metadata()["serialbench_budget_rounds"] for run in bench.get_runs()} == {8}
        assert len(bench.get_runs()) == 8
        rows, _, paired, _ = compare_files(*written, min_effect=0.10)
        assert paired and all(r.verdict.rounds == 8 for r in rows)
        shown = {line.split()[0]: line.split()[-1] for line in done.stdout.splitlines() if line.startswith("toy/")}
        assert {r.name: r.verdict.word.split()[-1] for r in rows} == shown
    finally:
        for path in written:
            os.remove(path)


@pytest.mark.slow
@pytest.mark.parametrize("settings", [["--rounds", "8"], ["--max-rounds", "128", "--min-effect", "3"]])
def test_report_of_the_side_files_replays_the_sessions_verdicts_intervals_and_levels(toy_repo, tmp_path, settings):
    """The unchanged case sits near the threshold (its verdict depends on the looks' shares of the error);
    report of the two files, given no setting, must print what compare printed: it reads the session's
    looks and minimum effect from the files (with --rounds 8 the default looks gave it 98.75% where
    compare's one look gave 90%)."""
    made = {name: tmp_path / f"{name}.json" for name in ("compare", "report")}
    done = run_serialbench("compare", "HEAD~1", "HEAD", "--cases", toy_repo / "cases", "-b", "toy/*",
                           "--tier", "1K,10K", *settings, "--json", made["compare"])
    written = written_results(done.stderr)
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        replayed = run_serialbench("report", *written, "--json", made["report"])
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    finally:
        for path in written:
            os.remove(path)
    keys = ("name", "change", "low", "high", "level", "detectable", "verdict", "rounds")
    compared, reported = (json.loads(made[name].read_text()) for name in ("compare", "report"))
    assert reported["min_effect"] == compared["min_effect"] and reported["paired"]
    assert [{key: row[key] for key in keys} for row in reported["benchmarks"]] == \
        [{key: row[key] for key in keys} for row in compared["benchmarks"]]
    assert reported["selection"] == compared["selection"]


@pytest.mark.slow
def test_a_budget_that_is_not_a_positive_number_of_seconds_is_refused_before_any_work():
    done = subprocess.run([sys.executable, "-m", "serialbench", "compare", "HEAD", "--benchmark-budget", "0",
                           "-b", "baseline/*"], cwd=PROJECT_ROOT, capture_output=True)
    assert "--benchmark-budget: give a positive number of seconds, not 0" in assert_one_line_usage_error(done)


@pytest.mark.slow
def test_an_unknown_revision_is_one_line_and_exit_status_2(toy_repo):
    done = subprocess.run([sys.executable, "-m", "serialbench", "compare", "no-such-branch", "--cases",
                           str(toy_repo / "cases"), "-b", "toy/*"], cwd=PROJECT_ROOT, capture_output=True)
    assert "no-such-branch" in assert_one_line_usage_error(done)


@pytest.mark.slow
def test_without_a_revision_or_an_environment_compare_says_what_to_give():
    done = subprocess.run([sys.executable, "-m", "serialbench", "compare", "-b", "baseline/*"], cwd=PROJECT_ROOT,
                          capture_output=True)
    assert "--base-with" in assert_one_line_usage_error(done)


# --- environments: a library at two versions ------------------------------------------------------

@pytest.fixture(scope="module")
def library_compared(library):
    done = run_serialbench("compare", "--base-with", library["v1"], "--head-with", library["v2"],
                           "--cases", library["cases"], "-b", "lib/*", *SMALL, env=library["env"])
    written = written_results(done.stderr)
    yield done, written
    for path in written:
        os.remove(path)


@pytest.mark.slow
def test_a_library_version_doing_more_work_is_slower_and_an_unrelated_case_is_not_changed(library_compared):
    done, _ = library_compared
    assert done.returncode == 0, done.stdout + done.stderr
    assert row(done.stdout, "lib/toylib/float32/10K").endswith("slower")
    assert row(done.stdout, "lib/plain/float32/10K").endswith(("no change", "too noisy to tell"))


@pytest.mark.slow
def test_the_table_and_the_result_files_name_each_side(library_compared):
    done, written = library_compared
    header = next(line for line in done.stdout.splitlines() if line.startswith("benchmark"))
    assert "BASE toylib 1.0" in header and "HEAD toylib 2.0" in header
    for path, version in zip(written, ("1.0", "2.0")):
        run = pyperf.BenchmarkSuite.load(path).get_benchmark("lib/toylib/float32/10K").get_runs()[0]
        metadata = run.get_metadata()
        assert metadata["serialbench_side"] == f"toylib {version}"
        assert metadata["serialbench_side_specs"].endswith(f"toylib-{version}-py3-none-any.whl")
        assert metadata["toylib_version"] == version  # what the worker imported
        assert f"toylib_{version}" in os.path.basename(path)


@pytest.mark.slow
def test_an_overlay_is_cached_and_a_second_call_installs_nothing(library, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", library["env"]["XDG_CACHE_HOME"])
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    said = []
    first = overlays.overlay([str(library["v1"])], sys.executable, said.append)
    second = overlays.overlay([str(library["v1"])], sys.executable, said.append)
    assert second == (first[0], ["toylib 1.0"], False)
    assert not any("installing" in line for line in said[1 if first[2] else 0:])


@pytest.mark.slow
def test_a_local_checkout_is_installed_again_when_its_files_change(tmp_path):
    checkout_dir = tmp_path / "toylib"
    checkout_dir.mkdir()
    (checkout_dir / "pyproject.toml").write_text("[project]\nname = 'toylib'\nversion = '3.0'\n")
    identity = overlays.interpreter_identity(sys.executable)
    before = overlays.overlay_key([str(checkout_dir)], identity)
    assert overlays.overlay_key([str(checkout_dir)], identity) == before
    (checkout_dir / "toylib.py").write_text("VALUE = 1\n")
    assert overlays.overlay_key([str(checkout_dir)], identity) != before


@pytest.mark.slow
def test_a_spec_that_cannot_be_installed_is_one_line_naming_it(library):
    done = subprocess.run([sys.executable, "-m", "serialbench", "compare", "--head-with", "no-such-package-xyz==1",
                           "-b", "baseline/tobytes/float32/1K"], cwd=PROJECT_ROOT, capture_output=True,
                          env={**os.environ, **library["env"]})
    assert "cannot install 'no-such-package-xyz==1'" in assert_error_line(done)


@pytest.mark.slow
def test_two_interpreters_give_a_table(library):
    done = run_serialbench("compare", "--base-python", sys.executable, "--head-python", sys.executable,
                           "-b", "baseline/tobytes/float32/1K", "--rounds", "3")
    for path in written_results(done.stderr):
        os.remove(path)
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if line.startswith("benchmark"))
    assert f"BASE python {sys.version.split()[0]}" in header


@pytest.mark.slow
def test_an_interpreter_without_numpy_is_refused_before_any_timing(tmp_path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    done = subprocess.run([sys.executable, "-m", "serialbench", "compare", "--head-python",
                           str(tmp_path / "bare" / "bin" / "python"), "-b", "baseline/tobytes/float32/1K"],
                          cwd=PROJECT_ROOT, capture_output=True)
    line = assert_error_line(done)
    assert "HEAD: the environment" in line and "has no numpy" in line and "-m pip install numpy==" in line
    assert "round" not in done.stderr.decode()  # refused before any timing


# --- the tables, as exact text from hand-built data -----------------------------------------------

def verdict(change, low, high, word, rounds=16, detectable=0.031):
    return vocabulary.Verdict(change=change, low=low, high=high, level=0.95, detectable=detectable, word=word,
                         rounds=rounds, p_value=0.5)


ROWS = [
    comparison.Compared("triton-binary/join/int32x3/1M", 3.78e-3, 1.91e-3,
                        verdict(-0.4947, -0.51, -0.48, "faster", 16)),
    comparison.Compared("triton-binary/join/float32/1K", 5.5e-6, 5.51e-6,
                        verdict(0.001, -0.006, 0.008, "no change", 8)),
    comparison.Compared("msgpack/packb/png/1M", 2.0e-4, 2.1e-4,
                        verdict(0.03, -0.01, 0.07, "too noisy to tell", 32, 0.09)),
]


@pytest.mark.slow
def test_markdown_is_written_and_never_over_an_existing_file(tmp_path):
    existing = tmp_path / "table.md"
    existing.write_text("kept")
    done = subprocess.run([sys.executable, "-m", "serialbench", "compare", "HEAD", "--markdown", str(existing)],
                          cwd=PROJECT_ROOT, capture_output=True)
    assert "never overwritten" in assert_one_line_usage_error(done)
    assert existing.read_text() == "kept"


def test_failing_rows_for_each_gate():
    assert comparison.failing(ROWS, "slower") == []
    assert comparison.failing(ROWS, "changed") == ["triton-binary/join/int32x3/1M"]
    assert comparison.failing(ROWS, None) == []
    slower_selection = verdict(0.03, 0.02, 0.04, "slower")
    assert comparison.failing(ROWS, "slower", slower_selection) == ["selection"]  # the whole selection gates too


def test_calibrate_wraps_every_case_under_its_prefix_and_keeps_its_bytes(tmp_path):
    from serialbench.catalog.discovery import load_case_module
    from serialbench.catalog.inputs import make_payload
    from serialbench.measure.slowdown import FORMAT_PREFIX, write_case_modules

    unchanged, _, slowed = write_case_modules(tmp_path, [0.5])
    for directory in (unchanged, slowed):
        cases = {case.label: case for case in load_case_module(directory / "calibrate_cases.py")}
        tobytes = cases[FORMAT_PREFIX + "baseline/tobytes"]
        payload = make_payload("float32", "1K")
        assert tobytes.setup(payload)() == payload.tensors[0].value.tobytes()


def summarise(a_a, a_b, slowdowns, min_effect, landed):
    """calibrate's table and counts, as the command prints them above its closing line: its variants named
    without their prefix."""
    from serialbench.measure.slowdown import FORMAT_PREFIX
    from serialbench.views.calibrate_table import calibrate_document, calibrated

    rows = calibrated(a_a, a_b, slowdowns, landed, FORMAT_PREFIX)
    return calibrate_document(rows, slowdowns, min_effect, "closing").text().splitlines()[:-1]


def test_calibrate_summary_counts_and_scales_its_targets():
    def rows(words, change=0.0):
        return [comparison.Compared(f"calibrate-x/y/float32/{i}K", 1e-6, 1e-6,
                                    verdict(change, change - 0.01, change + 0.01, word))
                for i, word in enumerate(words)]

    a_a = rows(["no change"] * 8 + ["too noisy to tell", "slower"])
    lines = summarise(a_a, [rows(["slower"] * 9 + ["faster"], 0.05), rows(["slower"] * 5 + ["too noisy to tell"] * 5,
                                                                           0.02)], [0.05, 0.02], 0.02, None)
    assert lines[-3] == ("A/A: 1 of 10 flagged as changed (false positives; target: at most 1), "
                         "8 of 10 confirmed 'no change' (target: at least 8)")
    assert lines[-2] == ("+5%: 9 of 10 detected as slower, 1 called faster "
                         "(median measured change +5.0%; target: at least 10); every injection landed")
    assert lines[-1] == ("+2%: 5 of 10 detected as slower "
                         "(median measured change +2.0%; no target under twice the minimum effect); every "
                         "injection landed")


def test_calibrate_counts_a_variant_whose_work_did_not_land_as_an_injection_failure_not_a_miss():
    def row(name, change, low, high, word):
        return comparison.Compared(f"calibrate-{name}", 1e-6, 1e-6, verdict(change, low, high, word))

    names = [f"x/y/float32/{i}K" for i in range(4)]
    a_a = [row(name, 0.0, -0.01, 0.01, "no change") for name in names]
    slowed = [row(names[0], 0.05, 0.04, 0.06, "slower"), row(names[1], 0.048, 0.03, 0.065, "slower"),
              row(names[2], -0.002, -0.008, 0.004, "no change"),  # calibrate's tobytes/1K that once measured -0.2%
              row(names[3], 0.02, 0.0, 0.04, "too noisy to tell")]
    landed = {names[0]: 0.051, names[1]: 0.012, names[2]: 0.049, names[3]: 0.011}
    lines = summarise(a_a, [slowed], [0.05], 0.02, [landed])
    assert lines[-1] == ("+5%: 2 of 2 detected as slower (median measured change +4.8%; target: at least 2); "
                         "2 injection failures, not counted: x/y/float32/2K: measured -0.2% [-0.8%, +0.4%] in the "
                         "session; x/y/float32/3K: injected +1.1% in a plain loop")
    table = {line.split()[0]: line for line in lines[:5]}
    assert table["x/y/float32/2K"].endswith("no change (injection failed)")
    assert table["x/y/float32/1K"].endswith("slower")  # its check read +1.2%, but the session saw the work


def test_calibrate_measures_its_injected_work_once_per_variant_and_benchmark(tmp_path):
    from serialbench.catalog.discovery import load_case_module
    from serialbench.catalog.inputs import make_payload
    from serialbench.measure.slowdown import FORMAT_PREFIX, write_case_modules

    _, _, slowed = write_case_modules(tmp_path, [0.5])
    key = "baseline/tobytes/float32/1K"
    measured = slowed / "measured.json"
    for _ in range(2):  # a later round's process finds the figure of the first
        (tobytes,) = [c for c in load_case_module(slowed / "calibrate_cases.py")
                      if c.label == FORMAT_PREFIX + "baseline/tobytes"]
        tobytes.setup(make_payload("float32", "1K"))
        how, per_call, landed = json.loads(measured.read_text())[key]
        assert how == "again" and per_call > 0 and landed > 0.1  # checked: +50% asked, far more than nothing
    measured.write_text(json.dumps({key: ["again", 3.0, 0.5]}))
    tobytes.setup(make_payload("float32", "1K"))
    assert json.loads(measured.read_text()) == {key: ["again", 3.0, 0.5]}  # used as found, not measured again
    assert not (slowed.parent / "variant-00" / "measured.json").exists()  # each variant measures its own


@pytest.mark.slow
def test_overlay_manifest_lists_what_was_installed(library, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", library["env"]["XDG_CACHE_HOME"])
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    directory, installed, _ = overlays.overlay([str(library["v2"])], sys.executable, lambda message: None)
    manifest = json.loads((directory / overlays.MANIFEST).read_text())
    assert manifest["installed"] == installed == ["toylib 2.0"]


# --- sides named by what they ran, refusals before timing, the selection, interrupts ------------------

@pytest.mark.slow
@pytest.mark.parametrize("selection, said", [(["--tier", "5K"], "unknown tier 5K"),
                                             (["-b", "no-such-format/*"], "-b 'no-such-format/*' matches no")])
def test_a_typo_in_the_selection_is_the_users_and_said_before_any_side_is_made(selection, said):
    done = subprocess.run([sys.executable, "-m", "serialbench", "compare", "--head-with", "no-such-package-xyz==1",
                           *selection], cwd=PROJECT_ROOT, capture_output=True)
    line = assert_one_line_usage_error(done)  # no install attempted: the selection is checked first
    assert said in line and "HEAD" not in line and line.count("serialbench: error:") == 1


@pytest.mark.slow
def test_a_side_that_cannot_import_a_case_is_refused_before_timing_and_the_rest_goes_on(library, tmp_path):
    broken = broken_wheel(tmp_path, "0.9")
    done = run_serialbench("compare", "--base-with", broken, "--head-with", library["v1"], "--cases",
                           library["cases"], "-b", "lib/*", "--tier", "1K,10K", "--rounds", "2", env=library["env"])
    for path in written_results(done.stderr):
        os.remove(path)
    assert done.returncode == 0, done.stderr
    refusals = [line for line in done.stderr.splitlines() if "cannot run" in line]
    assert refusals == ["BASE cannot run 2 of 4 selected benchmarks (lib/toylib/*): "
                        "ImportError: cannot import name 'runtime_version' from 'json'"]
    assert done.stderr.index("cannot run") < done.stderr.index("looks after")  # before any timing
    assert [line.split()[0] for line in done.stdout.splitlines()[1:3]] == ["lib/plain/float32/1K",
                                                                           "lib/plain/float32/10K"]


def test_sides_are_named_by_the_versions_they_imported_and_local_builds_are_marked(tmp_path, monkeypatch):
    from serialbench.sides.naming import name_sides
    from serialbench.sides.sides import Checked, Side

    monkeypatch.chdir(tmp_path)
    (tmp_path / "msgpack-1.1.2").mkdir()
    overlay_dir = tmp_path / "overlay"
    overlay_dir.mkdir()
    manifest = {"specs": ["./msgpack-1.1.2"], "installed": ["msgpack 1.1.2"],
                "by_spec": {"./msgpack-1.1.2": ["msgpack 1.1.2"]}}
    (overlay_dir / overlays.MANIFEST).write_text(json.dumps(manifest))
    base = Side("BASE", tmp_path)
    head = Side("HEAD", tmp_path, overlay=overlay_dir, specs=("./msgpack-1.1.2",), installed=("msgpack 1.1.2",))
    named = name_sides([Checked(base, ["m/p/float32/1K"], versions={"msgpack": "1.1.2", "numpy": "2.4.6"}),
                        Checked(head, ["m/p/float32/1K"], versions={"msgpack": "1.1.2", "numpy": "2.4.6"})])
    assert [item.side.description for item in named] == ["msgpack 1.1.2 (installed)",
                                                         "msgpack 1.1.2 (local: msgpack-1.1.2)"]
    # Two local checkouts of one package: each by the folder where their paths part, never a path.
    for name in ("kserve-base", "kserve-fix"):
        (tmp_path / name / "python" / "kserve").mkdir(parents=True)
    sides = []
    for label, name in (("BASE", "kserve-base"), ("HEAD", "kserve-fix")):
        spec = str(tmp_path / name / "python" / "kserve")
        directory = tmp_path / f"overlay-{name}"
        directory.mkdir()
        (directory / overlays.MANIFEST).write_text(json.dumps({"specs": [spec], "installed": ["kserve 0.20.0"],
                                                               "by_spec": {spec: ["kserve 0.20.0"]}}))
        sides.append(Checked(Side(label, tmp_path, overlay=directory, specs=(spec,), installed=("kserve 0.20.0",)),
                             ["x"], versions={"kserve": "0.20.0"}))
    assert [item.side.description for item in name_sides(sides)] == ["kserve 0.20.0 (local: kserve-base)",
                                                                      "kserve 0.20.0 (local: kserve-fix)"]
    other = Side("HEAD", tmp_path)  # no overlay: named only by what differs
    named = name_sides([Checked(base, ["x"], versions={"protobuf": "6.33.6", "numpy": "2.4.6"}),
                        Checked(other, ["x"], versions={"protobuf": "7.36.2", "numpy": "2.4.6"})])
    assert [item.side.ran for item in named] == [("protobuf 6.33.6 (installed)",), ("protobuf 7.36.2 (installed)",)]


@pytest.mark.slow
def test_the_side_without_an_overlay_is_named_by_what_it_imported(library_compared):
    done, _ = library_compared
    assert "BASE: toylib 1.0; HEAD: toylib 2.0" in done.stderr


@pytest.mark.slow
def test_compare_result_files_record_date_machine_python_and_pyperf(library_compared):
    from serialbench.results.files import load
    from serialbench.views.timing import header_lines

    _, written = library_compared
    head = header_lines(load(written[1], with_memory=False))
    assert "unknown" not in head[1] and "?" not in head[1], head
    assert f"Python {sys.version.split()[0]}; pyperf {pyperf.__version__}" in head[1]
    assert "  side: toylib 2.0" in head


@pytest.mark.slow
def test_an_interrupted_compare_prints_its_table_writes_its_files_and_exits_130():
    process = subprocess.Popen([sys.executable, "-m", "serialbench", "compare", "--base-python", sys.executable,
                                "--head-python", sys.executable, "-b", "baseline/tobytes/float32/1K", "--rounds", "40"],
                               cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stderr = []
    for line in process.stderr:
        stderr.append(line)
        if line.startswith("rounds 1-2:"):
            process.send_signal(signal.SIGTERM)  # as Ctrl-C: the session is judged on its rounds
    stdout = process.stdout.read()
    process.wait(timeout=60)
    written = written_results("".join(stderr))
    for path in written:
        os.remove(path)
    assert process.returncode == 130, "".join(stderr)
    assert stdout.startswith("benchmark") and len(written) == 2
    assert "interrupted after" in "".join(stderr)


# --- --with SPEC for the run, profile and verify ------------------------------------------------

@pytest.mark.slow
def test_a_plain_run_with_an_overlay_times_the_overlays_version(library, tmp_path):
    output = tmp_path / "run.json"
    done = run_serialbench("--with", library["v2"], "--cases", library["cases"], "-b", "lib/toylib", "--tier", "1K",
                           "--debug-single-value", "-p", "1", "--no-summary", "-o", output, env=library["env"])
    assert done.returncode == 0, done.stderr
    bench = pyperf.BenchmarkSuite.load(str(output)).get_benchmark("lib/toylib/float32/1K")
    assert bench.get_metadata()["toylib_version"] == "2.0"  # what the pyperf worker imported
    assert bench.get_metadata()["serialbench_with"] == "toylib 2.0"


@pytest.mark.slow
@pytest.mark.parametrize("command", [["profile", "lib/toylib/float32/1K", "--seconds", "0.05"],
                                     ["verify", "-b", "lib/toylib"]])
def test_profile_and_verify_take_an_overlay(library, command):
    done = run_serialbench(*command, "--with", library["v2"], "--cases", library["cases"], env=library["env"])
    assert done.returncode == 0, done.stderr
    assert "with toylib 2.0 first on sys.path" in done.stderr
    assert "lib/toylib" in done.stdout
    without = run_serialbench(*command, "--cases", library["cases"], env=library["env"])
    assert without.returncode != 0  # toylib is only in the overlay


def test_a_relative_interpreter_path_is_made_absolute(monkeypatch, tmp_path):
    # A side's workers start in its worktree: `--head-python .venv/bin/python` must still find it there.
    import os
    from pathlib import Path

    from serialbench.sides.building import resolve_python

    monkeypatch.chdir(Path(sys.executable).parent)
    found = resolve_python(os.path.join(".", Path(sys.executable).name))
    assert os.path.isabs(found) and os.path.samefile(found, sys.executable)


def test_sides_whose_names_would_widen_the_table_past_160_columns_are_named_above_it():
    from serialbench.views.verdict_table import compare_document

    verdict = vocabulary.Verdict(change=-0.985, low=-0.986, high=-0.984, level=0.975, detectable=0.04,
                                 word=vocabulary.FASTER, rounds=16, p_value=1e-4)
    rows = [comparison.Compared("triton-binary/decode-kserve/float32/1K", 305e-6, 4.65e-6, verdict)]
    short = compare_document(rows, "msgpack 1.0.8", "msgpack 1.1.2", 0.02).text().splitlines()
    assert short[0].startswith("benchmark") and "BASE msgpack 1.0.8" in short[0]
    for base in ("kserve 0.20.0 (commit aaac4e29)", "a side named at length " * 20):
        shown = compare_document(rows, base, "kserve 0.20.0 (work tree)", 0.02).text().splitlines()
        assert max(map(len, shown)) <= 160
        assert shown[0].startswith(f"BASE: {base[:40]}") and "HEAD: kserve 0.20.0 (work tree)" in "\n".join(shown[:2])
        header = next(line for line in shown if line.startswith("benchmark"))
        assert header.split()[1:3] == ["BASE", "HEAD"]
