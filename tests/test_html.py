"""`serialbench html`: the site of a folder of result files, opened from file:// in a real browser.

The files are made here (a run with its memory file, a compare session's two sides, hostile strings
in names and side descriptions) or are the toy library's sweep (tests/conftest.py `swept`, a step at
v3); the bisection and check-harness pages read the files of tests/testdata/ (tests/hand_built.py). The browser is
Debian's chromium through selenium (tests/browser.py); the browser tests skip, with the reason, only
where it is not installed (.ci/run installs it). Assertions are on content: the series drawn, the
verdict words, the shaded steps, the text shown, the requests made.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from pathlib import Path

import pyperf
import pytest

from serialbench.results import kinds
from serialbench.verdicts import vocabulary
from serialbench.views import site
from tests import browser
from tests.helpers import PROJECT_ROOT, in_process

TESTDATA = PROJECT_ROOT / "tests" / "testdata"

EVIL_IMPL = '<img src=x onerror="window.pwned=1">'
EVIL_FORMAT = "<script>window.pwned=2</script>"  # its '/' is one more word separator: the name still loads
EVIL_SIDE = "<script>window.pwned=3</script><img src=x onerror=window.pwned=4> & more"
TIERS = {"1K": 1_000, "10K": 10_000, "100K": 100_000}
SIZES = {**TIERS, "1M": 1_000_000}  # the elements of every tier a hand-built file uses


def bench(name_words, direction, tier, values_by_run, extra=None):
    fmt, impl, kind = name_words
    metadata = {"name": f"{fmt}/{impl}/{kind}/{tier}", "serialbench_format": fmt, "serialbench_impl": impl,
                "serialbench_input": kind, "serialbench_tier": tier, "serialbench_direction": direction,
                "input_bytes": 4 * SIZES[tier], "payload_bytes": 4 * SIZES[tier] + 100,
                "serialbench_commit": "abc1234567", "date": "2026-12-01 10:00:00", "cpu_model_name": "Test CPU",
                "cpu_count": 2, "python_version": "3.11.7", "numpy_version": "2.4.6", **(extra or {})}
    runs = [pyperf.Run(values, metadata={**metadata, **run_meta}, collect_metadata=False)
            for run_meta, values in values_by_run]
    return pyperf.Benchmark(runs)


def write_run(path: Path, memory: bool = True) -> None:
    """A run of two formats (A with two implementations, B with one) and the floor, at three tiers; the
    second implementation of A is the faster one. One of A's has a hostile name."""
    rows = {("baseline", "tobytes", "float32"): 1e-6, ("fmt-a", "slow", "float32"): 20e-6,
            ("fmt-a", "quick", "float32"): 5e-6, ("fmt-b", "only", "float32"): 9e-6,
            (EVIL_FORMAT, EVIL_IMPL, "float32"): 30e-6}
    benches = []
    for words, base in rows.items():
        for k, tier in enumerate(TIERS):
            scale = base * 10**k
            benches.append(bench(words, "encode", tier, [({}, [scale * f for f in (1.0, 1.02, 0.99)]),
                                                          ({}, [scale * f for f in (1.1, 1.05, 1.08)])]))
    pyperf.BenchmarkSuite(benches).dump(str(path))
    if memory:
        entries = {b.get_name(): {"peak_bytes": 1000, "retained_bytes": 0, "calls": 10, "bytes_per_op": 4321.0,
                                  "allocs_per_op": 7.0} for b in benches}
        path.with_name(path.name.replace(".json", ".memory.json")).write_text(
            json.dumps({"serialbench_memory": 2, "benchmarks": entries}))


