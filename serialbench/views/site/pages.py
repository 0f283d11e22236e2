"""Each page's data: what its script draws, as plain JSON, computed here from the result files.

The numbers and tables are the text views' own (views/timing.py, roundtrip.py, costs.py; the verdicts
of verdicts/file_changes.py and verdicts/steps.py): the page lays them out, it decides nothing. Times are
seconds per op, changes fractions (+0.05: 5% more time), as in the --json files. Every string that
comes from a result file (names, side descriptions, metadata) is data here, never markup: the page
writes it as text (assets/site.js). Each page's data also gives, under `index`, what the index's row says
of it (its date, libraries, machine and count; the site takes it out of the page's data).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from itertools import zip_longest

from packaging.version import InvalidVersion, Version

from serialbench.catalog.inputs import tier_order, tier_size
from serialbench.catalog.registry import FLOOR
from serialbench.core.formatting import (
    format_bytes,
    format_change,
    format_count,
    format_machine,
    format_time,
)
from serialbench.results.files import Result, ResultFile, differing_versions
from serialbench.results.session_files import explained_in, runs_of
from serialbench.results.sources import Source, side_label
from serialbench.verdicts.bisection import bisect_from_json
from serialbench.verdicts.file_changes import compare_files
from serialbench.verdicts.harness import WAYS
from serialbench.verdicts.paired import round_estimates
from serialbench.verdicts.rankings import fastest_of_each_format
from serialbench.verdicts.steps import SweepRow, change_text, read_step, sweep_from_json
from serialbench.verdicts.timings import run_medians, timing
from serialbench.views import grid, harness_table, sweep_table
from serialbench.views.bisect_steps import answer_lines, step_text
from serialbench.views.costs import cost_tables
from serialbench.views.explain_table import hanging
from serialbench.views.progress import precision_words
from serialbench.views.roundtrip_table import roundtrip_tables
from serialbench.views.table import Cell, Column, Row, Table, by_format, column, number
from serialbench.views.table import data as table_data
from serialbench.views.timing import header_lines, memory_tables, precision_asked, timing_cells, timing_tables
from serialbench.views.verdict_table import compare_columns, legend, lines

# -- the facts of result files that several pages (and the index) give --------------------------------

def date_of(loaded: ResultFile) -> str:
    """When the file was timed, to the minute: its date, else its earliest run's."""
    if loaded.metadata.get("date"):
        return str(loaded.metadata["date"])[:16]
    dates = sorted(str(run.get_metadata()["date"])[:16] for r in loaded.results for run in r.benchmark.get_runs()
                   if run.get_metadata().get("date"))
    return dates[0] if dates else ""


def commits_of(files: Sequence[ResultFile]) -> str:
    """The commits the files were timed at, each once, short."""
    return ", ".join(dict.fromkeys(c[:10] for loaded in files for c in loaded.commits))


# -- a run ---------------------------------------------------------------------------------------------

def run_page(source: Source) -> dict:
    results = source.files[0]
    cells = timing_cells(results, results.results)
    views = [{"input": kind, "direction": direction,
              "timing": [table_data(t) for t in timing_tables(results, group, cells=cells)],
              "costs": [table_data(t) for t in cost_tables(group)],
              "memory": [table_data(t) for t in memory_tables(group)],
              "fastest": fastest_of_each_format(group), "impls": impls_by_format(group)}
             for kind, direction, group in grid.groups(results.results)]
    trips = roundtrip_tables(results.results)  # tested across every kind, as report's tables are
    roundtrip = {kind: [table_data(t) for t in trips if t.title.startswith(f"{kind}, ")]
                 for kind in dict.fromkeys(r.input for r in results.results)}
    return {"kind": "run", "head": header_lines(results) + source.notes,
            "hint": "Hover a point: median, the workers' spread, payload, B/op and allocs/op (with a memory file), "
                    "and the median's interval. Click it to keep it here.",
            "tiers": {tier: tier_size(tier) for tier in tier_order(r.tier for r in results.results)},
            "floor": "/".join(FLOOR), "views": views, "roundtrip": roundtrip,
            "benchmarks": [benchmark_data(results, r, cells[r.name]) for r in results.results if r.median is not None],
            "index": {"date": date_of(results), "machine": results.machine, "count": len(results.results)}}


