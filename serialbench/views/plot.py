"""The report's plot: time per op against tier, log-log, one panel per input kind.

A full run has some fifty implementations: drawn on one panel they are a tangle. So the figure is
a grid of small multiples: one column per input kind, and one row per format with a line per
implementation (decoders dashed), its legend to the right of the row. With two formats or more, a
first row draws the fastest encoder of each format at each tier: the answer at a glance. Every
panel draws baseline/tobytes as the thick black memcpy floor (and baseline/noop, the harness
overhead, in grey), taken from the file even when the selection leaves them out (`-b 'msgpack/*'`),
and the panels of a column share their y axis so rows compare by eye; its limits are ticks, so
that no point sits above the highest label or below the lowest. With a BASE file (two-file report),
BASE's lines are drawn faintly behind, the title names both sides by what they ran, and each NEW
point that `report` judged slower or faster carries a marker and its change.
Imported only when `report --plot` is used: matplotlib is slow to import.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

from serialbench.catalog.inputs import tier_order, tier_size
from serialbench.catalog.registry import FLOOR
from serialbench.core.formatting import format_change, format_tick
from serialbench.results.files import Result, ResultFile, differing_versions

MARKERS = "osD^vP*Xh<>pd"
NOOP = (FLOOR[0], "noop")
PANEL_W, PANEL_H, LEGEND_W = 3.4, 2.5, 2.9  # inches
FASTEST = "fastest of each format"  # the first row's title, with two formats or more
# The lines of every panel, in drawing and legend order: the memcpy floor and the harness overhead.
FLOOR_LINES = (
    (FLOOR, {"color": "black", "linewidth": 2.6, "marker": "s", "markersize": 3, "zorder": 5,
             "label": "memcpy floor (baseline/tobytes)"}),
    (NOOP, {"color": "grey", "linewidth": 1.2, "linestyle": ":", "zorder": 4,
            "label": "harness overhead (baseline/noop)"}),
)
FLOOR_LABELS = tuple(style["label"] for _, style in FLOOR_LINES)
VERDICT_STYLE = {"slower": ("^", "#d62728"), "faster": ("v", "#2ca02c")}  # compare's words: marker, colour


def plot_results(results: ResultFile, selected: Sequence[Result], path: str, base: ResultFile | None = None,
                 verdicts: Mapping[str, tuple[str, float | None]] | None = None) -> None:
    """Draw `selected` (of `results`, NEW with a BASE file) to `path`; `verdicts`: {name: (verdict, change)}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timed = [r for r in selected if r.median is not None]
    kinds = list(dict.fromkeys(r.input for r in timed))
    if not kinds:
        raise ValueError("no timed benchmark to plot")
    formats = list(dict.fromkeys(r.format for r in timed if r.format != FLOOR[0]))
    rows = ([FASTEST] if len(formats) > 1 else []) + formats
    rows = rows or [FLOOR[0]]
    # A row with a long legend (tfserving-grpc has a dozen implementations) gets the height it needs.
    # A few rows (a filtered report) get larger panels.
    scale = 1.25 if len(rows) <= 2 else 1.0
    heights = [max(PANEL_H * scale, 0.17 * (_legend_entries(timed, row) + 2)) for row in rows]
    figure, axes = plt.subplots(len(rows), len(kinds), squeeze=False, sharey="col", dpi=120,
                                figsize=(PANEL_W * scale * len(kinds) + LEGEND_W, sum(heights) + 0.9),
                                gridspec_kw={"height_ratios": heights})
    palette = matplotlib.colormaps["tab10"]
    format_colour = {fmt: palette(index % 10) for index, fmt in enumerate(formats)}
    tiers = {r.tier for r in timed}  # the floor and the harness overhead from the file, at the selection's tiers
    floors = [r for r in results.results if (r.format, r.impl) in (FLOOR, NOOP) and r.median is not None
              and r.tier in tiers]
    base_results = [r for r in base.results if r.tier in tiers] if base is not None else None

    for row_index, row in enumerate(rows):
        for column, kind in enumerate(kinds):
            ax = axes[row_index][column]
            for label, style in FLOOR_LINES:
                _line(ax, _points(floors, kind, label), **style)
            if row == FASTEST:
                for fmt in formats:
                    _line(ax, _fastest_encoder(timed, kind, fmt), color=format_colour[fmt], marker="o",
                          markersize=4, linewidth=1.6, label=fmt)
            elif row != FLOOR[0]:
                _draw_format(ax, timed, base_results, kind, row)
                _draw_verdicts(ax, timed, kind, row, verdicts or {})
            _axes_style(ax, timed, kind, first_row=row_index == 0, last_row=row_index == len(rows) - 1,
                        first_column=column == 0, row_title=row)
        handles, labels = _row_legend(axes[row_index], with_floor=row_index == 0)
        axes[row_index][-1].legend(handles, labels, loc="center left", bbox_to_anchor=(1.03, 0.5), fontsize=8,
                                   frameon=False, title=row if row != FASTEST else "FORMAT",
                                   title_fontsize=8.5, alignment="left")
    _tick_limits(axes)
    if base is None:
        title = f"serialbench: median time per op, {_side_name(results, None)}; lower is better"
    else:
        title = (f"serialbench: median time per op, BASE -> NEW; lower is better\n"
                 f"BASE (faint dotted): {_side_name(base, results)}\nNEW (solid): {_side_name(results, base)}")
        if verdicts and any(word in VERDICT_STYLE for word, _ in verdicts.values()):
            title += "\n\u25b2 slower, \u25bc faster: report's verdicts, with the change"
    height = figure.get_figheight()
    title_inches = 0.12 + (title.count("\n") + 1) * 10.5 * 1.35 / 72  # its lines at 10.5 pt, and a margin
    figure.tight_layout(rect=(0, 0, 1, 1 - title_inches / height))
    # After the layout, as plain text: tight_layout makes room for a suptitle in some figures and not others.
    figure.text(0.5, 1 - 0.06 / height, title, fontsize=10.5, ha="center", va="top")
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)


