"""compare --explain: the diff of two per-function profiles (verdicts/explain.py), callgrind's file read
per function (measure/callgrind_functions.py), the blocks (views/explain_table.py), and on a toy
library whose later version calls one more function: that function is the top mover, and the
explanation adds up to the verdict's change."""

import json
import shutil
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from serialbench.measure import callgrind_functions
from serialbench.measure.profiles import Function, Profile
from serialbench.results.files import load
from serialbench.results.sources import Source
from serialbench.verdicts import explain as explaining
from serialbench.verdicts import vocabulary
from serialbench.verdicts.explain import GONE, NEW, explain, group_interpreter
from serialbench.verdicts.paired import Compared
from serialbench.views import explain_table
from serialbench.views.site.pages import compare_page
from serialbench.views.table import text as table_text
from serialbench.views.verdict_table import compare_document
from tests import toys
from tests.helpers import assert_one_line_usage_error, in_process, run_serialbench, written_results

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None,
                                    reason="valgrind is not installed (apt-get install valgrind)")

BASE = Profile("s", 2.0e-6, (Function("lib/a.py", 10, "encode", 0.5e-6, 1.8e-6, 1.0),
                             Function("lib/a.py", 40, "old_copy", 0.6e-6, 0.6e-6, 1.0),
                             Function("", 0, "<method 'tobytes' of 'numpy.ndarray' objects>", 0.7e-6, 0.7e-6, 1.0)),
               calls=1000)
# HEAD: encode moved down its file (line 12) and calls new_copy instead of old_copy.
HEAD = Profile("s", 3.0e-6, (Function("lib/a.py", 12, "encode", 0.5e-6, 2.8e-6, 1.0),
                             Function("lib/a.py", 50, "new_copy", 1.6e-6, 1.6e-6, 1.0),
                             Function("", 0, "<method 'tobytes' of 'numpy.ndarray' objects>", 0.7e-6, 0.7e-6, 1.0)),
               calls=800)


def test_the_functions_changes_and_the_unexplained_add_up_to_the_measured_change():
    found = explain("fmt/impl/float32/1K", BASE, HEAD, 1.0e-6, 1.5e-6)
    assert found.scales == (0.5, 0.5)
    assert sum(moved.change for moved in found.moved) + found.unexplained == pytest.approx(found.change)
    assert found.change == pytest.approx(0.5e-6)
    # each side's functions hold 1.8 of its 2.0 (BASE) and 2.8 of 3.0 (HEAD) profiled us: the rest, scaled
    assert found.unattributed == pytest.approx((0.1e-6, 0.1e-6))


def test_a_function_is_matched_by_file_and_name_and_new_and_gone_ones_are_marked():
    found = explain("x", BASE, HEAD, 1.0e-6, 1.5e-6)
    by_label = {moved.label: moved for moved in found.moved}
    assert by_label["lib/a.py:12(encode)"].mark == ""  # the same function at another line
    assert by_label["lib/a.py:50(new_copy)"].mark == NEW
    assert by_label["lib/a.py:40(old_copy)"].mark == GONE
    assert [moved.label for moved in found.moved[:2]] == ["lib/a.py:50(new_copy)", "lib/a.py:40(old_copy)"]
    assert by_label["{method 'tobytes' of 'numpy.ndarray' objects}"].change == pytest.approx(0.35e-6 - 0.35e-6)


def test_methods_of_one_name_in_one_file_are_matched_in_order():
    base = Profile("s", 1.0, (Function("m.py", 5, "__init__", 0.2, 0.2), Function("m.py", 30, "__init__", 0.8, 0.8)))
    head = Profile("s", 1.0, (Function("m.py", 7, "__init__", 0.2, 0.2), Function("m.py", 33, "__init__", 0.8, 0.8)))
    found = explain("x", base, head, 1.0, 1.0)
    assert [moved.mark for moved in found.moved] == ["", ""]
    assert all(moved.change == pytest.approx(0) for moved in found.moved)


def test_the_interpreter_s_own_frames_are_one_row_of_counts():
    functions = (Function("python3.11", 0, "_PyEval_EvalFrameDefault", 900, 5000),
                 Function("python3.11", 0, "_PyFrame_Clear", 50, 60),
                 Function("_cmsgpack.so", 0, "__pyx_f_7msgpack_9_cmsgpack_6Packer__pack", 300, 400))
    grouped = group_interpreter(functions)
    assert [f.name for f in grouped] == ["__pyx_f_7msgpack_9_cmsgpack_6Packer__pack", explaining.INTERPRETER_ROW]
    assert grouped[1].own == 950 and grouped[1].inclusive is None


