"""sweep across a library's releases: a toy library made in the test at four versions (v1 and v2
equal, v3 doing clearly more work, v4 equal to v3) as local wheels, found through pip's
--find-links (no package index is reached); shard and merge, and the table, on hand-built data."""

import json
import math
import os
import sys
import textwrap
import zipfile
from dataclasses import replace

import pyperf
import pytest

from serialbench.core.errors import UsageError
from serialbench.sides import overlays, releases
from serialbench.verdicts import vocabulary
from serialbench.verdicts.steps import Step, Sweep, SweepRow, merge, sweep_from_json
from serialbench.views.sweep_table import sweep_document
from tests.helpers import run_serialbench, written_results
from tests.toys import LIBRARY, broken_wheel, make_wheel

# The toy library's wheels (`toy`) and its sweep (`swept`) are fixtures in tests/conftest.py: the site's
# tests (tests/test_html.py) draw the same sweep.


@pytest.mark.slow
def test_a_range_sweeps_every_release_and_finds_the_one_step_at_v3(swept):
    done, data = swept
    assert done.returncode == 0, done.stdout + done.stderr
    assert data["sides"] == ["1.0", "2.0", "3.0", "4.0"]
    (bench,) = data["benchmarks"]
    flagged = [(step["to"], step["verdict"]) for step in bench["steps"] if step["verdict"] in ("slower", "faster")]
    assert flagged == [("3.0", "slower")], done.stdout
    assert bench["steps"][1]["change"] > 1.0  # three more copies than one
    assert "lib/toylib/float32/10K: slower at 3.0, +" in done.stdout


@pytest.mark.slow
def test_every_side_is_timed_in_one_interleaved_session_and_writes_its_file(swept):
    done, _ = swept
    assert "1 benchmarks on 4 sides (1.0, 2.0, 3.0, 4.0)" in done.stderr
    written = written_results(done.stderr)
    assert [os.path.basename(p).rsplit("-", 1)[1] for p in written] == ["1.0.json", "2.0.json", "3.0.json",
                                                                        "4.0.json"]


@pytest.mark.slow
def test_a_side_whose_install_fails_is_named_and_left_out_and_one_that_refuses_a_case_skips_it(toy, tmp_path):
    broken = broken_wheel(tmp_path, "0.9")  # its import fails: lib/toylib is refused, lib/plain runs
    done = run_serialbench("sweep", broken, "toylib==1.0", "toylib==9.0", "toylib==3.0", "--cases", toy["cases"],
                           "--rounds", "2", "--tier", "1K", "-b", "lib/*", env=toy["env"])
    for path in written_results(done.stderr):
        os.remove(path)
    assert done.returncode == 0, done.stderr
    assert "toylib 9.0: left out: cannot install 'toylib==9.0'" in done.stderr
    assert "toylib-0.9 cannot run 1 of 2 selected benchmarks (lib/toylib/*): ImportError" in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["benchmark", "toylib-0.9", "toylib", "1.0", "toylib", "3.0"]
    assert lines[1].split()[:2] == ["lib/toylib/float32/1K", "-"] and lines[2].startswith("lib/plain/float32/1K")


@pytest.mark.slow
def test_releases_of_a_range_come_from_the_local_index(toy, monkeypatch):
    for name, value in toy["env"].items():
        monkeypatch.setenv(name, value)
    assert releases.expand("toylib>=2,<4", sys.executable) == ["toylib==2.0", "toylib==3.0"]
    assert releases.expand("toylib==2.0", sys.executable) == ["toylib==2.0"]
    assert releases.between("toylib", "1.0", "3.0", sys.executable) == ["1.0", "2.0", "3.0"]
    with pytest.raises(UsageError, match="no release of toylib in that range"):
        releases.expand("toylib>=7", sys.executable)


