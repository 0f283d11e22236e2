"""The scripts of tools/: each has a --help, refuses bad input in one line, and does what its docstring
says on data made here (tools/cli_reference.py is checked by tests/test_docs.py)."""

from __future__ import annotations

import io
import math

import pyperf
import pytest
from PIL import Image

from serialbench.measure.session import FLOOR_RATIO
from tests import browser
from tests.helpers import PROJECT_ROOT
from tools import agreement, probe_machine_speed, site_screenshots

ROUNDS = 8


def run_in_rounds(path, multiples: dict[str, float]) -> None:
    """A run of ROUNDS rounds: each benchmark at its multiple of the floor, a few percent either way
    from round to round, and the floor itself."""
    benches = []
    for name, multiple in {"baseline/tobytes/float32/1K": 1.0, **multiples}.items():
        fmt, impl, kind, tier = name.split("/")
        runs = []
        for round_ in range(ROUNDS):
            wobble = 1 + 0.01 * ((round_ * 3) % 5 - 2)
            metadata = {"name": name, "serialbench_format": fmt, "serialbench_impl": impl, "serialbench_input": kind,
                        "serialbench_tier": tier, "serialbench_direction": "encode", "input_bytes": 4000,
                        "payload_bytes": 4100, "serialbench_round": round_, "serialbench_session": "s",
                        FLOOR_RATIO: multiple * wobble}
            runs.append(pyperf.Run([1e-6 * multiple * wobble] * 3, metadata=metadata, collect_metadata=False))
        benches.append(pyperf.Benchmark(runs))
    pyperf.BenchmarkSuite(benches).dump(str(path))


@pytest.mark.parametrize("tool", [agreement.cli, probe_machine_speed.main, site_screenshots.main])
def test_every_tool_has_a_help(tool, capsys):
    with pytest.raises(SystemExit) as done:
        tool(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python tools/")


def test_agreement_counts_the_rows_that_moved_and_the_stars(tmp_path, capsys):
    steady = {"fmt/slow/float32/1K": 8.0, "fmt/quick/float32/1K": 4.0, "other/only/float32/1K": 20.0}
    run_in_rounds(tmp_path / "one.json", steady)
    run_in_rounds(tmp_path / "two.json", {**steady, "other/only/float32/1K": 30.0})  # 50% more: moved
    assert agreement.cli([str(tmp_path / "one.json"), str(tmp_path / "two.json")]) == 0
    out = capsys.readouterr().out
    rows = {line.split(" | ")[0].strip("| "): line for line in out.splitlines() if line.startswith("| fmt") or
            line.startswith("| other")}
    assert sorted(rows) == ["fmt/quick/float32/1K", "fmt/slow/float32/1K", "other/only/float32/1K"]
    assert "+50.0% | NO | no | no" in rows["other/only/float32/1K"]
    assert "+0.0% | yes | yes | yes" in rows["fmt/quick/float32/1K"]
    assert "- the difference within the combined interval (the criterion): 2 of 3 (67%)" in out
    assert "Stars over 1 groups" in out and "- same star: 1" in out and "- MOVED: 0" in out  # fmt: quick, both


def test_agreement_refuses_a_missing_file_in_one_line(tmp_path, capsys):
    assert agreement.cli([str(tmp_path / "none.json"), str(tmp_path / "none.json")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("agreement: error: ") and "no such file" in line


def test_the_probe_summarises_its_windows():
    windows = [(100e-6 if i % 10 < 5 else 60e-6, 40e-6) for i in range(40)]  # the loop at two speeds
    loop, loop_values, copy, _ = probe_machine_speed.summary(windows, seconds=2.0)
    assert loop.startswith("python loop: 40 windows of 50 ms, median 80.0 us; p10 60.0 us, p90 100.0 us, "
                           "p90/p10 1.67; 7 crossings of the midpoint (3.5 a second)")
    assert loop_values.split() == ["100"] * 5 + ["60"] * 5 + ["100"] * 5 + ["60"] * 5 + ["100"] * 5 + ["60"] * 5 + \
        ["100"] * 5 + ["60"] * 5
    assert copy.startswith("1 MB copy: 40 windows of 50 ms, median 40.0 us; p10 40.0 us, p90 40.0 us, p90/p10 1.00")


@pytest.mark.parametrize("argv, expected", [(["0.01"], "give at least one window"), (["1", "--cpu", "4096"],
                                                                                      "--cpu 4096: give one of")])
def test_the_probe_refuses_what_it_cannot_do(argv, expected, capsys):
    with pytest.raises(SystemExit) as done:
        probe_machine_speed.main(argv)
    assert done.value.code == 2 and expected in capsys.readouterr().err


def test_the_screenshots_are_of_pages_the_committed_site_has(tmp_path):
    from serialbench.views import site

    site.build_site([str(path) for path in sorted((PROJECT_ROOT / "results").glob("*.json.gz"))],
                    tmp_path, lambda line: None)
    assert site_screenshots.missing_pages(tmp_path) == []


def test_a_screenshot_is_kept_in_256_colours_at_its_size():
    image = Image.new("RGB", (64, 32))
    image.putdata([(x * 4, y * 8, (x * y) % 256) for y in range(32) for x in range(64)])
    raw = io.BytesIO()
    image.save(raw, "PNG")
    small = Image.open(io.BytesIO(site_screenshots.small_png(raw.getvalue())))
    assert small.size == (64, 32) and small.mode == "P" and len(small.getcolors()) <= 256


@pytest.mark.slow
def test_the_screenshots_are_taken(tmp_path):
    why = browser.missing()
    if why:
        pytest.skip(why)
    assert site_screenshots.main(["-o", str(tmp_path)]) == 0
    for name, _, _, height in site_screenshots.SHOTS:
        shot = Image.open(tmp_path / name)
        assert shot.size == (site_screenshots.WIDTH, height)
        assert math.prod(shot.size) > 0 and len(shot.getcolors(256) or []) > 8  # drawn, not blank