def impls_by_format(group: list[Result]) -> list[tuple[str, list[str]]]:
    """The group's FORMAT/IMPL rows that the chart can draw, by format, in the tables' order (the floor apart)."""
    found: dict[str, list[str]] = {}
    for label in grid.rows(group):
        if label != "/".join(FLOOR):
            found.setdefault(by_format(label), []).append(label)
    return list(found.items())


def benchmark_data(results: ResultFile, result: Result, cell: Cell) -> dict:
    """A benchmark's point on the chart: its cell's figures (the table's numbers) and what its tooltip says."""
    workers = run_medians(result.benchmark)
    multiple = cell.figures.get("floor_multiple")
    data = {"name": result.name, "row": result.row, "input": result.input, "tier": result.tier,
            "direction": result.direction, "median": cell.figures["median"].json()["value"],
            "floor_multiple": multiple.json()["value"] if multiple else None, "mark": cell.mark}
    floor = ", no copy" if not result.copies else f", {multiple.text} the floor" if multiple else ""
    data["hover"] = [result.name, f"median {format_time(result.median)}{floor}",
                     f"workers' medians {format_time(min(workers))} to {format_time(max(workers))} "
                     f"({len(workers)} workers)" if len(workers) > 1 else f"{len(workers)} worker",
                     f"payload {format_bytes(result.payload_bytes)} (input {format_bytes(result.input_bytes)})"]
    if result.memory is not None and result.memory.bytes_per_op is not None:
        data["hover"].append(f"{format_bytes(result.memory.bytes_per_op)}/op, "
                             f"{format_count(result.memory.allocs_per_op)} allocs/op")  # as the memory table
    data["hover"].append(precision_words(timing(result.benchmark), precision_asked(results)))
    return data


# -- a compare -----------------------------------------------------------------------------------------

def compare_page(source: Source) -> dict:
    base, head = source.files
    rows, selection, paired, min_effect = compare_files(base.path, head.path)
    rounds = {row.name: rounds_data(base.get(row.name), head.get(row.name),
                                    "Each round's estimate (the median of its pairs' HEAD/BASE):")
              for row in rows} if paired else {}
    table = Table.of(compare_columns("BASE", "HEAD", paired), lines(rows, selection))
    if paired:  # compare --explain's blocks, as HEAD's file keeps them, each under its row
        hanging(explained_in(head))(table)
    if selection is not None:
        table.rows[-1].data["name"] = "selection"  # the page's name of the row, in its link and its plot
    b, h = base.library_versions(), head.library_versions()
    changed = [f"{n} {b.get(n, '-')} -> {h.get(n, '-')}" for n in sorted(b.keys() | h.keys()) if b.get(n) != h.get(n)]
    sides = f"{base.metadata.get('serialbench_side', 'BASE')} -> {head.metadata.get('serialbench_side', 'HEAD')}"
    return {"kind": "compare", "min_effect": min_effect, "legend": legend(paired, min_effect),
            "forest_legend": "Each row's change and its interval, against the minimum effect either side (dashed), "
                             "coloured by verdict.",
            "sides": table_data(sides_table(base, head)), "rounds": rounds,
            "table": table_data(table), "index": {"date": date_of(head), "libraries": ", ".join(changed) or sides,
                                                  "machine": head.machine, "count": len(head.results)}}


def rounds_data(base: Result, head: Result, legend: str) -> dict:
    """Each round's change (the median of its pairs' HEAD/BASE - 1), as the terminal prints it, and what the
    chart of them shows."""
    changes = [math.expm1(x) for x in round_estimates(runs_of(base.benchmark), runs_of(head.benchmark))]
    return {"values": [number(c) for c in changes], "texts": [format_change(c) for c in changes], "legend": legend}


SIDE_FACTS = {
    "installed for this side": lambda f, o: str(f.metadata.get("serialbench_side_specs", "")) or "-",
    "libraries that differ": lambda f, o: differing_versions([f, o])[0] or "none",
    "Python": lambda f, o: str(f.metadata.get("python_version", f.metadata.get("serialbench_python", "?"))),
    "CPU": lambda f, o: f.machine, "date": lambda f, o: date_of(f) or "-",
    "commit": lambda f, o: commits_of([f]) or "-", "file": lambda f, o: f.path}


