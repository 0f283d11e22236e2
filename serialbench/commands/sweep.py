"""`python -m serialbench sweep SPEC SPEC ...`: how a library's cost moved over its releases.

Each SPEC is a side with its own overlay, as compare's --base-with (sides/checks.py); a range
expands to the index's releases in it (sides/releases.py). Every side is checked before any
timing: a side that fails to install or runs none of the selection is named and left out, and a
benchmark runs on the sides that can run it. All sides are timed in one interleaved session (one
per set of sides, when some refuse some benchmarks), a new order each round, with the adaptive
rounds of compare. The verdicts are on each adjacent step, corrected across every step and
benchmark (verdicts/steps.py); the table shows each release's change against the first, the anchor
(views/sweep_table.py). `--shard K/N` times one part of the releases, with the anchor and the
release before the part; `--merge` joins the parts' --json files into one table. `--pythons
3.11,3.12,3.13` sweeps interpreters instead, each with an environment made where it lacks the
selection's libraries (sides/interpreters.py, sides/environments.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import sys
import time

from serialbench.commands import options
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import (
    add_filter_arguments,
    add_index_arguments,
    add_session_arguments,
    add_with_argument,
    filters,
    interrupt_on_sigterm,
    payload_arguments,
    settings_from,
)
from serialbench.core.errors import UsageError
from serialbench.measure.engine import run_session
from serialbench.measure.session import Session, Settings
from serialbench.results import kinds
from serialbench.results.paths import safe_stem
from serialbench.results.session_files import machine_metadata, write_session_files
from serialbench.sides import commits, environments, interpreters, overlays, releases
from serialbench.sides.building import check_commits, sides_with_interpreters, sides_with_overlays, with_environment
from serialbench.sides.checks import check_sides
from serialbench.sides.selection import check_selection, selection_distributions
from serialbench.sides.sides import Side
from serialbench.sides.worktrees import cases_repository, checkout, work_tree
from serialbench.verdicts.steps import StepJudges, Sweep, merge, sweep_rows
from serialbench.views.progress import budget_line, session_round_line
from serialbench.views.sweep_table import format_sweep, listed, markdown_sweep
from serialbench.views.verdict_json import sweep_from_json, sweep_json

DESCRIPTION = ("Time a library's releases (or any sides) in one interleaved session and say at which release each "
               "benchmark changed.")


def arguments(cli: Parser) -> None:
    cli.add_argument("specs", nargs="*", metavar="SPEC",
                     help=f"a side, in order (the first is the anchor): {overlays.SPEC_HELP}, or a range: "
                          "'tritonclient>=2.44,<=2.50', every release the index has in it; PATH@A..B, A and every "
                          "commit after it on B's first-parent line, each built from a clean tree")
    cli.add_argument("--steps", type=int, metavar="N", help="time N of the releases, spread evenly, always the "
                                                            "first and the last")
    cli.add_argument("--shard", metavar="K/N", help="time the K-th of N parts of the releases (with the anchor "
                                                    "and the release before the part); join them with --merge")
    cli.add_argument("--merge", nargs="+", metavar="FILE", help="join the --json files of a sweep's parts into "
                                                                "one table (no timing)")
    cli.add_argument("--pythons", metavar="PY,PY,...",
                     help="instead of SPECs, interpreters, in order (the first is the anchor): versions the machine "
                          "has (3.11,3.12,3.13), commands or paths; one without the selection's libraries gets an "
                          "environment made for it, at this environment's versions, cached")
    cli.add_argument("--revisions", metavar="A..B",
                     help="instead of SPECs, the revisions of the repository holding the cases (serialbench's own, "
                          "or --cases DIR's): A, then every commit after it on B's first-parent line, as asv run A..B")
    add_with_argument(cli, "every side (e.g. a dependency at one version)")
    options.add_build_arguments(cli)
    add_index_arguments(cli)
    add_filter_arguments(cli)
    add_session_arguments(cli)
    cli.add_json("the table (keys: sides, benchmarks)")
    cli.add_markdown("the table")
    cli.add_output("--plot", metavar="FILE.png", help="also plot each benchmark's time against release (a new file)")


def run(args, out: Output) -> int:
    say = out.say
    if args.merge:
        if args.specs or args.shard:
            raise UsageError("--merge joins finished parts: give it the parts' --json files and no SPEC or --shard")
        parts = [sweep_from_json(read(path), path) for path in args.merge]
        sweep = merge(parts)
        return output(sweep, out, f"{len(parts)} parts merged; each step's verdict is from the part that timed "
                                   "both of its releases")
    if args.pythons and (args.specs or args.revisions or args.shard):
        raise UsageError("--pythons sweeps interpreters: give no SPEC, --revisions nor --shard with it "
                         "(--with SPEC applies to every interpreter)")
    if args.revisions and (args.specs or args.shard):
        raise UsageError("--revisions sweeps the cases' own revisions: give no SPEC nor --shard with it "
                         "(--with SPEC applies to every revision)")
    if not args.specs and not args.revisions and not args.pythons:
        raise UsageError("give the sides to sweep: two SPECs or more, or a range such as 'tritonclient>=2.44,<=2.50' "
                         "or PATH@A..B (commits of a git repository), or --pythons 3.11,3.12,3.13 (interpreters)")
    settings = settings_from(args)
    min_effect = options.min_effect(args)
    shard = releases.parse_shard(args.shard)
    build = options.build_from(args)
    if not args.revisions:  # a revision of the cases may select what this work tree does not have
        check_selection(args.case_dirs, args.patterns, args.tier, args.input, args.payloads)
    releases.use_index(args.index_url, args.find_links)
    if args.pythons:
        specs = releases.spread(interpreters.parse_pythons(args.pythons), args.steps)
        history, described = "", {}
    elif args.revisions:
        chosen = releases.spread(commits.expand_range(f"{cases_repository(args.case_dirs)}@{args.revisions}"),
                                 args.steps)
        specs = [commit.sha for commit in chosen]
        history, described = f"{args.revisions} of the cases (first-parent)", {c.label: c for c in chosen}
    else:
        specs = releases.spread([s for spec in args.specs for s in releases.expand(spec, sys.executable)], args.steps)
        history = "; ".join(commits.range_name(spec) for spec in args.specs if commits.is_range(spec))
        described = check_commits(specs)  # every commit's package name, before anything is built
    if len(specs) < 2:
        raise UsageError(f"one side ({specs[0]}) is nothing to sweep: give two SPECs or more, or a range")
    all_labels = (list(described) if args.revisions else interpreters.labels(specs) if args.pythons
                  else releases.labels(specs))
    labels, own = all_labels, all_labels
    if shard:
        label_of = dict(zip(specs, all_labels))
        specs, own_specs = releases.shard(specs, *shard)
        labels, own = [label_of[s] for s in specs], [label_of[s] for s in own_specs]
        say(f"part {shard[0]}/{shard[1]}: {', '.join(labels)}")
    interrupt_on_sigterm()
    started = time.monotonic()
    with sides_of(args, specs, labels, build, say) as (sides, left_out):
        checked = check_sides(sides, filters(args.patterns, args.tier, args.input), say)
        for item in checked:
            if not item.runnable:
                left_out[item.side.label] = item.why or "it runs none of the selected benchmarks (causes above)"
                say(f"{item.side.label}: left out: {left_out[item.side.label]}")
        usable = [item for item in checked if item.runnable]
        if len(usable) < 2:
            raise UsageError(f"fewer than two sides can run the selection ({len(usable)}); nothing to sweep")
        if not shard and len(usable) < len(specs) and any(len(releases.requirement_set(s)) > 1 for s in specs):
            usable = relabelled(usable, specs)
            own = [item.side.label for item in usable]
        groups = side_groups(usable, say)
        table_size = sum((len(group_sides) - 1) * len(names) for group_sides, names in groups)
        parts, interrupted, files = [], False, []
        for index, (group_sides, names) in enumerate(groups):
            judges = StepJudges([side.label for side in group_sides], names, settings.looks, min_effect, table_size)
            say(f"{len(names)} benchmarks on {len(group_sides)} sides ({listed(s.label for s in group_sides)}), "
                f"looks after {', '.join(map(str, settings.looks))} rounds")
            share = share_of(settings, groups, index, time.monotonic() - started)
            session = run_session(group_sides, names, share, judges.look, say,
                                  progress=session_round_line(len(names), share, say))
            parts.append((session, judges))
            stem = f"sweep-{safe_stem(group_sides[0].description)}-to-{safe_stem(group_sides[-1].description)}"
            files += [path.name for path in write_session_files(session, group_sides, say, "sweep", stem,
                                                                    share, min_effect)]
            if session.interrupted:
                interrupted = True
                break
    columns = [item.side.label for item in usable]
    order = {name: index for index, name in enumerate(n for item in usable for n in item.listed)}
    rows = sorted(sweep_rows(parts, min_effect), key=lambda row: order.get(row.name, len(order)))
    sweep = Sweep(columns, rows, min_effect, machines(parts), all_labels, [c for c in own if c in columns], shard,
                  left_out, selections=[step for _, judges in parts for step in judges.selections()], files=files,
                  commits={label: described[label].as_json() for label in all_labels if label in described},
                  history=history)
    failed = {name: why for session, _ in parts for name, why in session.failed.items()}
    rounds = max((session.rounds for session, _ in parts), default=0)
    budgeted = {name: ended for session, _ in parts for name, ended in session.budget_rounds.items()}
    if budgeted:
        say(budget_line(budgeted, settings.budget))
    status = output(sweep, out, f"{len(rows)} benchmarks x {len(columns)} sides, {rounds} rounds at most, "
                                 f"in {(time.monotonic() - started) / 60:.1f} min")
    if failed:
        out.print(f"{len(failed)} not compared: " + "; ".join(f"{n}: {w}" for n, w in failed.items()))
        status = 1
    if interrupted:
        say("interrupted: the table is of the rounds taken; exit status 130")
        return 130
    return status


@contextlib.contextmanager
def sides_of(args, specs: list[str], labels: list[str], build, say):
    """The sides before they are checked, and those left out (label -> why): the work tree's cases
    with an overlay per SPEC, or (--pythons) in each interpreter, or (--revisions) a worktree per
    revision of the cases, --with on each."""
    payloads = payload_arguments(args.payloads)
    if args.pythons:
        needs = environments.pinned(selection_distributions(args.case_dirs, args.patterns, args.tier, args.input,
                                                             args.payloads))
        with work_tree(args.case_dirs) as tree:
            yield sides_with_interpreters(dataclasses.replace(tree, payloads=payloads), specs, labels,
                                          args.with_specs, needs, say, build)
        return
    if not args.revisions:
        with work_tree(args.case_dirs) as tree:
            tree = dataclasses.replace(tree, payloads=payloads)
            yield sides_with_overlays(tree, labels, [[spec, *args.with_specs] for spec in specs], say, build)
        return
    with checkout(specs, labels, args.case_dirs) as trees:
        yield [with_environment(dataclasses.replace(tree, payloads=payloads), None, args.with_specs, say, build)
               for tree in trees], {}


def read(path: str) -> str:
    try:
        with kinds.open_text(path) as file:
            return file.read()
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        raise UsageError(f"--merge {path}: {why}; give the --json files of a sweep's parts") from None


def relabelled(usable, specs: list[str]) -> list:
    """The sides left after some were left out, named again: a side of several packages is named by
    what differs from the side before it, and the one before it in the table may now be another."""
    kept = [spec for spec in specs if any(item.side.specs[:1] == (spec,) for item in usable)]
    if len(kept) != len(usable):
        return usable
    return [dataclasses.replace(item, side=dataclasses.replace(item.side, label=label))
            for item, label in zip(usable, releases.labels(kept))]


def side_groups(usable, say) -> list[tuple[list[Side], list[str]]]:
    """The benchmarks grouped by the sides that can run them (one group when no side refuses any),
    the largest group first; a benchmark that fewer than two sides run is left out, and said."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for name in dict.fromkeys(n for item in usable for n in item.listed):
        running = tuple(item.side.label for item in usable if name in item.runnable)
        if len(running) >= 2:
            groups.setdefault(running, []).append(name)
        else:
            say(f"{name}: left out, {'only ' + running[0] if running else 'no side'} can run it")
    by_label = {item.side.label: item.side for item in usable}
    ordered = sorted(groups.items(), key=lambda item: -len(item[0]) * len(item[1]))
    return [([by_label[label] for label in labels], names) for labels, names in ordered]