CALLGRIND = textwrap.dedent("""\
    # callgrind format
    version: 1
    creator: callgrind-3.19.0
    events: Ir Dr
    summary: 1000 40

    ob=(1) /usr/bin/python3.11
    fl=(1) ???
    fn=(1) outer
    0 100 10
    cob=(2) /lib/libc.so.6
    cfl=(2) ???
    cfn=(2) memcpy
    calls=3 0
    0 600 20
    cfn=(1)
    calls=1 0
    0 50
    +2 40

    ob=(2)
    fl=(2)
    fn=(2)
    0 600 20
    fn=(3) tiny
    * 200 10
    fn=(4) tiny'2
    * 60
""")


def test_callgrind_s_file_is_read_per_function_own_and_inclusive(tmp_path):
    path = tmp_path / "callgrind.out.1"
    path.write_text(CALLGRIND)
    events, functions = callgrind_functions.read(str(path))
    assert events == ["Ir", "Dr"]
    assert functions[("python3.11", "outer")] == ([140, 10], [740, 30])  # its call to itself is in its own cost
    assert functions[("libc.so.6", "memcpy")] == ([600, 20], [600, 20])
    assert functions[("libc.so.6", "tiny")] == ([260, 10], [200, 10])  # its depths: own summed, the outermost
    assert sum(own[0] for own, _ in functions.values()) == 1000  # the summary: every instruction is someone's


SLOWER = vocabulary.Verdict(change=0.5, low=0.4, high=0.6, level=0.999, detectable=0.05, word="slower", rounds=8,
                            p_value=0.001)
SAME = vocabulary.Verdict(change=0.0, low=-0.01, high=0.01, level=0.999, detectable=0.05, word="no change",
                          rounds=8, p_value=0.001)
ROWS = [Compared("fmt/impl/float32/1K", 1.0e-6, 1.5e-6, SLOWER), Compared("fmt/other/float32/1K", 1.0e-6, 1.0e-6, SAME)]


def explained_rows():
    found = explain("fmt/impl/float32/1K", BASE, HEAD, 1.0e-6, 1.5e-6)
    return explain_table.hanging({"fmt/impl/float32/1K": explain_table.record(found, 2)})


def test_the_block_hangs_under_its_row_top_movers_then_the_rest_the_unexplained_and_the_measured_change():
    lines = compare_document(ROWS, "base", "head", 0.05, hang=explained_rows()).text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("fmt/impl/float32/1K"))
    block = lines[at + 1:at + 11]  # its heading, header, 5 lines and 2 notes; then the next row
    assert block[0] == "    where the time per op moved: the top 2 of 4 functions by change of own time"
    assert all(line.startswith("    ") for line in block[:9])
    assert "lib/a.py:50(new_copy)" in block[2] and block[2].rstrip().endswith("new")
    assert "lib/a.py:40(old_copy)" in block[3] and block[3].rstrip().endswith("gone")
    assert block[4].split()[:4] == ["the", "other", "2", "functions"]
    assert block[5].split()[0] == "unexplained" and block[6].split()[:4] == ["measured", "1.00", "us", "1.50"]
    assert block[7].startswith("    cProfile of 1,000 and 800 calls") and block[8].startswith("    unexplained: ")
    assert block[9].startswith("fmt/other/float32/1K")  # the next row: the unchanged row has no block


def test_the_block_is_the_rows_table_in_markdown_and_its_explain_object_in_json():
    markdown = compare_document(ROWS, "base", "head", 0.05, hang=explained_rows()).markdown()
    after = markdown.split("\n\nfmt/impl/float32/1K:\n\n", 1)[1].splitlines()
    assert after[0] == "where the time per op moved: the top 2 of 4 functions by change of own time"
    assert after[2].startswith("| function") and "`lib/a.py:50(new_copy)`" in after[4]
    rows = {row["name"]: row for row in json.loads(compare_document(ROWS, "BASE", "HEAD", 0.05,
                                                                    hang=explained_rows()).json())["benchmarks"]}
    record = rows["fmt/impl/float32/1K"]["explain"]
    assert "explain" not in rows["fmt/other/float32/1K"] and "block" not in rows["fmt/other/float32/1K"]
    assert [row["function"] for row in record["top"]] == ["lib/a.py:50(new_copy)", "lib/a.py:40(old_copy)"]
    assert record["change"] == pytest.approx(0.5e-6)
    assert sum(row["change"] for row in record["top"]) + record["rest"] + record["unexplained"] == \
        pytest.approx(record["change"])
    assert [line["function"] for line in rows["fmt/impl/float32/1K"]["block"]][-2:] == ["unexplained", "measured"]