def sides_table(base: ResultFile, head: ResultFile) -> Table:
    """What each side of a compare was, as it ran: a column a side, a row a fact."""
    sides = ((base, head, "BASE"), (head, base, "HEAD"))
    return Table([Column(role + (f": {f.metadata['serialbench_side']}" if f.metadata.get("serialbench_side") else ""))
                  for f, _, role in sides],
                 [Row(fact, [Cell([text(f, o)]) for f, o, _ in sides]) for fact, text in SIDE_FACTS.items()],
                 corner="")


# -- a sweep -------------------------------------------------------------------------------------------

def sweep_page(source: Source) -> dict:
    data = source.data
    sweep = sweep_from_json(json.dumps(data), source.paths[0])
    sides, anchor, machines = data["sides"], data.get("anchor", sweep.anchor), sweep.machines or {}
    noun = "commit" if data.get("commits") else sweep.noun  # a release, or an interpreter
    benchmarks = [{**bench, "steps": [with_text(s) for s in bench["steps"]],
                   "from_anchor": [with_text(s) for s in bench["from_anchor"]], "line": sweep_line(sweep.anchor, row)}
                  for bench, row in zip(data["benchmarks"], sweep.rows)]
    page = {"kind": "sweep", "sides": sides, "noun": noun, "against_anchor": sweep.against_anchor,
            "min_effect": data["min_effect"], "benchmarks": benchmarks,
            "grid": table_data(sweep_table.sweep_grid(sweep)),
            "legend": sweep_table.legend(sweep)[:1],  # the terminal's cells, and its words for them and their marks
            "chart_legend": "Per benchmark: a point is the anchor's median times (1 + the change against the anchor), "
                            "its bar the 95% interval of that change; "
                            + (f"an {noun} slower or faster than the anchor is shaded" if sweep.against_anchor else
                               f"a step is shaded between the two {noun}s") + ", red slower, green faster, with its "
                            "change.",
            "selection": table_data(Table.of(SELECTION, [with_text(s) for s in data.get("selection", [])])),
            "summary": f"{len(sides)} {noun}s, {len(benchmarks)} benchmarks, "
                       f"anchor {anchor}, minimum effect {data['min_effect'] * 100:g}%",
            "machines": [f"{side}: {sweep_table.machine_text(m)}" for side, m in machines.items()],
            "library": library_of(source.files), "rounds": sweep_rounds(source.files, sides, data["benchmarks"]),
            "date": date_of(source.files[0]) if source.files else ""}
    first = next(iter(machines.values()), None)  # where the first side was timed
    page["index"] = {"date": page["date"], "count": len(benchmarks),
                     "libraries": f"{sweep.history or page['library'] or sweep.noun + 's'} "
                                  f"{sides[0]} to {sides[-1]} ({len(sides)} sides)",
                     "machine": format_machine(first.get("cpu"), first.get("cpus")) if isinstance(first, dict) else ""}
    # A sweep of commits: in the order of its file's `commits` (the range's), the skipped ones among them.
    # A sweep of releases has neither key, and its page the data it always had.
    if data.get("commits"):
        page.update(commits_data(data["commits"], data["commits"], sides, sweep.left_out or {}))
    named = {c["label"]: c["named"] for c in page.get("commits", [])}
    page["left_out_lines"] = [f"{named.get(side, side)}: {why}" for side, why in (sweep.left_out or {}).items()]
    if sweep.history:
        page["history"] = sweep.history
    return page


def sweep_line(anchor: str, row: SweepRow) -> dict:
    """A benchmark's line on its chart, as sweep --plot draws it (SweepRow.line): its points, their 95% intervals
    as bars above and below, and what its hover says."""
    points = row.line()
    start = "the anchor" if row.sides[0] == anchor else "the first side that ran it"
    return {"x": [point.side for point in points], "y": [number(point.time) for point in points],
            "plus": [number(point.high - point.time) for point in points],
            "minus": [number(point.time - point.low) for point in points],
            "text": [f"{row.sides[0]}: {format_time(row.medians[0])} ({start})",
                     *(f"{point.side}: {change_text(point.step)} against {point.step.before}" for point in points[1:])]}