def _side_name(results: ResultFile, other: ResultFile | None) -> str:
    """What a file ran: compare's side, or the libraries whose versions differ from the other file's
    (differing_versions, as a compare page's sides give them), then its commit and file name."""
    words = []
    side = results.metadata.get("serialbench_side")
    if side:
        words.append(str(side))
    elif other is not None and (differing := differing_versions([results, other])[0]):
        words.append(differing)
    if results.commits:
        words.append(f"commit {results.commits[0][:10]}" + (" (dirty)" if results.dirty else ""))
    words.append(os.path.basename(results.path))
    return ", ".join(words)


def _draw_verdicts(ax, timed: Sequence[Result], kind: str, fmt: str,
                   verdicts: Mapping[str, tuple[str, float | None]]) -> None:
    """A marker on each point judged slower or faster, and its change beside it."""
    for r in timed:
        word, change = verdicts.get(r.name, ("", None))
        if r.input != kind or r.format != fmt or word not in VERDICT_STYLE:
            continue
        marker, colour = VERDICT_STYLE[word]
        ax.plot([tier_size(r.tier)], [r.median], marker=marker, markersize=8, color=colour, linestyle="none",
                markerfacecolor="none", markeredgewidth=1.4, zorder=6)
        if change is not None:
            ax.annotate(format_change(change), (tier_size(r.tier), r.median), xytext=(5, -3 if word == "faster" else 3),
                        textcoords="offset points", fontsize=6.5, color=colour)


def _line(ax, points: Sequence[tuple[int, float]], **style) -> None:
    """A line through `points` (tier size, median), none when there are none."""
    if points:
        ax.plot(*zip(*points), **style)