def test_steps_spread_evenly_keeping_first_and_last_and_shards_carry_the_anchor():
    items = [f"v{i}" for i in range(1, 12)]
    assert releases.spread(items, 4) == ["v1", "v4", "v8", "v11"]
    assert releases.spread(items, None) == items
    assert releases.shard(items, 1, 3) == (["v1", "v2", "v3", "v4"], ["v1", "v2", "v3", "v4"])
    assert releases.shard(items, 2, 3) == (["v1", "v4", "v5", "v6", "v7"], ["v1", "v5", "v6", "v7"])
    assert releases.shard(items, 3, 3) == (["v1", "v7", "v8", "v9", "v10", "v11"], ["v1", "v8", "v9", "v10", "v11"])
    owned = [side for k in (1, 2, 3) for side in releases.shard(items, k, 3)[1][1:]]
    assert owned == items[1:]  # disjoint parts that cover every release after the anchor
    assert releases.labels(["tritonclient==2.44.0", "tritonclient==2.46.0"]) == ["2.44.0", "2.46.0"]
    assert releases.labels(["msgpack==1.0.8", "orjson==3.9.15"]) == ["msgpack 1.0.8", "orjson 3.9.15"]
    assert releases.is_range("tritonclient>=2.44,<=2.50") and not releases.is_range("tritonclient==2.44.0")


# --- the table, JSON, shard and merge, from hand-built data ---------------------------------------

def step(before, after, change, word, rounds=16):
    return Step(before, after, change, change - 0.02, change + 0.02, word, rounds, 0.03)


SIDES = ["2.40.0", "2.44.0", "2.45.0", "2.46.0", "2.50.0"]
FASTER_AT_46 = [0.001, -0.002, -0.46, 0.003]  # each adjacent step's change
STEADY = [0.002, 0.001, -0.001, 0.0]


def full_row(name, changes, anchor_median):
    steps, anchored, medians, level = [], [], [anchor_median], 1.0
    for before, after, change in zip(SIDES, SIDES[1:], changes):
        word = vocabulary.FASTER if change < -0.1 else vocabulary.NO_CHANGE
        steps.append(step(before, after, change, word))
        level *= 1 + change
        medians.append(anchor_median * level)
        anchored.append(step(SIDES[0], after, level - 1, word if after == "2.46.0" or level < 0.9 else
                             vocabulary.NO_CHANGE))
    return SweepRow(name, tuple(SIDES), tuple(medians), tuple(steps), tuple(anchored))


MACHINE = {"host": "ci-a", "cpu": "AMD EPYC 7B13", "cpus": 2, "python": "3.11.7"}
ROWS = [full_row("triton-binary/tritonclient/int32x3/1M", FASTER_AT_46, 3.78e-3),
        full_row("triton-binary/tritonclient/float32/100K", STEADY, 61.2e-6)]
FULL = Sweep(SIDES, ROWS, 0.02, {side: MACHINE for side in SIDES}, SIDES, SIDES)


def part(sides, own, index, machine=MACHINE):
    """What `sweep --shard index/2` of SIDES would have measured, from the same rounds."""
    rows = []
    for row in ROWS:
        medians = tuple(row.median(side) for side in sides)
        anchored = [row.against_anchor(side) for side in sides[1:]]
        steps = [row.step_into(after) if row.step_into(after).before == before else row.against_anchor(after)
                 for before, after in zip(sides, sides[1:])]
        rows.append(SweepRow(row.name, tuple(sides), medians, tuple(steps), tuple(anchored)))
    return Sweep(list(sides), rows, 0.02, {side: machine for side in sides}, SIDES, list(own), (index, 2))


def test_two_shards_merge_into_the_table_of_one_sweep():
    sides_1, own_1 = releases.shard(SIDES, 1, 2)
    sides_2, own_2 = releases.shard(SIDES, 2, 2)
    assert (sides_1, sides_2, own_2) == (SIDES[:3], ["2.40.0", "2.45.0", "2.46.0", "2.50.0"],
                                         ["2.40.0", "2.46.0", "2.50.0"])
    parts = [sweep_from_json(sweep_document(part(s, o, k)).json(), f"part{k}.json")
             for k, (s, o) in enumerate([(sides_1, own_1), (sides_2, own_2)], start=1)]
    merged = merge(parts)
    assert merged.sides == SIDES
    full = sweep_from_json(sweep_document(FULL).json(), "full.json")
    assert merged.rows == full.rows
    assert sweep_document(merged).text() == sweep_document(full).text()


