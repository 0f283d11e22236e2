"""report --plot: the two-file plot names both sides and marks the verdicts, the memcpy floor is drawn
for any selection of a file that has it, and no point falls outside the labelled ticks."""

import re

import matplotlib
import pyperf
import pytest

from serialbench.verdicts import vocabulary
from serialbench.views.plot import _tick_above, _tick_below
from tests.helpers import in_process

TIERS = (("1K", 4_000), ("10K", 40_000), ("100K", 400_000), ("1M", 4_000_000))


def run_file(path, msgpack_version, packb_factor=1.0, extra=None):
    benches = []
    for fmt_impl, per_byte, fixed in (("baseline/tobytes", 0.04e-9, 100e-9), ("msgpack/packb", 0.2e-9, 2e-6)):
        for tier, size in TIERS:
            value = (fixed + per_byte * size) * (packb_factor if fmt_impl == "msgpack/packb" else 1.0)
            fmt, impl = fmt_impl.split("/")
            metadata = {"name": f"{fmt_impl}/float32/{tier}", "serialbench_format": fmt, "serialbench_impl": impl,
                        "serialbench_input": "float32", "serialbench_tier": tier, "serialbench_direction": "encode",
                        "input_bytes": size, "payload_bytes": size + 50, "loops": 10,
                        "serialbench_commit": "0123456789abcdef", "msgpack_version": msgpack_version,
                        **(extra or {})}
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
        out.unlink(missing_ok=True)  # one plot per call: a file is never overwritten
        done = in_process("report", *args, "--plot", out)
        assert done.returncode == 0, done.stderr
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


def test_the_plot_and_the_sites_sides_name_the_same_libraries_that_differ(tmp_path):
    """A library one file lacks says nothing (a file gives the versions of the cases it timed): the plot's title
    and a compare page's sides give the versions that both files have and that differ, by one rule."""
    from serialbench.results.files import load
    from serialbench.views.plot import _side_name
    from serialbench.views.site.pages import sides_table

    base = load(run_file(tmp_path / "base.json", "1.0.8"))
    new = load(run_file(tmp_path / "new.json", "1.1.2", extra={"orjson_version": "3.10.0"}))
    assert _side_name(new, base) == "msgpack 1.1.2, commit 0123456789, new.json"
    facts = {row.label: [cell.lines[0] for cell in row.cells] for row in sides_table(base, new).rows}
    assert facts["libraries that differ"] == ["msgpack 1.0.8", "msgpack 1.1.2"]


def test_the_y_axis_ends_on_ticks_around_every_point():
    assert _tick_below(19e-6, (1.0, 2.0, 5.0)) == pytest.approx(10e-6)
    assert _tick_above(130e-6, (1.0, 2.0, 5.0)) == pytest.approx(200e-6)
    assert _tick_above(600e-6, (1.0, 2.0, 5.0)) == pytest.approx(1e-3)
    assert _tick_below(3e-7, (1.0,)) == pytest.approx(1e-7)
    assert _tick_below(20e-6, (1.0, 2.0, 5.0)) == pytest.approx(20e-6)  # a point on a tick keeps it


# --- sweep --plot: the labels of steps that follow each other ------------------------------------------

def orjson_sweep():
    """orjson's sweep by hand: int32x3 at 10K stepped at 3.10.0, 3.10.1, 3.10.2 (adjacent), 3.10.5,
    3.10.7 and 3.10.8."""
    from serialbench.verdicts.steps import Step, Sweep, SweepRow

    sides = ["3.9.15"] + [f"3.10.{i}" for i in range(10)]
    moves = {"3.10.0": 0.030, "3.10.1": 0.028, "3.10.2": 0.091, "3.10.5": -0.021, "3.10.7": 0.037, "3.10.8": 0.029}
    steps, anchored, level, medians = [], [], 1.0, [41e-6]
    for before, after in zip(sides, sides[1:]):
        change = moves.get(after, 0.001)
        word = vocabulary.SLOWER if change > 0.02 else vocabulary.FASTER if change < -0.02 else vocabulary.NO_CHANGE
        steps.append(Step(before, after, change, change - 0.004, change + 0.004, word, 16))
        level *= 1 + change
        medians.append(41e-6 * level)
        anchored.append(Step(sides[0], after, level - 1, level - 1.005, level - 0.995, word, 16))
    row = SweepRow("tfserving-rest/orjson-numpy/int32x3/10K", tuple(sides), tuple(medians), tuple(steps),
                   tuple(anchored))
    return Sweep(sides, [row], 0.02)


def test_label_lines_put_a_label_on_the_first_line_where_it_overlaps_none():
    from serialbench.views.sweep_plot import label_lines

    assert label_lines([(0, 10), (8, 18), (16, 26), (40, 50), (48, 58)]) == [0, 1, 0, 0, 1]
    assert label_lines([(0, 10), (11, 21)], gap=3) == [0, 1]


def test_the_step_labels_of_adjacent_releases_do_not_overlap_and_sit_above_every_point(tmp_path):
    from serialbench.views.sweep_plot import draw_sweep, plot_sweep

    figure = draw_sweep(orjson_sweep())
    renderer = figure.canvas.get_renderer()
    ax = figure.axes[0]
    boxes = [text.get_window_extent(renderer) for text in ax.texts]
    assert [text.get_text() for text in ax.texts] == ["+3.0%", "+2.8%", "+9.1%", "-2.1%", "+3.7%", "+2.9%"]
    for index, box in enumerate(boxes):
        assert not any(box.overlaps(other) for other in boxes[index + 1:]), [t.get_text() for t in ax.texts]
    data_line, caps, _ = ax.containers[0].lines  # the points and the ends of their bars
    highest = max(ax.transData.transform((x, y))[1] for line in (data_line, *caps) for x, y in line.get_xydata())
    assert highest < min(box.y0 for box in boxes)
    plot_sweep(orjson_sweep(), str(tmp_path / "sweep.png"))
    assert (tmp_path / "sweep.png").stat().st_size > 10_000