def write_compare(folder: Path) -> None:
    """One compare session's two sides: 16 rounds; `slower` takes 20% more time at HEAD, `same` as much."""
    common = {"serialbench_session": "s3ss10n", "serialbench_dirty": 0}
    for role, side in (("base", "evil 1.0 " + EVIL_SIDE), ("head", "evil 2.0")):
        benches = []
        for impl, factor in (("slower", 1.2), ("same", 1.0)):
            runs = []
            for round_ in range(16):
                wobble = 1 + 0.003 * ((round_ * 7) % 5 - 2)
                values = [1e-5 * wobble * (factor if role == "head" else 1.0) * (1 + 0.001 * i) for i in range(5)]
                runs.append(({"serialbench_round": round_}, values))
            benches.append(bench(("fmt-a", impl, "float32"), "encode", "10K", runs,
                                 {**common, "serialbench_side": side, "evil_version": "1.0" if role == "base" else
                                  "<b>2.0</b>"}))
        pyperf.BenchmarkSuite(benches).dump(str(folder / f"compare-evil-{role}.json"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results")
    write_run(folder / "run-one.json")
    write_compare(folder)
    for name in ("bisect.json", "check-harness.json"):
        shutil.copy(TESTDATA / name, folder / name)
    (folder / "truncated.json").write_text('{"version": "1.0", "benchmarks": [{"runs": [')
    (folder / "other.json").write_text('{"hello": "world"}')
    return folder


@pytest.fixture(scope="module")
def built(folder, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    lines = []
    pages = site.build_site([str(folder)], out, lines.append)
    return out, pages, lines


# -- without a browser ----------------------------------------------------------------------------------

def test_embedded_json_cannot_close_its_element_and_reads_back():
    data = {"name": "</script><script>alert(1)</script> & \u2028\u2029"}
    text = site.embed(data)
    assert not any(char in text for char in "<>&\u2028\u2029")
    assert json.loads(text) == data


def test_each_kind_of_result_file_is_told_by_its_content():
    found = {name: kinds.kind_of(kinds.read_json(TESTDATA / name)) for name in (
        "run.json", "compare-base.json", "run.memory.json", "sweep-part-1.json", "bisect.json", "check-harness.json",
        "rounds.json")}  # a run in rounds: a session id in its runs, but no side
    assert list(found.values()) == ["run", "session", "memory", "sweep", "bisect", "check-harness", "run"]


def write_sweep_sides(folder: Path, name: str, session: str, sides=("2.44.0", "2.45.0")) -> list[str]:
    """A sweep session's side files of tritonclient's releases, as `sweep` names them; their names."""
    names = []
    for side in sides:
        runs = [({"serialbench_round": r}, [3.78e-3 * (1 + 0.001 * i) for i in range(5)]) for r in range(16)]
        benches = [bench(("triton-binary", "tritonclient", "int32x3"), "encode", "1M", runs,
                         {"serialbench_session": session, "serialbench_side": f"tritonclient=={side}"})]
        names.append(f"{name}-{side}.json")
        pyperf.BenchmarkSuite(benches).dump(str(folder / names[-1]))
    return names


def test_a_sweep_page_lists_only_the_side_files_its_sweep_wrote(tmp_path):
    """A committed sweep page listed a user's new side files of the same releases among its own sources:
    they matched its sides and benchmarks. A sweep's --json names the files it wrote; those are its."""
    from serialbench.views.sweep_table import sweep_document
    from tests.hand_built import sweep_parts

    folder = tmp_path / "results"
    folder.mkdir()
    part = sweep_parts()[0]
    part.files = write_sweep_sides(folder, "sweep-tritonclient_2.44.0-to-tritonclient_2.45.0", "ours")
    (folder / "sweep.json").write_text(sweep_document(part).json())
    theirs = write_sweep_sides(folder, "sweep-tritonclient_2.44.0-to-tritonclient_2.45.0-2", "theirs")
    (tmp_path / "site").mkdir()
    lines = []
    pages = site.build_site([str(folder)], tmp_path / "site", lines.append)
    (sweep,) = [page for page in pages if page.kind == "sweep"]
    assert [Path(path).name for path in sweep.source.paths] == ["sweep.json", *part.files]
    assert not any(name in path for name in theirs for path in sweep.source.paths)
    assert [Path(path).name for page in pages if page.kind == "compare" for path in page.source.paths] == theirs


def test_the_browser_tests_skip_naming_what_is_missing(monkeypatch, tmp_path):
    """With chromium installed and only its driver missing, the skip said that both were missing."""
    pytest.importorskip("selenium")
    present = tmp_path / "chromium"
    present.write_text("")
    monkeypatch.setattr(browser, "CHROMIUM", str(present))
    monkeypatch.setattr(browser, "CHROMEDRIVER", str(tmp_path / "chromedriver"))
    assert browser.missing() == "Debian's chromium-driver is not installed (apt-get install chromium-driver)"
    monkeypatch.setattr(browser, "CHROMEDRIVER", str(present))
    monkeypatch.setattr(browser, "CHROMIUM", str(tmp_path / "absent"))
    assert browser.missing() == "Debian's chromium is not installed (apt-get install chromium)"


def test_a_malformed_or_foreign_file_is_named_in_one_line_and_the_rest_is_built(built):
    out, pages, lines = built
    assert sorted(page.kind for page in pages) == ["bisect", "check-harness", "compare", "run"]
    truncated = [line for line in lines if "truncated.json" in line]
    other = [line for line in lines if "other.json" in line]
    assert len(truncated) == 1 and "truncated or malformed JSON" in truncated[0]
    assert len(other) == 1 and "not a serialbench result" in other[0]
    assert all("\n" not in line for line in lines)
    assert (out / "index.html").exists() and (out / "assets" / "plotly-basic.min.js").exists()


def test_the_command_refuses_a_folder_that_is_not_empty_and_reports_what_it_built(folder, tmp_path):
    (tmp_path / "old.html").write_text("")
    done = in_process("html", folder, "-o", tmp_path)
    assert done.returncode == 2 and "exists and is never overwritten" in done.stderr
    assert (tmp_path / "new").mkdir() is None  # an empty folder is taken
    done = in_process("html", folder / "run-one.json", "-o", tmp_path / "new")
    assert done.returncode == 0 and "1 pages" in done.stdout


def test_the_shipped_plotly_is_the_one_its_readme_names():
    assert hashlib.sha256((site.ASSETS / "plotly-basic.min.js").read_bytes()).hexdigest() == site.PLOTLY[1]
    assert f"v{site.PLOTLY[0]}" in (site.ASSETS / "plotly-basic.min.js").read_text()[:200]


# -- in the browser --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def chromium():
    why = browser.missing()
    if why:
        pytest.skip(why)
    with browser.chromium() as driver:
        yield driver


def open_page(driver, path: Path | str, hash_: str = ""):
    browser.requests(driver)  # forget what came before
    driver.get((path if isinstance(path, str) else path.as_uri()) + hash_)
    for _ in range(100):
        if driver.execute_script("return document.getElementById('main').children.length > 1"):
            break
        time.sleep(0.05)
    return driver


def series(driver, chart="chart"):
    return driver.execute_script(f"return document.getElementById('{chart}').data.map(t => t.meta)")


@pytest.mark.slow
def test_the_index_lists_every_result_of_the_folder(chromium, built):
    out, pages, _ = built
    open_page(chromium, out / "index.html")
    rows = chromium.execute_script("return [...document.querySelectorAll('#results tbody tr')].map(r => "
                                   "[r.dataset.kind, r.querySelector('a').getAttribute('href')])")
    assert sorted(rows) == sorted([page.kind, page.file] for page in pages)
    text = chromium.find_element("id", "results").text
    assert "Test CPU, 2 CPUs" in text and "abc1234567" in text and "evil 1.0 -> <b>2.0</b>" in text


@pytest.mark.slow
def test_a_run_draws_the_fastest_of_each_format_and_a_control_removes_a_series(chromium, built):
    out, pages, _ = built
    run = next(page for page in pages if page.kind == "run")
    open_page(chromium, out / run.file)
    assert series(chromium) == ["baseline/tobytes", "fmt-a/quick", "fmt-b/only", f"{EVIL_FORMAT}/{EVIL_IMPL}"]
    chromium.find_element("css selector", "input[value='fmt-b/only']").click()
    assert series(chromium) == ["baseline/tobytes", "fmt-a/quick", f"{EVIL_FORMAT}/{EVIL_IMPL}"]
    chromium.find_element("css selector", "input[value='fmt-a/slow']").click()
    assert series(chromium) == ["baseline/tobytes", "fmt-a/slow", "fmt-a/quick", f"{EVIL_FORMAT}/{EVIL_IMPL}"]
    tiers = chromium.execute_script("return document.getElementById('chart').data[1].x")
    assert tiers == list(TIERS.values())


@pytest.mark.slow
def test_a_run_of_one_tier_draws_a_bar_per_implementation_not_a_strip_of_dots(chromium, tmp_path):
    """A run of one tier drew its time against tier: every point on one vertical line, overlapping."""
    folder = tmp_path / "results"
    folder.mkdir()
    medians = {("baseline", "tobytes", "float32"): 1e-6, ("fmt-a", "slow", "float32"): 2e-5,
               ("fmt-a", "quick", "float32"): 5e-6}
    pyperf.BenchmarkSuite([bench(words, "encode", "10K", [({}, [median, median * 1.01])])
                           for words, median in medians.items()]).dump(str(folder / "one-tier.json"))
    (tmp_path / "site").mkdir()
    (page,) = [page for page in site.build_site([str(folder)], tmp_path / "site", lambda line: None)
               if page.kind == "run"]
    open_page(chromium, tmp_path / "site" / page.file)
    bars = chromium.execute_script("return document.getElementById('chart').data.map(t => [t.type, t.meta, t.x[0]])")
    assert bars == [["bar", "baseline/tobytes", pytest.approx(1.005e-6)],
                    ["bar", "fmt-a/quick", pytest.approx(5.025e-6)]]
    assert "at 10K" in chromium.execute_script("return document.getElementById('chart').layout.title.text")


@pytest.mark.slow
def test_a_run_tooltip_gives_median_spread_bytes_allocations_and_stability(chromium, built):
    out, pages, _ = built
    run = next(page for page in pages if page.kind == "run")
    open_page(chromium, out / run.file, "#input=float32&direction=encode&impls=fmt-a%2Fquick")
    chromium.execute_script("Plotly.Fx.hover(document.getElementById('chart'), [{curveNumber: 1, pointNumber: 0}])")
    text = chromium.execute_script("return [...document.querySelectorAll('.hovertext')].map(n => n.textContent)"
                                   ".join(' ')")
    # the terminal's 5.18 us (5.1750000000000004 us): the tooltip once formatted the JSON's six digits, 5.17
    assert "fmt-a/quick/float32/1K" in text and "median 5.18 us, 5.0x the floor" in text
    assert "workers' medians 5.00 us to 5.40 us (2 workers)" in text and "payload 4.10 KB" in text
    assert "4.32 KB/op, 7 allocs/op" in text and "2 processes: too few for a 95% interval" in text
    open_page(chromium, out / run.file, "#input=float32&direction=encode&benchmark=fmt-a%2Fquick%2Ffloat32%2F1K")
    assert chromium.find_element("id", "focus").text.splitlines()[:2] == [
        "fmt-a/quick/float32/1K", "median 5.18 us, 5.0x the floor"]  # a kept point, from the link


@pytest.mark.slow
def test_reloading_with_a_url_hash_restores_the_view(chromium, built):
    out, pages, _ = built
    run = next(page for page in pages if page.kind == "run")
    open_page(chromium, out / run.file, "#input=float32&direction=encode&impls=fmt-a%2Fslow%2Cfmt-b%2Fonly")
    assert series(chromium) == ["baseline/tobytes", "fmt-a/slow", "fmt-b/only"]
    chromium.find_element("css selector", "input[value='fmt-a/quick']").click()
    link = chromium.current_url
    chromium.get("about:blank")
    open_page(chromium, link)
    assert series(chromium) == ["baseline/tobytes", "fmt-a/slow", "fmt-a/quick", "fmt-b/only"]
    assert [box.get_attribute("value") for box in chromium.find_elements("css selector", "#impls input:checked")] == [
        "fmt-a/slow", "fmt-a/quick", "fmt-b/only"]


@pytest.mark.slow
def test_a_compare_shows_each_rows_verdict_and_interval_and_its_forest_plot(chromium, built):
    out, pages, _ = built
    compare = next(page for page in pages if page.kind == "compare")
    open_page(chromium, out / compare.file)
    rows = chromium.execute_script("return [...document.querySelectorAll('#verdicts tbody tr')].map(r => "
                                   "[r.dataset.name, r.querySelector('.interval').textContent, "
                                   "r.querySelector('.verdict').textContent])")
    by_name = {name: (interval, word) for name, interval, word in rows}
    assert by_name["fmt-a/slower/float32/10K"][1] == "slower"
    assert by_name["fmt-a/slower/float32/10K"][0].startswith("+20.0% [+")
    assert by_name["fmt-a/same/float32/10K"][1] == "no change"
    assert "selection" in by_name
    forest = chromium.execute_script("const gd = document.getElementById('forest'); return [gd.data.map(t => "
                                     "[t.meta, t.customdata]), gd.layout.shapes.map(s => s.x0)]")
    assert sorted(forest[0]) == [["no change", ["fmt-a/same/float32/10K"]],
                                 ["slower", ["fmt-a/slower/float32/10K", "selection"]]]
    assert sorted(forest[1]) == [-2, 0, 2]  # the minimum effect either side of no change
    chromium.find_element("css selector", "#verdicts tr[data-name='fmt-a/slower/float32/10K']").click()
    assert "benchmark=fmt-a%2Fslower" in chromium.current_url
    assert len(chromium.execute_script("return document.getElementById('rounds').data[0].y")) == 16


@pytest.mark.slow
def test_result_strings_show_as_text_and_run_nothing(chromium, built):
    out, pages, _ = built
    for page in pages:
        if page.kind in ("run", "compare"):
            open_page(chromium, out / page.file)
            if page.kind == "run":
                chromium.execute_script("Plotly.Fx.hover(document.getElementById('chart'), "
                                        "[{curveNumber: 3, pointNumber: 0}])")
                hover = chromium.execute_script("return [...document.querySelectorAll('.hovertext')]"
                                                ".map(n => n.textContent).join(' ')")
                assert f"{EVIL_FORMAT}/{EVIL_IMPL}/float32/1K" in hover
                legend = chromium.execute_script("return [...document.querySelectorAll('.legendtext')]"
                                                 ".map(n => n.textContent)")
                assert f"{EVIL_FORMAT}/{EVIL_IMPL}" in legend
                assert EVIL_IMPL in chromium.find_element("id", "impls").text
            else:
                assert EVIL_SIDE in chromium.find_element("css selector", "#sides thead th:nth-child(2)").text
                assert "<b>2.0</b>" in chromium.find_element("id", "sides").text
            assert chromium.execute_script("return window.pwned") is None
            assert chromium.execute_script("return document.querySelectorAll('img').length") == 0
            assert chromium.execute_script("return document.scripts.length") == 3  # data, plotly, site.js
            assert browser.console_errors(chromium) == []


@pytest.mark.slow
def test_no_page_makes_a_network_request(chromium, built):
    out, pages, _ = built
    for name in ["index.html", *(page.file for page in pages)]:
        open_page(chromium, out / name)
        made = browser.requests(chromium)
        assert made and all(url.startswith(("file://", "data:")) for url in made), (name, made)


@pytest.mark.slow
def test_the_bisection_is_a_ladder_down_to_the_answer(chromium, built):
    out, pages, _ = built
    bisect = next(page for page in pages if page.kind == "bisect")
    open_page(chromium, out / bisect.file)
    assert chromium.find_element("id", "answer").text.startswith(
        "triton-binary/tritonclient/int32x3/1M: changed at 2.46.0 (after 2.45.0): faster, -54.9%")
    sessions = chromium.find_elements("css selector", "#ladder tbody tr")
    assert len(sessions) == len(json.loads((TESTDATA / "bisect.json").read_text())["sessions"]) == 3
    assert "faster" in sessions[-1].text


@pytest.mark.slow
def test_a_bisection_of_several_steps_lists_each_with_its_share_and_what_was_left(chromium, tmp_path):
    from serialbench.verdicts.bisection import Bracket, Result
    from serialbench.verdicts.steps import Step
    from serialbench.views.table import Document
    from serialbench.views.verdict_json import bisect_keys

    steps = [Step("3.9.15", "3.10.0", 0.028, 0.024, 0.034, vocabulary.SLOWER, 8),
             Step("3.10.1", "3.10.2", 0.091, 0.08, 0.102, vocabulary.SLOWER, 8)]
    whole = Step("3.9.15", "3.10.9", 0.12, 0.11, 0.131, vocabulary.SLOWER, 8)
    left = Step("3.10.4", "3.10.9", 0.02, 0.017, 0.023, vocabulary.AT_THRESHOLD, 64)
    result = Result(steps, whole, unsearched=[(Bracket("3.10.4", "3.10.9", left), "--max-sessions 4 ran out")])
    sessions = [{"sides": ["3.9.15", "3.10.4", "3.10.9"], "rounds": 8, "minutes": 0.1, "steps": [whole, left, whole]}]
    folder = tmp_path / "results"
    folder.mkdir()
    keys = bisect_keys("x/y/int32x3/10K", "3.9.15", "3.10.9", result, sessions)
    (folder / "bisect-orjson.json").write_text(Document([], keys=keys).json())
    (tmp_path / "site").mkdir()
    (page,) = site.build_site([str(folder)], tmp_path / "site", lambda line: None)
    open_page(chromium, tmp_path / "site" / page.file)
    assert chromium.find_element("id", "answer").text == (
        "x/y/int32x3/10K: 2 steps from 3.9.15 to 3.10.9, whose whole change is slower, +12.0% [+11.0%, +13.1%]; "
        "1 sessions")
    assert [li.text for li in chromium.find_elements("css selector", "#steps li")] == [
        "3.9.15 -> 3.10.0: slower, +2.8% [+2.4%, +3.4%], 24% of the whole change",
        "3.10.1 -> 3.10.2: slower, +9.1% [+8.0%, +10.2%], 77% of the whole change",
        "the steps found: 101% of the whole change"]
    assert ("unsearched: 3.10.4 -> 3.10.9 (at the threshold, +2.0% [+1.7%, +2.3%]): --max-sessions 4 ran out"
            in chromium.find_element("id", "main").text)


def test_a_bisections_page_gives_the_terminals_answer():
    """The page's lines are bisect's (views/bisect_steps.answer_lines) on the file read back; the file keeps no
    wall time, so the page says how many sessions."""
    from serialbench.results.sources import Source
    from serialbench.verdicts.bisection import Bracket, Result
    from serialbench.verdicts.steps import Step
    from serialbench.views.bisect_steps import answer_lines
    from serialbench.views.site.pages import bisect_page
    from serialbench.views.verdict_json import bisect_keys

    whole = Step("3.9.15", "3.10.9", 0.12, 0.11, 0.131, vocabulary.SLOWER, 8)
    found = [Step("3.9.15", "3.10.0", 0.028, 0.024, 0.034, vocabulary.SLOWER, 8),
             Step("3.10.1", "3.10.2", 0.091, 0.08, 0.102, vocabulary.SLOWER, 8)]
    for steps in ([], found[:1], found):
        result = Result(steps, whole, ["no step of 3.10.4 -> 3.10.5 changed", "two notes; the second with a semicolon"],
                        [(Bracket("3.10.4", "3.10.9", whole), "--max-sessions 4 ran out")])
        sessions = [{"sides": ["3.9.15", "3.10.9"], "rounds": 8, "minutes": 0.1, "steps": [whole]}]
        keys = bisect_keys("x/y/int32x3/10K", "3.9.15", "3.10.9", result, sessions, direction="slower", minutes=0.5)
        page = bisect_page(Source("bisect", ["bisect.json"], data=json.loads(json.dumps(keys))))
        shown = [page["answer"], *(f"  {s['line']}" for s in page["steps"] if s["line"]), *page["uncertain_lines"]]
        assert shown == answer_lines("x/y/int32x3/10K", result, "3.9.15", "3.10.9", "slower", "1 sessions in 0.5 min")


def test_a_bisections_ladder_says_each_session_as_the_terminal_did():
    from serialbench.results.sources import Source
    from serialbench.verdicts.steps import read_step
    from serialbench.views.bisect_steps import session_line
    from serialbench.views.site.pages import bisect_page

    data = json.loads((TESTDATA / "bisect.json").read_text())
    rows = bisect_page(Source("bisect", ["bisect.json"], data=data))["ladder"]["rows"]
    for number, (session, row) in enumerate(zip(data["sessions"], rows), start=1):
        steps, took = row["cells"][-2:]
        said = session_line(number, {**session, "steps": [read_step(step) for step in session["steps"]]})
        adjacent = [line.rsplit(", ", 1)[0] for line in steps[:len(session["sides"]) - 1]]
        assert said == f"session {number} ({took[0]}): " + "; ".join(adjacent)


def test_a_sweeps_line_on_the_page_is_the_plots():
    """The chart's points and bars are SweepRow.line's, as sweep --plot draws them: a change with one end of
    its interval and not the other gets no bar (not half of one)."""
    from serialbench.results.sources import Source
    from serialbench.verdicts.steps import Step, Sweep, SweepRow, sweep_from_json
    from serialbench.views.site.pages import sweep_page
    from serialbench.views.verdict_json import sweep_keys

    steps = (Step("1.0", "2.0", 0.5, 0.4, 0.6, vocabulary.SLOWER, 8),
             Step("1.0", "3.0", -0.5, -0.6, float("inf"), vocabulary.TOO_NOISY, 2))
    row = SweepRow("a/b/float32/1K", ("1.0", "2.0", "3.0"), (2e-6, 3e-6, 1e-6), steps[:1], steps)
    text = json.dumps(sweep_keys(Sweep(["1.0", "2.0", "3.0"], [row], 0.02)))
    (line,) = [bench["line"] for bench in sweep_page(Source("sweep", ["s.json"], data=json.loads(text)))["benchmarks"]]
    (row,) = sweep_from_json(text, "s.json").rows
    assert line["y"] == [pytest.approx(p.time) for p in row.line()]
    assert line["plus"] == [pytest.approx(p.high - p.time) for p in row.line()] == [0, pytest.approx(2e-7), 0]
    assert line["minus"] == [pytest.approx(p.time - p.low) for p in row.line()] == [0, pytest.approx(2e-7), 0]
    assert line["text"] == ["1.0: 2.00 us (the anchor)", "2.0: +50.0% [+40.0%, +60.0%] against 1.0",
                            "3.0: -50.0% [-60.0%, +inf] against 1.0"]


@pytest.fixture(scope="module")
def sweep_site(swept, toy, tmp_path_factory):
    done, data = swept
    assert data is not None, done.stderr
    folder = tmp_path_factory.mktemp("sweep-results")
    (folder / "sweep-toylib.json").write_text(json.dumps(data))
    for path in (toy["root"] / "sides").iterdir():
        shutil.copy(path, folder / path.name)
    out = tmp_path_factory.mktemp("sweep-site")
    lines = []
    pages = site.build_site([str(folder)], out, lines.append)
    assert lines == [] and [page.kind for page in pages] == ["sweep"]
    return out / pages[0].file


@pytest.mark.slow
def test_the_toy_librarys_sweep_shades_the_step_at_v3_and_no_other(chromium, sweep_site):
    open_page(chromium, sweep_site)
    # The releases the shading spans (plotly once read the labels 2.0 and 3.0 as positions: 3.0 to 4.0).
    shapes = chromium.execute_script("return [...document.querySelectorAll('#charts .panel')].map(gd => "
                                     "[gd.dataset.name, gd.layout.shapes.map(s => [s.x0, s.x1].map(x => "
                                     "gd._fullLayout.xaxis._categories[x]))])")
    assert shapes == [["lib/toylib/float32/10K", [["2.0", "3.0"]]]]
    steps = chromium.execute_script("return [...document.querySelectorAll('#releases td.step')].map(c => "
                                    "[c.dataset.side, c.dataset.verdict])")
    assert steps == [["3.0", "slower"]]
    chromium.find_element("css selector", "#releases td.step").click()
    assert "step=3.0" in chromium.current_url
    detail = chromium.find_element("id", "step").text
    assert "1.0 -> 3.0" not in detail and "2.0 -> 3.0" in detail and "slower" in detail and "8 rounds" in detail
    assert len(chromium.execute_script("return document.getElementById('rounds').data[0].y")) == 8


def test_a_folder_without_result_files_is_refused_in_one_line_and_nothing_is_written(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a result")
    done = in_process("html", empty, "-o", tmp_path / "site")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"serialbench: error: no result files in {empty}: give result files "
                                        "(.json or .json.gz) or folders that hold them"]
    assert not (tmp_path / "site").exists()


# -- sweeps and bisections of a library's commits ---------------------------------------------------------

@pytest.fixture(scope="module")
def commits_site(tmp_path_factory):
    """The site of a sweep and a bisection of commits (tests/hand_built.py): the built pages by kind."""
    from tests.hand_built import bisection_of_commits, sweep_of_commits

    folder = tmp_path_factory.mktemp("commit-results")
    (folder / "sweep-msgpack.json").write_text(sweep_of_commits())
    (folder / "bisect-msgpack.json").write_text(bisection_of_commits())
    out = tmp_path_factory.mktemp("commit-site")
    lines = []
    pages = site.build_site([str(folder)], out, lines.append)
    assert lines == []
    return out, {page.kind: page for page in pages}


def test_a_sweep_of_commits_gives_its_page_the_commits_in_order_and_why_one_was_skipped(commits_site):
    from serialbench.views.site.pages import sweep_page
    from tests.hand_built import HISTORY, NO_GCC

    data = sweep_page(commits_site[1]["sweep"].source)
    assert data["history"] == HISTORY
    assert [(c["label"], c["timed"], c["skipped"]) for c in data["commits"]] == [
        ("9f9bdae3", True, None), ("a1b2c3d4", True, None), ("5eb57e14", False, NO_GCC), ("12345678", True, None),
        ("c0ffee42", True, None)]
    assert data["commits"][2]["subject"] == "Build with Cython 3.1 (#723)"
    assert data["commits"][4]["files"] == ["msgpack/__init__.py", "ChangeLog.rst", "README.md"]
    (row,) = [row for row in site.index_rows(list(commits_site[1].values())) if row["kind"] == "sweep"]
    assert row["libraries"] == f"{HISTORY} 9f9bdae3 to c0ffee42 (4 sides)"


def test_a_bisection_of_commits_orders_its_versions_as_the_range_not_as_releases(commits_site):
    from serialbench.views.site.pages import bisect_page
    from tests.hand_built import NO_GCC

    source = commits_site[1]["bisect"].source
    data = bisect_page(source)
    # By version, 12345678 (a valid version, the hex labels are not) would come first.
    assert data["ladder"]["columns"][:-2] == ["e1a2b3c4", "12345678", "f00dcafe", "badc0ffe"]
    assert [c["label"] for c in data["commits"]] == source.data["order"]
    assert [(c["label"], c["skipped"]) for c in data["commits"] if c["skipped"]] == [("5eb57e14", NO_GCC)]
    assert [c["label"] for c in data["commits"] if c["timed"]] == data["ladder"]["columns"][:-2]


def test_a_pages_data_holds_only_what_its_script_reads(built, commits_site, history_site):
    """Every key of a page's data is read by site.js (DATA.key), but its kind, which the page's body gives."""
    from serialbench.views.site import BUILDERS

    read = set(re.findall(r"DATA\.(\w+)", (site.ASSETS / "site.js").read_text()))
    pages = [*built[1], *commits_site[1].values(), *history_site[1]]
    assert {"run", "compare", "sweep", "bisect", "check-harness", "history"} <= {page.kind for page in pages}
    for page in pages:
        data = BUILDERS[page.kind](page.source)
        assert set(data) - read - {"kind", "index"} == set(), page.kind


def test_a_bisection_whose_commits_are_not_objects_is_left_out_in_one_line(tmp_path):
    data = json.loads((TESTDATA / "bisect.json").read_text())
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "bisect.json").write_text(json.dumps({**data, "commits": ["2.46.0"]}))
    (tmp_path / "out").mkdir()
    lines = []
    assert site.build_site([str(tmp_path / "in")], tmp_path / "out", lines.append) == []
    assert lines == [f"left out: {tmp_path / 'in' / 'bisect.json'}: cannot be shown (TypeError: its commits (and the "
                     "skipped ones) are not objects of label -> commit (-> why))"]


def test_a_sweep_or_bisection_of_releases_gets_the_page_data_it_had():
    """Files of releases have no commits: their pages have no commit keys and versions sort as versions."""
    from serialbench.results.sources import Source
    from serialbench.views.site.pages import bisect_page, sweep_page

    sweep = sweep_page(Source("sweep", ["sweep.json"], data=json.loads((TESTDATA / "sweep-part-2.json").read_text())))
    bisect = json.loads((TESTDATA / "bisect.json").read_text())
    bisect["sessions"].append({"sides": ["2.9.0", "2.40.0"], "rounds": 1, "minutes": 0, "steps": []})
    page = bisect_page(Source("bisect", ["bisect.json"], data=bisect))
    assert not {"commits", "history"} & (sweep.keys() | page.keys())
    assert page["ladder"]["columns"][:-2] == ["2.9.0", "2.40.0", "2.44.0", "2.45.0", "2.46.0", "2.47.0", "2.50.0"]


@pytest.mark.slow
def test_a_sweep_of_commits_shows_each_commit_its_skipped_one_and_a_steps_commit(chromium, commits_site):
    from tests.hand_built import HISTORY, NO_GCC

    out, pages = commits_site
    open_page(chromium, out / pages["sweep"].file)
    assert chromium.find_element("css selector", "#main > p").text.startswith(f"{HISTORY}: 4 commits, 1 benchmarks")
    rows = chromium.execute_script("return [...document.querySelectorAll('#commits tbody tr')].map(r => "
                                   "[...r.children].map(c => c.textContent))")
    assert rows == [["9f9bdae3", "2026-08-01", "Release v1.1.2", "1", "timed"],
                    ["a1b2c3d4", "2026-08-05", "Drop Python 3.8 (#720)", "2", "timed"],
                    ["5eb57e14", "2026-08-09", "Build with Cython 3.1 (#723)", "1", f"skipped: {NO_GCC}"],
                    ["12345678", "2026-08-14", "Convert Packer's buf_size once (#726)", "1", "timed"],
                    ["c0ffee42", "2026-08-20", "Release v1.2.0", "3", "timed"]]
    assert chromium.execute_script("return document.querySelector('#commits tr[data-label=c0ffee42] td.number')"
                                   ".title") == "msgpack/__init__.py\nChangeLog.rst\nREADME.md"
    shading, right = chromium.execute_script("const gd = document.getElementById('panel-0'); return [gd.layout"
                                             ".shapes.map(s => [s.x0, s.x1].map(x => gd._fullLayout.xaxis._categories"
                                             "[x])), gd._fullLayout.xaxis.range[1]]")
    assert shading == [["a1b2c3d4", "12345678"]] and right < 4  # not out at position 12345678
    text = chromium.find_element("id", "main").text
    assert f"Skipped\n5eb57e14 (Build with Cython 3.1 (#723)): {NO_GCC}" in text and "Left out" not in text
    chromium.find_element("css selector", "#releases td.step").click()
    assert chromium.find_element("css selector", "#step .commit").text == (
        "12345678 (2026-08-14): Convert Packer's buf_size once (#726); 1 file changed")
    assert browser.console_errors(chromium) == []


@pytest.mark.slow
def test_a_bisection_of_commits_lists_them_in_the_ranges_order_and_names_the_steps_commit(chromium, commits_site):
    from tests.hand_built import NO_GCC

    out, pages = commits_site
    open_page(chromium, out / pages["bisect"].file)
    assert [th.text for th in chromium.find_elements("css selector", "#ladder thead th")] == [
        "", "e1a2b3c4", "12345678", "f00dcafe", "badc0ffe", "steps", "took"]
    assert chromium.find_element("id", "answer").text.startswith(
        "msgpack/packb/float32/1M: changed at f00dcafe (after 12345678): slower, +20.0%")
    note = chromium.find_element("css selector", "#answer + .commit")
    assert note.text == "f00dcafe (2026-08-07): Convert Packer's buf_size once (#726); 2 files changed"
    assert note.get_attribute("title") == "msgpack/_packer.pyx\nmsgpack/_unpacker.pyx"
    assert [li.text for li in chromium.find_elements("css selector", "#skipped li")] == [
        f"5eb57e14 (Build with Cython 3.1 (#723)): {NO_GCC}"]
    assert browser.console_errors(chromium) == []


# -- a history of runs --------------------------------------------------------------------------------

def write_history(folder: Path) -> None:
    """Three runs of three commits a day apart: the machine 12% slower on the second day, the op's multiple
    of the floor the same; on the third day the op takes 30% more than its floor's share."""
    for day, (commit, speed, multiple) in enumerate((("c0mmit1", 1.0, 4.0), ("c0mmit2", 1.12, 4.0),
                                                     ("c0mmit3", 1.0, 5.2)), start=1):
        benches = []
        for words, per_op, ratio in ((("baseline", "tobytes", "float32"), 1e-6, None),
                                     (("fmt-a", "copies", "float32"), multiple * 1e-6, multiple)):
            runs = [({"serialbench_round": index, **({"serialbench_floor_ratio": ratio * (1 + 0.002 * index)}
                                                      if ratio else {})},
                     [per_op * speed * (1 + 0.001 * index)] * 3) for index in range(6)]
            benches.append(bench(words, "encode", "10K", runs, {"serialbench_commit": commit,
                                                                 "date": f"2026-12-0{day} 10:00:00"}))
        pyperf.BenchmarkSuite(benches).dump(str(folder / f"run-{commit}.json"))


@pytest.fixture(scope="module")
def history_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("history")
    write_history(folder)
    out = tmp_path_factory.mktemp("history-site")
    pages = site.build_site([str(folder)], out, lambda line: None)
    return out, pages


def test_runs_of_several_commits_get_a_history_page_of_multiples_with_the_time_behind(history_site):
    out, pages = history_site
    (history,) = [page for page in pages if page.kind == "history"]
    data = site.BUILDERS["history"](history.source)
    assert [run["label"] for run in data["runs"]] == ["c0mmit1", "c0mmit2", "c0mmit3"]
    (op,) = [b for b in data["benchmarks"] if b["name"] == "fmt-a/copies/float32/10K"]
    floors = [p["floor_time"] for p in op["points"]]
    assert [round(f / floors[0] - 1, 2) for f in floors] == [0.0, 0.12, 0.0]  # the machine's drift, beside
    assert [round(p["multiple"], 1) for p in op["points"]] == [4.0, 4.0, 5.2]  # the drift of day 2 is not drawn
    assert op["points"][1]["time"] > 1.1 * op["points"][0]["time"]  # the time behind it has it


@pytest.mark.slow
def test_the_history_page_draws_the_multiple_over_the_runs_and_the_time_on_its_own_axis(chromium, history_site):
    out, pages = history_site
    history = next(page for page in pages if page.kind == "history")
    open_page(chromium, out / history.file, "#benchmark=fmt-a%2Fcopies%2Ffloat32%2F10K")
    traces = chromium.execute_script("return document.getElementById('history-chart').data.map(t => "
                                     "[t.name, t.y, t.yaxis || 'y'])")
    assert [name for name, _, _ in traces] == ["multiple of the floor", "time per op"]
    assert [round(y, 1) for y in traces[0][1]] == [4.0, 4.0, 5.2] and traces[1][2] == "y2"
    rows = chromium.execute_script("return [...document.querySelectorAll('#history tbody tr')].map(r => "
                                   "[...r.children].map(c => c.textContent))")
    assert [row[0] for row in rows] == ["1: c0mmit1", "2: c0mmit2", "3: c0mmit3"]
    assert rows[1][3].startswith("4.0x [") and rows[1][6] == "+12.0%"


def test_the_sites_script_formats_no_number_of_its_own():
    """Every number on a page is Python's text (core/formatting.py), the terminal's: the script has no
    format of its own that could print another figure for the same value."""
    script = (site.ASSETS / "site.js").read_text()
    assert not re.findall(r"\.(toFixed|toPrecision|toLocaleString)\(|Math\.round\(", script)


@pytest.mark.slow
def test_a_rows_block_of_lines_is_drawn_under_its_row(chromium):
    """views/table.py's Row.block (compare --explain's functions under a decided row) reaches the page."""
    from serialbench.views.table import Table, column, data

    inner = Table.of([column("function", "function", lambda f: f[0], left=True),
                      column("change", "change", lambda f: f[1])], [("pack", "+10.0%")])
    outer = Table.of([column("name", "benchmark", lambda name: name, left=True)], ["a/b/c/1K", "d/e/f/1K"])
    outer.rows[0].block = inner
    script = (site.ASSETS / "site.js").read_text()
    functions = (script[script.index("  function el("):script.index("  function plotText(")]
                 + script[script.index("  // A views/table.py Table"):script.index("  function commitNote(")])
    chromium.get("about:blank")
    rows = chromium.execute_script(functions + "\nconst t = drawTable(arguments[0]); document.body.append(t); return "
                                   "[...t.querySelectorAll(':scope > tbody > tr')].map(r => r.textContent);",
                                   data(outer))
    assert rows == ["a/b/c/1K", "functionchangepack+10.0%", "d/e/f/1K"]


def test_a_sweep_of_interpreters_gives_its_page_the_word_and_steps_against_the_anchor(tmp_path):
    """The page of a sweep whose steps are each against the anchor (sweep --pythons) says interpreter and
    shades each interpreter's own column (site.js reads against_anchor)."""
    from serialbench.views.site.pages import sweep_page
    from serialbench.views.sweep_table import sweep_document
    from tests.test_sweep import judged

    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "sweep-pythons.json").write_text(sweep_document(judged(against_anchor=True)[1]).json())
    (tmp_path / "site").mkdir()
    lines = []
    pages = site.build_site([str(folder)], tmp_path / "site", lines.append)
    (page,) = [page for page in pages if page.kind == "sweep"]
    data = sweep_page(page.source)
    assert (data["noun"], data["against_anchor"]) == ("interpreter", True)
    assert data["summary"].startswith("3 interpreters, 1 benchmarks, anchor python 3.11.7")
    assert "an interpreter slower or faster than the anchor is shaded" in data["chart_legend"]
    assert [(s["from"], s["to"]) for s in data["benchmarks"][0]["steps"]] == [
        ("python 3.11.7", "python 3.12.3"), ("python 3.11.7", "python 3.13.0")]
    (row,) = [row for row in site.index_rows(pages) if row["kind"] == "sweep"]
    assert row["libraries"].startswith("interpreters python 3.11.7 to python 3.13.0")


@pytest.mark.slow
def test_a_sweep_of_interpreters_shades_each_interpreters_own_column(chromium, tmp_path):
    from serialbench.views.sweep_table import sweep_document
    from tests.test_sweep import judged

    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "sweep-pythons.json").write_text(sweep_document(judged(against_anchor=True)[1]).json())
    (tmp_path / "site").mkdir()
    (page,) = site.build_site([str(folder)], tmp_path / "site", print)
    open_page(chromium, tmp_path / "site" / page.file)
    shapes = chromium.execute_script("return [...document.querySelectorAll('#charts .panel')].map(gd => "
                                     "gd.layout.shapes.map(s => [s.x0, s.x1]))")
    assert shapes == [[[0.6, 1.4], [1.6, 2.4]]]  # around python 3.12.3 (1) and 3.13.0 (2), not from the anchor
    assert "Benchmark by interpreter" in chromium.find_element("id", "main").text