def test_a_merge_of_parts_from_different_cpus_warns_and_names_each_columns_machine():
    other = {"host": "ci-b", "cpu": "Intel Xeon 8375C", "cpus": 4, "python": "3.11.7"}
    parts = [part(*releases.shard(SIDES, 1, 2), 1), part(*releases.shard(SIDES, 2, 2), 2, other)]
    text = sweep_document(merge(parts)).text()
    assert "warning: the parts ran on different CPUs" in text
    header = text.splitlines()[1].split()
    assert header[0] == "[A]" and header[-1] == "[B]"
    assert "[B] ci-b: Intel Xeon 8375C, 4 CPUs" in text


@pytest.mark.slow
def test_a_file_that_is_not_a_sweeps_json_is_one_line(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"base": "x"}')
    done = run_serialbench("sweep", "--merge", path)
    assert done.returncode == 2 and "is not a sweep's --json file" in done.stderr


def test_json_keeps_null_for_what_has_no_number():
    row = SweepRow("a/b/float32/1K", ("1.0", "2.0"), (1e-6, 2e-6),
                   (Step("1.0", "2.0", 1.0, -1.0, math.inf, vocabulary.TOO_NOISY, 2),), ())
    data = json.loads(sweep_document(Sweep(["1.0", "2.0"], [row], 0.02)).json())
    assert data["benchmarks"][0]["steps"][0] == {"from": "1.0", "to": "2.0", "change": 1.0, "low": None,
                                                 "high": None, "detectable": None, "verdict": "too noisy to tell",
                                                 "rounds": 2}


def test_a_sweeps_line_is_the_first_median_times_each_change_and_a_half_interval_draws_no_bar():
    steps = (Step("1.0", "2.0", 0.5, 0.4, 0.6, vocabulary.SLOWER, 8),
             Step("1.0", "3.0", -0.5, -0.6, math.inf, vocabulary.TOO_NOISY, 2))
    row = SweepRow("a/b/float32/1K", ("1.0", "2.0", "3.0"), (2e-6, 3e-6, 1e-6), steps[:1], steps)
    assert [(p.side, p.time, p.low, p.high, p.step) for p in row.line()] == [
        ("1.0", 2e-6, 2e-6, 2e-6, None), ("2.0", pytest.approx(3e-6), pytest.approx(2.8e-6), pytest.approx(3.2e-6),
                                          steps[0]), ("3.0", 1e-6, 1e-6, 1e-6, steps[1])]


def test_a_two_speed_step_is_marked_and_named_never_passed_as_no_step():
    # A protobuf sweep's -24% step whose sides' processes ran at two speeds read "no step" with no mark.
    changes = [0.001, -0.002, -0.24, 0.003]
    row = full_row("tfserving-grpc/direct/int32x3/100K", changes, 255e-6)
    steps = tuple(replace(s, verdict=vocabulary.TWO_SPEEDS) if s.after == "2.46.0" else s for s in row.steps)
    text = sweep_document(Sweep(SIDES, [replace(row, steps=steps)], 0.02)).text()
    assert "-24.1% ~" in text
    assert ("tfserving-grpc/direct/int32x3/100K: no step found; two speeds at 2.46.0, no verdict from the mix "
            "(-24.0% [-26.0%, -22.0%])") in text
    assert "~: two speeds that straddle the minimum effect, no verdict from the mix" in " ".join(text.splitlines())


