"""One number in every output: for every run file committed in results/, `report --json`, `report
--markdown`, the terminal's `report` and the site's data give each row the same median, the same
multiple of the floor and the same mark (`*` the fastest, separated; `=` a tie)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from serialbench.core.formatting import format_change, format_ratio, format_time
from serialbench.results import kinds
from serialbench.results.files import load
from serialbench.results.sources import Source
from serialbench.views.site.pages import compare_page, run_page
from tests.helpers import PROJECT_ROOT, in_process

pytestmark = pytest.mark.source_tree  # reads the repository's results/

RUNS = sorted(path for path in (PROJECT_ROOT / "results").glob("*.json.gz")
              if kinds.kind_of(kinds.read_json(path)) in (kinds.RUN, kinds.SESSION))


def markdown_cells(markdown: str) -> dict[tuple[str, str, str], str]:
    """(table title, row label, tier) -> the cell's first line, its mark as a prefix ('* ', '= ')."""
    cells, title, tiers = {}, "", []
    for line in markdown.splitlines():
        if line.startswith("### "):
            title, tiers = line[4:], []
        elif line.startswith("| ") and "median time per op" in title:
            parts = [part.strip() for part in line.strip("|").split(" | ")]
            if parts[0] == "FORMAT/IMPL":
                tiers = parts[1:]
            elif not set(parts[0]) <= set("-:|") and tiers:
                for tier, cell in zip(tiers, parts[1:]):
                    first = cell.split("<br>")[0].replace(" · ", "  ")
                    bold = re.fullmatch(r"\*\*(.*)\*\*", first)
                    cells[(title, parts[0], tier)] = f"* {bold.group(1)}" if bold else first
    return cells


@pytest.mark.parametrize("path", RUNS, ids=[path.name for path in RUNS])
def test_every_output_gives_a_row_the_same_median_multiple_and_mark(path: Path, tmp_path):
    json_path, markdown_path = tmp_path / "out.json", tmp_path / "out.md"
    done = in_process("report", path, "--json", json_path, "--markdown", markdown_path)
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(json_path.read_text())["benchmarks"]}
    markdown = markdown_cells(markdown_path.read_text())
    terminal = done.stdout.splitlines()
    page = run_page(Source("run", [str(path)], [load(path)]))
    points = {point["name"]: point for point in page["benchmarks"]}
    site = {(table["title"], row["label"], tier): cell for view in page["views"] for table in view["timing"]
            for row in table["rows"] for tier, cell in zip(table["columns"], row["cells"]) if cell}

    checked = 0
    for (title, label, tier), shown in markdown.items():
        kind = title.split(",")[0]
        name = f"{label}/{kind}/{tier}"
        if name not in rows or rows[name]["median"] is None:
            continue
        row = rows[name]
        multiple = "no copy" if not row["copies"] else (
            format_ratio(row["floor_multiple"]) if row["floor_multiple"] is not None else None)
        mark = f"{row['mark']} " if row["mark"] else ""
        # the JSON's numbers, formatted, are the Markdown's cell (the JSON keeps 6 digits of the same number)
        assert shown.lstrip("*= ~").startswith(format_time(row["median"])), (name, shown, row["median"])
        assert shown.startswith(mark), (name, shown, row["mark"])
        if multiple is not None:
            assert multiple in shown, (name, shown, multiple)
        # the site's table shows the same cell, and its chart's point has the JSON's numbers
        cell = site[(title, label, tier)]
        lines, mark = (cell["lines"], cell["mark"]) if isinstance(cell, dict) else (cell, "")  # views/table.data
        assert (f"{mark} " if mark else "") + lines[0] == shown, name
        assert (points[name]["median"], points[name]["floor_multiple"], points[name]["mark"]) == (
            row["median"], row["floor_multiple"], row["mark"]), name
        # the terminal's line of that row holds the same cell
        assert any(line.startswith(label + " ") and shown in line for line in terminal), (name, shown)
        checked += 1
    assert checked >= len([row for row in rows.values() if row["median"] is not None]) // 2


BASE = PROJECT_ROOT / "results" / "compare-tritonclient_2.45.0-tritonclient_2.46.0-base.json.gz"
HEAD = PROJECT_ROOT / "results" / "compare-tritonclient_2.45.0-tritonclient_2.46.0-head.json.gz"
VERDICT_KEYS = ("base_median", "head_median", "change", "low", "high", "level", "verdict", "rounds")


def test_report_of_a_compare_sessions_files_and_its_page_give_each_row_the_same_verdict(tmp_path):
    done = in_process("report", BASE, HEAD, "--json", tmp_path / "out.json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads((tmp_path / "out.json").read_text())["benchmarks"]}
    page = compare_page(Source("compare", [str(BASE), str(HEAD)], [load(BASE), load(HEAD)]))
    shown = {row["data"]["name"]: row for row in page["table"]["rows"]}
    changes = page["table"]["columns"].index("change [interval]")
    for name, row in rows.items():
        assert {key: row[key] for key in VERDICT_KEYS} == {key: shown[name]["data"][key] for key in VERDICT_KEYS}
        assert shown[name]["cells"][changes][0].startswith(format_change(row["change"])), name
    assert len(rows) >= 10