def test_a_run_page_gives_allocations_and_a_check_harness_page_its_tolerance_as_the_terminal_does(tmp_path):
    """The tooltip's allocs/op is the memory table's text (30.0K, not 30000); the panel's tolerance is its
    legend's (25%, not 25.0%)."""
    from serialbench.results.files import load
    from serialbench.results.sources import Source
    from serialbench.views.harness_table import Panel
    from serialbench.views.site.pages import check_harness_page, run_page
    from serialbench.views.timing import memory_tables

    write_run(tmp_path / "run.json")
    memory = tmp_path / "run.memory.json"
    entries = json.loads(memory.read_text())
    for entry in entries["benchmarks"].values():
        entry["allocs_per_op"] = 30_000.0
    memory.write_text(json.dumps(entries))
    page = run_page(Source("run", [str(tmp_path / "run.json")], files=[load(tmp_path / "run.json")]))
    hover = " ".join(page["benchmarks"][0]["hover"])
    assert "30.0K allocs/op" in hover
    table = memory_tables(load(tmp_path / "run.json").results)[0]
    assert any("30.0K allocs" in line for row in table.rows for cell in row.cells if cell for line in cell.lines)
    data = json.loads((TESTDATA / "check-harness.json").read_text())
    panel = check_harness_page(Source("check-harness", ["check-harness.json"], data=data))
    assert "tolerance 25%" in panel["summary"]
    assert "more than 25% and none" in " ".join(Panel([], {}, data["tolerance"], 3).legend())