def test_selection_rows_of_two_sessions_say_which_benchmarks_each_is_over_and_survive_json_and_merge():
    # Benchmarks that some sides refuse run in a session of their own: one step, two selection rows.
    tf = tuple(f"tfserving-grpc/{impl}/float32/{tier}" for impl in ("direct", "wire") for tier in ("100K", "1M", "1K"))
    both = [replace(step("2.45.0", "2.46.0", -0.2, vocabulary.FASTER), benchmarks=6, names=tf),
            replace(step("2.45.0", "2.46.0", 0.001, vocabulary.NO_CHANGE), benchmarks=2,
                    names=("kserve-grpc/raw/float32/100K", "kserve-grpc/raw/float32/1M"))]
    sweep = Sweep(SIDES, ROWS, 0.02, selections=[step("2.40.0", "2.44.0", 0.0, vocabulary.NO_CHANGE), *both])
    text = sweep_document(sweep).text()
    assert "selection 2.40.0 -> 2.44.0: no change" in text
    assert ("selection (of 6 benchmarks: tfserving-grpc/direct, tfserving-grpc/wire) 2.45.0 -> 2.46.0: faster, "
            "-20.0% [-22.0%, -18.0%]") in text
    assert "selection (of 2 benchmarks: kserve-grpc/raw) 2.45.0 -> 2.46.0: no change" in text
    back = sweep_from_json(sweep_document(sweep).json(), "sweep.json")
    assert [(s.before, s.after, s.verdict, s.benchmarks, s.names) for s in back.selections] == \
        [(s.before, s.after, s.verdict, s.benchmarks, s.names) for s in sweep.selections]
    parts = [part(*releases.shard(SIDES, k, 2), k) for k in (1, 2)]
    parts[0].selections = [step("2.40.0", "2.44.0", 0.0, vocabulary.NO_CHANGE)]
    parts[1].selections = [step("2.45.0", "2.46.0", -0.2, vocabulary.FASTER)]
    assert [(s.before, s.after) for s in merge(parts).selections] == [("2.40.0", "2.44.0"), ("2.45.0", "2.46.0")]


# --- sides of several packages: a library with the generated code of its time ---------------------

TOYGEN = {  # toygen plays a library's generated code: 2.0 needs a toylib that has runtime_version
    "1.0": "import toylib\n\n\ndef encode(array):\n    return toylib.encode(array)\n",
    "2.0": "from toylib import runtime_version  # noqa: F401\nimport toylib\n\n\ndef encode(array):\n"
           "    return toylib.encode(array)\n",
}
GEN_CASES = '''
from serialbench.case import Case


def generated(payload):
    import toygen

    array = payload.tensors[0].value
    return lambda: toygen.encode(array)


CASES = [Case("gen", "toygen", ("float32",), generated, requires=("toygen",), libraries=("toygen", "toylib"))]
'''