def _draw_format(ax, timed: Sequence[Result], base: Sequence[Result] | None, kind: str, fmt: str) -> None:
    import matplotlib

    impls = list(dict.fromkeys(r.impl for r in timed if r.format == fmt))
    palette = matplotlib.colormaps["tab10" if len(impls) <= 10 else "tab20"]
    for index, impl in enumerate(impls):
        decode = any(r.direction.startswith("decode") for r in timed if r.format == fmt and r.impl == impl)
        style = {"color": palette(index % palette.N), "marker": MARKERS[index % len(MARKERS)], "markersize": 3.5,
                 "linewidth": 1.3, "linestyle": "--" if decode else "-"}
        _line(ax, _points(timed, kind, (fmt, impl)), label=impl + (" (decode)" if decode else ""), **style)
        if base is not None:
            _line(ax, _points(base, kind, (fmt, impl)),
                  **{**style, "alpha": 0.35, "linewidth": 1, "linestyle": ":", "marker": None})
    if not any(r.format == fmt and r.input == kind for r in timed):
        ax.text(0.5, 0.5, "not run for this input", transform=ax.transAxes, ha="center", va="center",
                fontsize=8, color="grey")


def _axes_style(ax, timed, kind: str, first_row: bool, last_row: bool, first_column: bool, row_title: str) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    tiers = tier_order(r.tier for r in timed if r.input == kind)
    ax.set_xticks([tier_size(t) for t in tiers], tiers)
    ax.xaxis.set_minor_formatter(NullFormatter())
    if len(tiers) > 1:
        span = tier_size(tiers[-1]) / tier_size(tiers[0])
        ax.set_xlim(tier_size(tiers[0]) / span**0.08, tier_size(tiers[-1]) * span**0.08)
    ax.yaxis.set_major_locator(LogLocator(base=10, numticks=12))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: format_tick(value)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.35)
    if first_row:
        ax.set_title(f"input: {kind}", fontsize=10)
    if last_row:
        ax.set_xlabel("tier (elements per tensor;\nbytes for byte strings)", fontsize=8)
    if first_column:
        ax.set_ylabel(f"{row_title}\ntime per op", fontsize=8.5)


def _tick_limits(axes) -> None:
    """Each column's y axis from a tick at or below its lowest point to one at or above its highest: ticks
    at 1-2-5 within each decade when the data span less than three decades, else at decades."""
    from matplotlib.ticker import LogLocator

    for column in range(axes.shape[1]):
        values = [y for ax in axes[:, column] for line in ax.get_lines() for y in line.get_ydata() if y > 0]
        if not values:
            continue
        low, high = min(values) / 1.04, max(values) * 1.04  # room for a marker's half
        steps = (1.0, 2.0, 5.0) if math.log10(high / low) < 3 else (1.0,)
        for ax in axes[:, column]:
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=steps, numticks=12))
        axes[0][column].set_ylim(_tick_below(low, steps), _tick_above(high, steps))  # shared by the column


def _tick_below(value: float, steps: Sequence[float]) -> float:
    decade = 10 ** math.floor(math.log10(value))
    return max(step * decade for step in steps if step * decade <= value * (1 + 1e-9))


def _tick_above(value: float, steps: Sequence[float]) -> float:
    decade = 10 ** math.floor(math.log10(value))
    return min(step * decade for step in (*steps, 10.0) if step * decade >= value * (1 - 1e-9))


def _legend_entries(timed: Sequence[Result], row: str) -> int:
    if row == FASTEST:
        return len({r.format for r in timed}) + 1  # the formats, the floor and the harness overhead
    return len({r.impl for r in timed if r.format == row})


def _row_legend(row_axes, with_floor: bool):
    """Every line drawn in the row once, in drawing order; the floor's lines in the first row only."""
    labelled: dict[str, object] = {}
    for ax in row_axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if with_floor or label not in FLOOR_LABELS:
                labelled.setdefault(label, handle)
    labels = sorted(labelled, key=lambda label: (label != FLOOR_LABELS[0], label != FLOOR_LABELS[1]))
    return [labelled[label] for label in labels], labels


def _points(results: Sequence[Result], kind: str, label: tuple[str, str]) -> list[tuple[int, float]]:
    return sorted((tier_size(r.tier), r.median) for r in results
                  if r.input == kind and (r.format, r.impl) == label and r.median is not None)


def _fastest_encoder(timed: Sequence[Result], kind: str, fmt: str) -> list[tuple[int, float]]:
    best: dict[str, float] = {}
    for r in timed:
        if r.input == kind and r.format == fmt and r.direction == "encode":
            best[r.tier] = min(best.get(r.tier, r.median), r.median)
    return sorted((tier_size(tier), median) for tier, median in best.items())