def test_the_json_says_which_decided_rows_explain_could_not_explain_only_with_explain():
    failed = {"fmt/impl/float32/1K": "HEAD: the profile failed"}
    with_explain = json.loads(compare_document(ROWS, "base", "head", 0.05, explain_failed=failed).json())
    assert with_explain["explain_failed"] == failed and list(with_explain)[-1] == "explain_failed"
    assert "explain_failed" not in json.loads(compare_document(ROWS, "base", "head", 0.05).json())


def test_a_report_grid_row_with_two_explained_tiers_names_each_with_its_block_under_it():
    found = explain_table.record(explain("fmt/impl/float32/1K", BASE, HEAD, 1.0e-6, 1.5e-6), 2)
    alone = table_text(explain_table.grid_block({"fmt/impl/float32/1K": found}))
    assert alone[0] == "fmt/impl/float32/1K: where the time per op moved: the top 2 of 4 functions by change of own " \
        "time"
    lines = table_text(explain_table.grid_block({"fmt/impl/float32/1K": found, "fmt/impl/float32/10K": found}))
    block = table_text(explain_table.block_table(found), indent="    ")
    assert lines[1] == "fmt/impl/float32/1K" and lines[2:2 + len(block)] == block
    assert lines[2 + len(block)] == "fmt/impl/float32/10K" and lines[3 + len(block):] == block


def test_a_side_that_cannot_be_profiled_leaves_its_row_unexplained_in_one_line(monkeypatch):
    from serialbench.measure import profiles
    from serialbench.verdicts.paired import Compared
    from serialbench.verdicts.vocabulary import Verdict

    refused = profiles.failed("s", "this side cannot be profiled: its serialbench has no worker API")
    monkeypatch.setattr(profiles, "profile_each", lambda jobs, workers: {
        (side.label, name): BASE if side.label == "BASE" else refused for side, name in jobs})
    verdict = Verdict(change=0.5, low=0.4, high=0.6, level=0.975, detectable=0.05, word="slower", rounds=8,
                      p_value=0.001)
    unchanged = Verdict(change=0.0, low=-0.01, high=0.01, level=0.975, detectable=0.05, word="no change", rounds=8,
                        p_value=0.001)
    rows = [Compared("a/b/float32/1K", 1e-6, 1.5e-6, verdict), Compared("a/c/float32/1K", 1e-6, 1e-6, unchanged)]
    sides = (SimpleNamespace(label="BASE"), SimpleNamespace(label="HEAD"))
    pairs = [explaining.Pair(row.name, row.name, sides, (row.base, row.head)) for row in explaining.decided(rows)]
    found, not_explained = explaining.explain_pairs(pairs, 1)
    assert found == {}
    assert not_explained == {"a/b/float32/1K": "HEAD could not be profiled: this side cannot be profiled: its "
                                               "serialbench has no worker API"}
    assert explain_table.failures(not_explained) == [f"--explain: a/b/float32/1K: {not_explained['a/b/float32/1K']}"]


@pytest.mark.parametrize("extra", [["--explain-top", "0"], ["--memory"]])
def test_explain_s_bad_input_is_one_line_before_any_side_is_made(extra):
    if extra == ["--memory"] and shutil.which("memray") is None:
        pytest.importorskip("memray")
    done = in_process("compare", "HEAD~1", "--explain", *extra)
    line = assert_one_line_usage_error(done)
    assert "--explain" in line


