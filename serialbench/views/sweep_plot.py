"""sweep's plot (`--plot FILE.png`): each benchmark's time per op against release, one panel each.

A point is the anchor's median times (1 + the change against the anchor), its bar the 95% interval
of that change, so that the points and bars of one panel come from one paired estimate each; the
anchor is a plain point. A step (the verdict from the previous release is slower or faster) is a
shaded band between the two releases, red for slower, green for faster, labelled with its change.
Imported only when --plot is given: matplotlib is slow to import.
"""

from __future__ import annotations

import math
import textwrap

from serialbench.core import stats
from serialbench.core.formatting import format_change, format_tick
from serialbench.verdicts.steps import Sweep

COLUMNS = 3
PANEL_W, PANEL_H = 4.2, 2.6  # inches
STEP_COLOUR = {stats.SLOWER: "tab:red", stats.FASTER: "tab:green"}


def plot_sweep(sweep: Sweep, path: str) -> None:
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
    for ax, row in zip(axes.flat, rows):
        anchor = row.medians[0]
        xs, ys, low, high = [x_of[row.sides[0]]], [anchor], [0.0], [0.0]
        for step in row.from_anchor:
            y = anchor * (1 + step.change)
            xs.append(x_of[step.after])
            ys.append(y)
            bounded = step.low > -1 and math.isfinite(step.high)
            low.append(y - anchor * (1 + step.low) if bounded else 0.0)
            high.append(anchor * (1 + step.high) - y if bounded else 0.0)
        ax.errorbar(xs, ys, yerr=[low, high], fmt="o-", color="tab:blue", markersize=4, linewidth=1.2, capsize=3)
        for step in row.steps:
            if step.changed:
                left, right = x_of[step.before], x_of[step.after]
                ax.axvspan(left, right, color=STEP_COLOUR[step.verdict], alpha=0.15, linewidth=0)
                ax.annotate(format_change(step.change), ((left + right) / 2, 0.97), xycoords=("data", "axes fraction"),
                            ha="center", va="top", fontsize=7, color=STEP_COLOUR[step.verdict])
        bottom, top = min(y - d for y, d in zip(ys, low)), max(y + d for y, d in zip(ys, high))
        margin = (top - bottom) * 0.25 or top * 0.05
        ax.set_ylim(max(0.0, bottom - margin), top + margin)  # every point and bar inside the axes
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: format_tick(value) if value > 0 else "0"))
        ax.set_xticks(range(len(sweep.sides)), sweep.sides, rotation=45, ha="right", fontsize=7)
        ax.set_xlim(-0.5, len(sweep.sides) - 0.5)
        ax.set_title(row.name, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(rows):]:
        ax.set_visible(False)
    title = (f"time per op against release; bars: 95% interval of the change against {sweep.anchor}; "
             "shaded: a step (red slower, green faster)")
    figure.suptitle(textwrap.fill(title, int(PANEL_W * columns * 13)), fontsize=8)  # ~13 characters an inch
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