SELECTION = [column("step", "step", lambda s: f"{s['from']} -> {s['to']}", left=True),
             column("text", "change [interval]", lambda s: s["text"]),
             column("rounds", "rounds", lambda s: str(s["rounds"])),
             column("benchmarks", "benchmarks", lambda s: str(s.get("benchmarks") or len(s.get("names") or []) or "-")),
             column("verdict", "verdict", lambda s: s["verdict"], left=True)]


def with_text(step: dict) -> dict:
    """A step of a sweep's JSON, with its change as the terminal prints it (change_text on the step read back)."""
    if step.get("change") is None:
        return {**step, "change_text": "-", "text": "-"}
    return {**step, "change_text": format_change(step["change"]), "text": change_text(read_step(step))}


def sweep_rounds(files: Sequence[ResultFile], sides: list[str], benchmarks: list[dict]) -> dict:
    """Each step's per-round changes ('NAME FROM TO': rounds_data), where a session that timed both its sides
    (value i with value i) is among the side files."""
    by_label: dict[str, list[ResultFile]] = {}
    for loaded in files:
        by_label.setdefault(side_label(loaded, sides), []).append(loaded)
    rounds = {}
    for bench in benchmarks:
        for step in bench["steps"]:
            name, before, after = bench["name"], step["from"], step["to"]
            both = [(b, h) for base in by_label.get(before, []) for head in by_label.get(after, [])
                    if base.metadata.get("serialbench_session") == head.metadata.get("serialbench_session")
                    and (b := base.get(name)) is not None and (h := head.get(name)) is not None]
            if both:
                rounds[f"{name} {before} {after}"] = rounds_data(
                    *both[0], f"Each round's estimate (the median of its pairs' {after}/{before}); in colour the "
                    "rounds of the verdict, in grey the rounds the session went on to take for other benchmarks.")
    return rounds


def library_of(files: Sequence[ResultFile]) -> str:
    """The library a sweep's sides install: the name in their specs (name==version)."""
    names = {spec.split("==")[0] for loaded in files for spec in str(loaded.metadata.get("serialbench_side_specs",
                                                                                         "")).split() if "==" in spec}
    return ", ".join(sorted(names))


# -- a bisection, a check-harness panel ----------------------------------------------------------------

def bisect_page(source: Source) -> dict:
    """The terminal's answer (views/bisect_steps.answer_lines, from the file read back as the search's Result),
    and the sessions as a ladder down to it."""
    data = source.data
    result = bisect_from_json(json.dumps(data), source.paths[0])
    versions = {v for session in data["sessions"] for v in session["sides"]} | {data.get("good"), data.get("bad")}
    # Commits go in the range's order (`order`, oldest first); releases, which have none, by version.
    order = {str(label): index for index, label in enumerate(data.get("order") or [])}
    versions = sorted({str(v) for v in versions if v is not None},
                      key=lambda v: (order.get(v, len(order)), _version_key(v)))
    bench, good, bad = data.get("benchmark"), data.get("good"), data.get("bad")
    # Files written before bisect kept the direction searched and the wall time: 'changed', and the sessions alone.
    took = f"{len(data['sessions'])} sessions" + (f" in {data['minutes']:.1f} min" if data.get("minutes") else "")
    answer, *rest = answer_lines(bench, result, good, bad, data.get("direction", "changed"), took)
    listed = [line.strip() for line in rest if line.startswith("  ")]  # of several steps: a line each, their sum
    page = {"kind": "bisect", "answer": answer,
            "steps": [{"to": step and step.after, "line": line} for step, line in zip_longest(result.steps, listed)],
            "uncertain_lines": [line for line in rest if not line.startswith("  ")],  # unsearched, uncertain
            "index": {"libraries": f"{good} to {bad}: {bench}", "count": len(data["sessions"])},
            "ladder_legend": f"A row per session: the {'commit' if data.get('commits') else 'release'}s it timed (●) "
                             "inside its bracket; a cell is coloured by the verdict of the step into it."}
    sessions = [{**session, "steps": [read_step(step) for step in session["steps"]]} for session in data["sessions"]]
    page["ladder"] = table_data(ladder(versions, sessions))
    if data.get("commits"):
        skipped = data.get("skipped") or {}
        page.update(commits_data(data["commits"], [*order, *data["commits"], *skipped], versions, skipped))
    return page


