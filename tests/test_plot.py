"""report --plot: the two-file plot names both sides and marks the verdicts, the memcpy floor is drawn
for any selection of a file that has it, and no point falls outside the labelled ticks."""

import re

import matplotlib
import pyperf
import pytest

from serialbench.commands import report
from serialbench.views.plot import _tick_above, _tick_below

TIERS = (("1K", 4_000), ("10K", 40_000), ("100K", 400_000), ("1M", 4_000_000))


def run_file(path, msgpack_version, packb_factor=1.0):
    benches = []
    for fmt_impl, per_byte, fixed in (("baseline/tobytes", 0.04e-9, 100e-9), ("msgpack/packb", 0.2e-9, 2e-6)):
        for tier, size in TIERS:
            value = (fixed + per_byte * size) * (packb_factor if fmt_impl == "msgpack/packb" else 1.0)
            fmt, impl = fmt_impl.split("/")
            metadata = {"name": f"{fmt_impl}/float32/{tier}", "serialbench_format": fmt, "serialbench_impl": impl,
                        "serialbench_input": "float32", "serialbench_tier": tier, "serialbench_direction": "encode",
                        "input_bytes": size, "payload_bytes": size + 50, "loops": 10,
                        "serialbench_commit": "0123456789abcdef", "msgpack_version": msgpack_version}
            runs = [pyperf.Run([value * (1 + 0.002 * i) for i in range(3)], metadata=metadata,
                               collect_metadata=False) for _ in range(6)]
            benches.append(pyperf.Benchmark(runs))
    pyperf.BenchmarkSuite(benches).dump(str(path))
    return path


@pytest.fixture
def svg_text(tmp_path, monkeypatch):
    """The text of the SVG that `report ... --plot` draws (text kept as text, not paths)."""
    monkeypatch.setitem(matplotlib.rcParams, "svg.fonttype", "none")
    base = run_file(tmp_path / "base.json", "1.0.8")
    new = run_file(tmp_path / "new.json", "1.1.2", packb_factor=1.3)

    def draw(*args):
        out = tmp_path / "plot.svg"
        assert report.run([*map(str, args), "--plot", str(out), "--force"]) == 0
        return out.read_text()

    return draw, base, new


def test_the_two_file_plot_names_both_sides_and_marks_the_verdicts(svg_text):
    draw, base, new = svg_text
    text = draw(base, new)
    assert "BASE (faint dotted): msgpack 1.0.8, commit 0123456789, base.json" in text
    assert "NEW (solid): msgpack 1.1.2, commit 0123456789, new.json" in text
    assert len(re.findall(r"\+30\.\d%", text)) == 4  # packb slower at each tier, its change beside it


def test_a_selection_without_the_floor_still_draws_it_from_the_file(svg_text):
    draw, base, _ = svg_text
    assert "memcpy floor (baseline/tobytes)" in draw(base, "-b", "msgpack/*")


def test_the_y_axis_ends_on_ticks_around_every_point():
    assert _tick_below(19e-6, (1.0, 2.0, 5.0)) == pytest.approx(10e-6)
    assert _tick_above(130e-6, (1.0, 2.0, 5.0)) == pytest.approx(200e-6)
    assert _tick_above(600e-6, (1.0, 2.0, 5.0)) == pytest.approx(1e-3)
    assert _tick_below(3e-7, (1.0,)) == pytest.approx(1e-7)
    assert _tick_below(20e-6, (1.0, 2.0, 5.0)) == pytest.approx(20e-6)  # a point on a tick keeps it