def test_explain_with_a_count_and_no_valgrind_refuses_in_one_line(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    done = in_process("compare", "HEAD~1", "--instructions", "--explain")
    assert "need valgrind" in assert_one_line_usage_error(done)


@pytest.fixture(scope="module")
def calling(tmp_path_factory):
    """toylib 1.0 and 2.0, whose encode calls `padded` once more per op, as local wheels; the cases that use it."""
    root = tmp_path_factory.mktemp("calling")
    (root / "cases").mkdir()
    (root / "cases" / "lib.py").write_text(textwrap.dedent(toys.LIBRARY_CASES))
    return {"v1": toys.make_wheel(root, "1.0", 0, toys.CALLING_LIBRARY),
            "v2": toys.make_wheel(root, "2.0", 1, toys.CALLING_LIBRARY), "cases": root / "cases", "root": root,
            "env": {"XDG_CACHE_HOME": str(root / "cache"), "PIP_NO_INDEX": "1"}}


def explained(calling, out, *extra):
    done = run_serialbench("compare", "--base-with", calling["v1"], "--head-with", calling["v2"], "--cases",
                           calling["cases"], "-b", "lib/*", "--tier", "10K", "--explain", "--json", out, *extra,
                           env=calling["env"])
    (calling["root"] / out.stem).mkdir()
    for path in written_results(done.stderr):  # the side files, out of the work tree: a folder each session
        shutil.move(path, calling["root"] / out.stem)
    assert done.returncode == 0, done.stdout + done.stderr
    return done, json.loads(out.read_text())


@pytest.mark.slow
def test_the_extra_call_is_the_top_mover_and_the_explanation_adds_up_within_the_interval(calling):
    done, data = explained(calling, calling["root"] / "timed.json", "--rounds", "8", "--min-effect", "10")
    rows = {row["name"]: row for row in data["benchmarks"]}
    slower = rows["lib/toylib/float32/10K"]
    assert slower["verdict"] == "slower" and "explain" not in rows["lib/plain/float32/10K"]
    explained_row = slower["explain"]
    assert explained_row["top"][0]["function"] == "toylib/__init__.py:9(padded)"
    assert explained_row["top"][0]["mark"] == "new"
    total = sum(row["change"] for row in explained_row["top"]) + explained_row["rest"] + explained_row["unexplained"]
    assert total == pytest.approx(explained_row["change"], rel=1e-4)
    # What the block adds up to is the measured change: HEAD's median less BASE's, the medians the table gives
    # (not the verdict's paired estimate, whose interval a difference of medians may fall just outside).
    assert explained_row["change"] == pytest.approx(slower["head_median"] - slower["base_median"], rel=1e-3)
    assert explained_row["change"] > 0
    table = done.stdout.splitlines()
    at = next(i for i, line in enumerate(table) if line.startswith("lib/toylib/float32/10K"))
    assert table[at + 1].startswith("    where the time per op moved")
    assert "toylib/__init__.py:9(padded)" in table[at + 3]
    assert slower["block"][0]["function"] == "toylib/__init__.py:9(padded)"


@pytest.mark.slow
def test_report_of_the_side_files_and_the_site_replay_the_blocks_under_the_same_rows(calling, tmp_path):
    done, data = explained(calling, calling["root"] / "replayed.json", "--rounds", "8", "--min-effect", "10")
    base, head = (calling["root"] / "replayed" / Path(path).name for path in written_results(done.stderr))
    explain = {row["name"]: row["explain"] for row in data["benchmarks"] if "explain" in row}
    assert list(explain) == ["lib/toylib/float32/10K"]
    report = run_serialbench("report", base, head, "--json", tmp_path / "report.json", "--markdown",
                             tmp_path / "report.md")
    assert report.returncode == 0, report.stderr
    replayed = {row["name"]: row for row in json.loads((tmp_path / "report.json").read_text())["benchmarks"]}
    assert replayed["lib/toylib/float32/10K"]["explain"] == explain["lib/toylib/float32/10K"]
    assert "explain" not in replayed["lib/plain/float32/10K"]
    lines = report.stdout.splitlines()
    block = explain_table.block_table(explain["lib/toylib/float32/10K"], "lib/toylib/float32/10K")
    shown = table_text(block, indent="    ")
    at = lines.index(shown[0])
    assert lines[at:at + len(shown)] == shown
    assert lines[at - 2].startswith("lib/toylib")  # the row's two lines, then its block, then the next row
    assert lines[at + len(shown)].startswith("lib/plain")
    assert "lib/toylib/float32/10K: where the time per op moved" in (tmp_path / "report.md").read_text()
    page = compare_page(Source("compare", [str(base), str(head)], [load(str(base)), load(str(head))]))
    rows = {row["data"]["name"]: row for row in page["table"]["rows"]}
    assert rows["lib/toylib/float32/10K"]["block"]["rows"][0]["cells"][0] == ["toylib/__init__.py:9(padded)"]
    assert "block" not in rows["lib/plain/float32/10K"]
    # a HEAD file beside a BASE of another session: its explanations are not replayed against it
    other = run_serialbench("report", base, base, "--json", tmp_path / "other.json")
    assert all("explain" not in row for row in json.loads((tmp_path / "other.json").read_text())["benchmarks"])
    assert other.returncode == 0


@pytest.mark.slow
@needs_valgrind
def test_the_same_sides_counted_and_explained_twice_give_the_same_functions_in_the_same_order(calling):
    first, second = (explained(calling, calling["root"] / f"counted-{n}.json", "--instructions")[1]
                     for n in (1, 2))
    tops = [{row["name"]: row["explain"]["top"] for row in data["benchmarks"] if "explain" in row}
            for data in (first, second)]
    assert list(tops[0]) == ["lib/toylib/float32/10K"]
    assert tops[0] == tops[1]  # counts: the same functions, the same counts, the same order
    assert any("bytearray" in row["function"] or "memcpy" in row["function"]
               for row in tops[0]["lib/toylib/float32/10K"])


# Sides whose ops differ by three functions of clearly different own cost: HEAD runs `most` and `some`,
# BASE ran `few`. Their loops are the functions' own time (a loop over a range makes no profiled call).
MOVERS = '''
from serialbench.case import Case


def most():
    for _ in range(10000):
        pass


def some():
    for _ in range(1000):
        pass


def few():
    for _ in range(100):
        pass


def op_of(payload):
    body = payload.tensors[0].value.tobytes()
    return lambda: [{calls}] and body


CASES = [Case("toy", "movers", ("float32",), op_of)]
'''


@pytest.mark.slow
def test_the_same_two_sides_profiled_twice_give_the_same_top_three_in_the_same_order(tmp_path):
    from serialbench.measure.profiles import profile_pairs
    from serialbench.sides.sides import Side
    from tests.helpers import PROJECT_ROOT

    sides = []
    for label, calls in (("BASE", "few()"), ("HEAD", "most(), some()")):
        (tmp_path / label / "cases").mkdir(parents=True)
        (tmp_path / label / "cases" / "movers.py").write_text(MOVERS.replace("{calls}", calls))
        sides.append(Side(label, PROJECT_ROOT, case_dirs=(str(tmp_path / label / "cases"),)))
    name = "toy/movers/float32/1K"
    tops = []
    for _ in range(2):
        [(before, after)] = profile_pairs(sides, [name], 1)
        assert not before.error and not after.error, before.error + after.error
        found = explain(name, before, after, before.per_op, after.per_op)
        tops.append([moved.label for moved in found.top(3)])
    assert tops[0] == tops[1] == ["cases/movers.py:5(most)", "cases/movers.py:10(some)", "cases/movers.py:15(few)"]


@pytest.mark.slow
def test_a_sweep_s_decided_step_is_explained_with_the_extra_call_its_top_mover(calling):
    out = calling["root"] / "sweep.json"
    done = run_serialbench("sweep", calling["v1"], calling["v2"], "--cases", calling["cases"], "-b", "lib/*",
                           "--tier", "10K", "--rounds", "8", "--min-effect", "10", "--explain", "--explain-top", "2",
                           "--json", out, env=calling["env"])
    (calling["root"] / "sweep").mkdir()
    for path in written_results(done.stderr):  # the side files, out of the work tree
        shutil.move(path, calling["root"] / "sweep")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["name"]: row for row in json.loads(out.read_text())["benchmarks"]}
    [step] = rows["lib/toylib/float32/10K"]["steps"]
    assert step["verdict"] == "slower" and "explain" not in rows["lib/plain/float32/10K"]["steps"][0]
    assert step["explain"]["top"][0]["function"] == "toylib/__init__.py:9(padded)"
    assert step["explain"]["top"][0]["mark"] == "new"
    table = done.stdout.splitlines()
    at = next(i for i, line in enumerate(table) if line.startswith("lib/toylib/float32/10K"))
    assert table[at + 1].startswith(f"    {step['from']} -> {step['to']}: where the time per op moved")
    header = next(i for i in range(at + 1, len(table)) if table[i].startswith("    function"))
    assert table[header + 1].startswith("    toylib/__init__.py:9(padded)")  # the top mover, first under the header
    assert "--explain: 1 steps profiled on both sides" in done.stderr


@pytest.mark.slow
def test_the_step_a_bisection_finds_is_explained_with_the_extra_call_its_top_mover(calling):
    out = calling["root"] / "bisect.json"
    done = run_serialbench("bisect", "toylib", "1.0", "2.0", "-b", "lib/toylib/float32/10K", "--cases",
                           calling["cases"], "--rounds", "8", "--min-effect", "10", "--explain", "--json", out,
                           env={**calling["env"], "PIP_FIND_LINKS": str(calling["root"])})
    assert done.returncode == 0, done.stdout + done.stderr
    [step] = json.loads(out.read_text())["steps"]
    assert (step["from"], step["to"], step["verdict"]) == ("1.0", "2.0", "slower")
    assert step["explain"]["top"][0]["function"] == "toylib/__init__.py:9(padded)"
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("lib/toylib/float32/10K: changed at 2.0"))
    assert lines[at + 1].startswith("    1.0 -> 2.0: where the time per op moved")
    assert lines[at + 3].startswith("    toylib/__init__.py:9(padded)")