def ladder(versions: list[str], sessions: list[dict]) -> Table:
    """A row per session: the sides it timed (●), its steps and what it took, in the words of bisect's line of
    the session (views/bisect_steps.session_line); `rungs` in each row's data say which cells lie inside its
    bracket and the verdict of the step into each (the page colours them)."""
    table = Table([Column(v) for v in versions] + [Column("steps", left=True), Column("took")], corner="")
    for index, session in enumerate(sessions, start=1):
        sides = [str(side) for side in session["sides"]]
        into = {step.after: step for step in session["steps"][:len(sides) - 1]}
        inside = range(versions.index(sides[0]), versions.index(sides[-1]) + 1)
        rungs = [{"inside": k in inside, "side": v in sides, "verdict": into[v].verdict if v in into else "",
                  "title": step_text(into[v]) if v in into else ""} for k, v in enumerate(versions)]
        cells = [Cell(["●" if v in sides else ""]) for v in versions]
        cells += [Cell([f"{step_text(step)}, {step.rounds} rounds" for step in session["steps"]]),
                  Cell([f"{session['rounds']} rounds, {session['minutes']:.1f} min"])]
        table.rows.append(Row(f"session {index}", cells, {"rungs": rungs}))
    return table


def _version_key(text: str):
    try:
        return (0, Version(text), text)
    except InvalidVersion:
        return (1, Version("0"), text)


def commits_data(commits: dict, order, timed, skipped: dict) -> dict:
    """The commits of a sweep or bisection, in `order`, each whether it was timed and why it was skipped:
    as a list (`commits`) and as their table (`commits_table`).

    A list, not the file's object: a page's script reads an object's keys in JavaScript's order, which
    puts keys that are numbers first, and a short sha can be eight digits."""
    if not isinstance(commits, dict) or not isinstance(skipped, dict) or not all(
            isinstance(commit, dict) for commit in commits.values()):
        raise TypeError("its commits (and the skipped ones) are not objects of label -> commit (-> why)")
    rows = []
    for label in dict.fromkeys(str(label) for label in order):
        commit = commits.get(label, {})
        files = [str(path) for path in commit["files"]] if isinstance(commit.get("files"), list) else []
        subject, date = str(commit.get("subject", "")), str(commit.get("date", ""))
        rows.append({"label": label, "sha": str(commit.get("sha", "")), "subject": subject, "date": date,
                     "files": files, "timed": label in timed,
                     "skipped": str(skipped[label]) if label in skipped else None,
                     # as the page names it: a commit with its subject, and what it is, with its files changed
                     "named": f"{label} ({subject})" if subject else label,
                     "note": f"{label} ({date}): {subject}; {len(files)} file{'' if len(files) == 1 else 's'} changed"})
    table = Table([Column("date", left=True), Column("subject", left=True), Column("files changed"),
                   Column("timed", left=True)],
                  [Row(c["label"], [Cell([c["date"]]), Cell([c["subject"]]), Cell([str(len(c["files"]))]),
                                    Cell([f"skipped: {c['skipped']}" if c["skipped"] is not None else
                                          "timed" if c["timed"] else "-"])], {"sha": c["sha"], "files": c["files"]})
                   for c in rows], corner="commit")
    return {"commits": rows, "commits_table": table_data(table)}


def check_harness_page(source: Source) -> dict:
    """check-harness's table as the terminal prints it (views/harness_table.py), from the panel's file."""
    data = source.data
    benchmarks = data["benchmarks"]
    timed = {way: {name: [v for v in entry.get(way) or [] if isinstance(v, int | float)]
                   for name, entry in benchmarks.items()} for way in WAYS}
    rows = harness_table.rows(list(benchmarks), timed, data.get("tolerance") or 0.0)
    for row in rows:
        row.verdict = str(benchmarks[row.name]["verdict"])  # the file's word, as the session gave it
    processes, tolerance = data.get("processes") or "?", data.get("tolerance")
    return {"kind": "check-harness",
            "summary": f"{len(rows)} benchmarks, {processes} processes a way, tolerance "
                       + ("?" if tolerance is None else harness_table.tolerance_text(tolerance)),
            "table": table_data(Table.of(harness_table.harness_columns(), rows)), "index": {"count": len(rows)}}


PAGES = {"run": run_page, "compare": compare_page, "sweep": sweep_page, "bisect": bisect_page,
         "check-harness": check_harness_page}