def share_of(settings: Settings, groups, index: int, spent: float) -> Settings:
    """The time left, shared among the sessions left by their size (sides x benchmarks)."""
    if settings.max_seconds is None:
        return settings
    work = [len(sides) * len(names) for sides, names in groups[index:]]
    left = max(settings.max_seconds - spent, 1.0)
    return dataclasses.replace(settings, max_seconds=left * work[0] / sum(work))


def machines(parts: list[tuple[Session, StepJudges]]) -> dict[str, dict]:
    """Where each side was timed: this host, its CPU, and the side's worker's Python."""
    machine = machine_metadata()
    found = {}
    for session, judges in parts:
        for label in judges.labels:
            found.setdefault(label, {"host": socket.gethostname(), "cpu": machine.get("cpu_model_name", "unknown CPU"),
                                     "cpus": machine["cpu_count"],
                                     "python": session.hello.get(label, {}).get("python", "?")})
    return found


def output(sweep: Sweep, out: Output, closing: str) -> int:
    out.print(format_sweep(sweep))
    out.print(closing)
    out.write("json", lambda: sweep_json(sweep))
    out.write("markdown", lambda: markdown_sweep(sweep))
    if out.wants("plot") and sweep.rows:
        from serialbench.views.sweep_plot import plot_sweep

        plot_sweep(sweep, str(out.path("plot")))  # matplotlib writes it: claimed, as every output, before the work
        out.say(f"plot: {out.path('plot')}")
    return 0

