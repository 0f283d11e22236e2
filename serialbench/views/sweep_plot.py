"""sweep's plot (`--plot FILE.png`): each benchmark's time per op against release, one panel each.

A point is the anchor's median times (1 + the change against the anchor), its bar the 95% interval
of that change, so that the points and bars of one panel come from one paired estimate each; the
anchor is a plain point (SweepRow.line, which the site's chart draws too). A step (the verdict from
the previous release is slower or faster) is a shaded band between the two releases, red for slower,
green for faster, labelled with its change.
Steps that follow each other (3.10.0, 3.10.1, 3.10.2) have bands one release wide, narrower than
their labels: each label goes on the highest line where it overlaps no other (label_lines), and the
y axis leaves room above the points for as many lines as a panel needs. In a sweep of interpreters,
whose steps are each against the anchor, a band is the later side's own column.
Imported only when --plot is given: matplotlib is slow to import.
"""

from __future__ import annotations

import math
import textwrap

from serialbench.core.formatting import format_change, format_tick
from serialbench.verdicts import vocabulary
from serialbench.verdicts.steps import Sweep

COLUMNS = 3
PANEL_W, PANEL_H = 4.2, 2.6  # inches
STEP_COLOUR = {vocabulary.SLOWER: "tab:red", vocabulary.FASTER: "tab:green"}


LABEL_TOP = 0.97  # axes fraction of the first line of step labels
LABEL_GAP = 3.0  # pixels kept between two labels on one line


def label_lines(extents: list[tuple[float, float]], gap: float = 0.0) -> list[int]:
    """The line of each label (0 the top one), given each one's (left, right) in order of position:
    the first line on which it overlaps no label placed before it."""
    ends: list[float] = []  # the right end of the last label on each line
    lines = []
    for left, right in extents:
        line = next((index for index, end in enumerate(ends) if left >= end + gap), len(ends))
        if line == len(ends):
            ends.append(right)
        else:
            ends[line] = right
        lines.append(line)
    return lines


def plot_sweep(sweep: Sweep, path: str) -> None:
    figure = draw_sweep(sweep)
    figure.savefig(path)
    import matplotlib.pyplot as plt

    plt.close(figure)


def draw_sweep(sweep: Sweep):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    rows = sweep.rows
    if not rows:
        raise ValueError("no benchmark to plot")
    columns = min(COLUMNS, len(rows))
    lines = math.ceil(len(rows) / columns)
    figure, axes = plt.subplots(lines, columns, squeeze=False, dpi=110,
                                figsize=(PANEL_W * columns, PANEL_H * lines + 0.8))
    x_of = {side: index for index, side in enumerate(sweep.sides)}
    panels = []
    for ax, row in zip(axes.flat, rows):
        points = row.line()
        xs, ys = [x_of[point.side] for point in points], [point.time for point in points]
        low, high = [point.time - point.low for point in points], [point.high - point.time for point in points]
        ax.errorbar(xs, ys, yerr=[low, high], fmt="o-", color="tab:blue", markersize=4, linewidth=1.2, capsize=3)
        labels = []
        for step in row.steps:
            if step.changed:
                left, right = ((x_of[step.after] - 0.4, x_of[step.after] + 0.4) if sweep.against_anchor
                               else (x_of[step.before], x_of[step.after]))
                ax.axvspan(left, right, color=STEP_COLOUR[step.verdict], alpha=0.15, linewidth=0, zorder=0.5)
                ax.axvline(left, color="white", linewidth=1.0, zorder=0.6)  # a seam where two bands meet
                labels.append(ax.annotate(format_change(step.change), ((left + right) / 2, LABEL_TOP),
                                          xycoords=("data", "axes fraction"), ha="center", va="top", fontsize=7,
                                          color=STEP_COLOUR[step.verdict]))
        panels.append((ax, labels, min(y - d for y, d in zip(ys, low)), max(y + d for y, d in zip(ys, high))))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: format_tick(value) if value > 0 else "0"))
        ax.set_xticks(range(len(sweep.sides)), sweep.sides, rotation=45, ha="right", fontsize=7)
        ax.set_xlim(-0.5, len(sweep.sides) - 0.5)
        ax.set_title(row.name, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(rows):]:
        ax.set_visible(False)
    shaded = (f"an {sweep.noun} slower or faster than {sweep.anchor}" if sweep.against_anchor
              else "a step")
    title = (f"time per op against {sweep.noun}; bars: 95% interval of the change against {sweep.anchor}; "
             f"shaded: {shaded} (red slower, green faster)")
    figure.suptitle(textwrap.fill(title, int(PANEL_W * columns * 13)), fontsize=8)  # ~13 characters an inch
    renderer = figure.canvas.get_renderer()
    for _ in range(2):  # the layout depends on the y ticks, which depend on the lines the labels take
        figure.tight_layout()
        for ax, labels, bottom, top in panels:
            _stack_labels(ax, labels, bottom, top, renderer)
    return figure


def _stack_labels(ax, labels, bottom: float, top: float, renderer) -> None:
    """Each label on its line (label_lines, in pixels as drawn), and the y axis with room above every
    point and bar for the lines used."""
    boxes = [label.get_window_extent(renderer) for label in labels]
    lines = label_lines([(box.x0, box.x1) for box in boxes], LABEL_GAP)
    height = ax.get_window_extent(renderer).height
    line_height = max((box.height for box in boxes), default=0.0) * 1.15 / height  # axes fraction
    for label, line in zip(labels, lines):
        label.xyann = (label.xyann[0], LABEL_TOP - line * line_height)
    used = (max(lines) + 1) * line_height if lines else 0.0
    free = max(LABEL_TOP - used - 0.04, 0.3)  # the axes fraction the points and bars may reach
    span = (top - bottom) or top * 0.1
    low_limit = max(0.0, bottom - span * 0.15)
    ax.set_ylim(low_limit, low_limit + (top - low_limit) / free)  # every point and bar under the labels