def package_wheel(directory, name, version, source):
    path = directory / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": source,
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{file},,\n" for file in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(path, "w") as wheel:
        for file, text in files.items():
            wheel.writestr(file, text)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("generated")
    (root / "cases").mkdir()
    (root / "cases" / "gen.py").write_text(textwrap.dedent(GEN_CASES))
    wheels = root / "wheels"
    wheels.mkdir()
    for version, source in TOYGEN.items():
        package_wheel(wheels, "toygen", version, source)
    make_wheel(wheels, "1.0", 0)
    # toylib 5.0: three more copies per op, and the runtime_version that toygen 2.0 imports
    package_wheel(wheels, "toylib", "5.0", textwrap.dedent(LIBRARY.format(extra=3)) + "runtime_version = 5\n")
    env = {"XDG_CACHE_HOME": str(root / "cache"), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    return {"cases": root / "cases", "env": env, "root": root}


@pytest.mark.slow
def test_a_side_of_several_packages_runs_with_the_code_it_brings_and_a_mismatched_set_is_refused_first(generated):
    requirements = generated["root"] / "new.txt"
    requirements.write_text("# the new pair\ntoylib==5.0\ntoygen==2.0  # needs toylib's runtime_version\n")
    done = run_serialbench("sweep", "toylib==1.0 toygen==1.0", "toylib==1.0 toygen==2.0", requirements,
                           "--cases", generated["cases"], "--rounds", "2", "--tier", "1K", "-b", "gen/*",
                           env=generated["env"])
    written = written_results(done.stderr)
    ran = [pyperf.BenchmarkSuite.load(path).get_benchmarks()[0].get_runs()[0].get_metadata()["serialbench_side"]
           for path in written]
    for path in written:
        os.remove(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [sorted(side.split(", ")) for side in ran] == [["toygen 1.0", "toylib 1.0"], ["toygen 2.0", "toylib 5.0"]]
    refusal = ("toygen 2.0 cannot run 1 of 1 selected benchmarks (gen/toygen/*): ImportError: cannot import name "
               "'runtime_version' from 'toylib'")
    assert refusal in done.stderr.splitlines()
    assert done.stderr.index(refusal) < done.stderr.index("looks after")  # refused before any timing
    assert "toygen 2.0: left out: it runs none of the selected benchmarks (causes above)" in done.stderr
    # named by what differs from the side before it in the table: both packages, once 'toygen 2.0' is left out
    assert "1 benchmarks on 2 sides (toylib 1.0, toygen 1.0; toylib 5.0, toygen 2.0)" in done.stderr
    assert done.stdout.splitlines()[0].split("  ")[-1].strip() == "toylib 5.0, toygen 2.0"


@pytest.mark.slow
def test_the_overlay_of_a_set_is_keyed_on_the_whole_set_however_it_is_given(generated, monkeypatch, tmp_path):
    for name, value in generated["env"].items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first, installed, fresh = overlays.overlay(["toylib==1.0 toygen==1.0"], sys.executable, lambda message: None)
    assert fresh and sorted(installed) == ["toygen 1.0", "toylib 1.0"]
    listed = tmp_path / "pair.txt"
    listed.write_text("toygen==1.0\ntoylib==1.0\n")
    for same in (["toygen==1.0", "toylib==1.0"], [str(listed)]):
        assert overlays.overlay(same, sys.executable, lambda message: None)[:1] + (False,) == (first, False)
    assert overlays.overlay(["toylib==1.0 toygen==2.0"], sys.executable, lambda message: None)[0] != first
    with pytest.raises(UsageError, match="is a range inside a side of several packages"):
        releases.expand("toylib>=1 toygen==1.0", sys.executable)


# --- which steps are judged: adjacent (releases) or each against the anchor (interpreters) ---------

TOY_SIDES = ["python 3.11.7", "python 3.12.3", "python 3.13.0"]
TOY_COST = {"python 3.11.7": 1.0e-6, "python 3.12.3": 0.8e-6, "python 3.13.0": 0.8e-6}  # 3.12 and 3.13 alike


def toy_session(rounds=16):
    """Three sides' rounds of one benchmark: the second and third 20% faster than the first, a little
    noise (the same in every side's cycle, as on a machine whose speed drifts)."""
    from pathlib import Path

    from serialbench.measure.session import Run, Session
    from serialbench.sides.sides import Side

    name = "lib/toylib/float32/10K"
    session = Session([Side(label, Path("."), own_serialbench=False) for label in TOY_SIDES], [name])
    for index in range(rounds):
        drift = [1 + 0.01 * math.sin(index * 7 + cycle) for cycle in range(10)]
        for label, cost in TOY_COST.items():
            jitter = 1 + 0.002 * math.cos(index * 3 + len(label) + TOY_SIDES.index(label))
            session.runs[label].setdefault(name, []).append(Run(index, [cost * d * jitter for d in drift], {}))
    return session, name


def judged(against_anchor):
    from serialbench.verdicts.steps import StepJudges, sweep_rows

    session, name = toy_session()
    judges = StepJudges(TOY_SIDES, [name], (16,), 0.05, table_size=2, against_anchor=against_anchor)
    judges.look(session, [name], 0, {name})
    [row] = sweep_rows([(session, judges)], 0.05)
    noun = "interpreter" if against_anchor else "release"
    return row, Sweep(TOY_SIDES, [row], 0.05, against_anchor=against_anchor, noun=noun)


def test_a_sweep_of_interpreters_judges_each_against_the_first_and_says_so():
    row, sweep = judged(against_anchor=True)
    assert [(s.before, s.after, s.verdict) for s in row.steps] == [
        ("python 3.11.7", "python 3.12.3", "faster"), ("python 3.11.7", "python 3.13.0", "faster")]
    assert row.from_anchor == row.steps  # the steps are the changes against the anchor, judged once
    table = sweep_document(sweep).text()
    assert "faster at python 3.13.0 against python 3.11.7" in table
    assert "changes at python 3.12.3 (1 faster), python 3.13.0 (1 faster) against python 3.11.7" in table
    assert "the change against the anchor is slower or faster" in table.replace("\n", " ")
    assert table.splitlines()[1].count(" *") == 2  # both cells marked: each differs from the anchor
    data = json.loads(sweep_document(sweep).json())
    assert (data["steps_judged"], data["side_noun"]) == ("against the anchor", "interpreter")
    assert [(s["from"], s["to"]) for s in data["benchmarks"][0]["steps"]] == [
        ("python 3.11.7", "python 3.12.3"), ("python 3.11.7", "python 3.13.0")]
    back = sweep_from_json(sweep_document(sweep).json(), "sweep.json")
    assert (back.against_anchor, back.noun) == (True, "interpreter") and sweep_document(back).text() == table
    assert merge([back]).rows[0].steps == back.rows[0].steps  # a merge keeps the steps from the anchor


def test_a_sweep_of_releases_still_judges_each_adjacent_step():
    row, sweep = judged(against_anchor=False)
    assert [(s.before, s.after, s.verdict) for s in row.steps] == [
        ("python 3.11.7", "python 3.12.3", "faster"), ("python 3.12.3", "python 3.13.0", "no change")]
    assert [(s.before, s.after) for s in row.from_anchor] == [
        ("python 3.11.7", "python 3.12.3"), ("python 3.11.7", "python 3.13.0")]
    table = sweep_document(sweep).text()
    assert "steps at python 3.12.3 (1 faster)" in table and "against python 3.11.7" not in table
    assert "steps_judged" not in json.loads(sweep_document(sweep).json())


def test_an_interpreter_whose_environment_took_another_version_says_it_in_its_columns_header():
    _, sweep = judged(against_anchor=True)
    sweep.libraries = {"python 3.13.0": "toylib 0.9 (installed)"}  # the closest release 3.13 has
    table = sweep_document(sweep).text()
    header, under = table.splitlines()[:2]
    assert "python 3.13.0" in header and under.split() == ["toylib", "0.9", "(installed)"]
    assert len(under.rstrip()) == len(header.rstrip())  # under its own column (the last), aligned as it is
    back = sweep_from_json(sweep_document(sweep).json(), "sweep.json")
    assert back.libraries == sweep.libraries and sweep_document(back).text() == table
    assert "libraries" not in json.loads(sweep_document(judged(against_anchor=False)[1]).json())


# --- sweep --explain, on hand-built data (the toy's sweep explained: tests/test_explain.py) ---------------------

def test_an_explained_step_hangs_under_its_benchmark_and_is_its_steps_explain_in_json_and_back():
    from serialbench.measure.profiles import Function, Profile
    from serialbench.verdicts.explain import explain
    from serialbench.views.explain_table import record
    from serialbench.views.sweep_table import sweep_grid
    from serialbench.views.table import data as table_data

    before = Profile("s", 2e-3, (Function("tritonclient/utils.py", 10, "deserialize", 1.8e-3, 1.9e-3, 1.0),))
    after = Profile("s", 1e-3, (Function("tritonclient/utils.py", 12, "deserialize", 0.9e-3, 0.95e-3, 1.0),))
    name = ROWS[0].name
    found = record(explain(name, before, after, ROWS[0].median("2.45.0"), ROWS[0].median("2.46.0")), 3)
    sweep = replace(FULL, explained={(name, "2.45.0", "2.46.0"): found}, explain_failed={})
    lines = sweep_document(sweep).text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(name))
    assert lines[at + 1].startswith("    2.45.0 -> 2.46.0: where the time per op moved")
    assert "tritonclient/utils.py:12(deserialize)" in "\n".join(lines[at + 1:at + 5])
    assert lines[next(i for i, line in enumerate(lines) if "measured" in line) + 1].startswith("    cProfile of")
    data = json.loads(sweep_document(sweep).json())
    explained = [s for b in data["benchmarks"] for s in b["steps"] if "explain" in s]
    assert [(s["from"], s["to"]) for s in explained] == [("2.45.0", "2.46.0")] and data["explain_failed"] == {}
    assert explained[0]["explain"]["top"][0]["function"] == "tritonclient/utils.py:12(deserialize)"
    assert sweep_from_json(sweep_document(sweep).json(), "sweep.json").explained == sweep.explained
    grid = table_data(sweep_grid(sweep))  # the site's sweep page: the block under its row, as site.js draws it
    assert ["block" in row for row in grid["rows"]] == [True, False]
    assert "explain_failed" not in json.loads(sweep_document(FULL).json())  # a sweep without --explain: as before


def test_explain_with_no_decided_step_says_so_in_one_line_and_a_step_it_cannot_profile_in_one_line(monkeypatch):
    from types import SimpleNamespace

    from serialbench.commands.sweep import explain_steps
    from serialbench.measure import profiles

    said = []
    args = SimpleNamespace(explain_top=5)
    steady = [row for row in ROWS if not any(s.changed for s in row.steps)]
    assert explain_steps(args, said.append, steady, [], False) == ({}, {})
    assert said == ["--explain: no step is faster or slower; nothing to explain"]
    refused = profiles.failed("s", "its serialbench has no worker API")
    monkeypatch.setattr(profiles, "profile_each", lambda jobs, workers: {(side.label, n): refused for side, n in jobs})
    said.clear()
    found, failed = explain_steps(args, said.append, ROWS, [SimpleNamespace(label=side) for side in SIDES], False)
    why = "2.45.0 could not be profiled: its serialbench has no worker API"
    assert found == {} and failed == {f"{ROWS[0].name} (2.45.0 -> 2.46.0)": why}
    assert said[-1] == f"--explain: {ROWS[0].name} (2.45.0 -> 2.46.0): {why}"


@pytest.mark.parametrize("extra", [["--explain-top", "0", "toylib==1.0", "toylib==2.0"], ["--merge", "part.json"]])
def test_sweep_explain_s_bad_input_is_one_line(extra):
    from tests.helpers import assert_one_line_usage_error, in_process

    line = assert_one_line_usage_error(in_process("sweep", "--explain", *extra))
    assert "--explain" in line


def test_the_sessions_of_a_sweep_are_judged_written_and_make_its_table(tmp_path, monkeypatch):
    """verdicts/sweep_sessions.py on the toy session, with no process: one group of three sides, its side
    files written, its row judged, the table's columns the sides, each with its machine."""
    import time

    from serialbench.measure.session import Settings
    from serialbench.sides.sweep_plan import Plan
    from serialbench.verdicts.sweep_sessions import time_groups

    monkeypatch.chdir(tmp_path)
    session, name = toy_session()

    def time_session(sides, names, settings, look):
        look(session, names, 0, set(names))
        return session

    timed = time_groups([(session.sides, [name])], Settings((16,), None, 0.1), 0.05, False, time.monotonic(),
                        time_session, lambda line: None)
    assert len(timed.files) == 3 and all((tmp_path / "results" / file).exists() for file in timed.files)
    assert (timed.failed, timed.interrupted) == ({}, False)
    usable = [type("Checked", (), {"side": side, "listed": [name]}) for side in session.sides]
    rows = timed.rows(usable)
    assert [(s.after, s.verdict) for s in rows[0].steps] == [("python 3.12.3", "faster"),
                                                             ("python 3.13.0", "no change")]
    plan = Plan([], TOY_SIDES, TOY_SIDES, TOY_SIDES, "", {})
    sweep = timed.sweep(plan, usable, rows, TOY_SIDES, None, {}, {}, None)
    assert sweep.sides == TOY_SIDES and sweep.own == TOY_SIDES and sweep.files == timed.files
    assert list(sweep.machines) == TOY_SIDES  # where each column was timed
