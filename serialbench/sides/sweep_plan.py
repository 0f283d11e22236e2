"""A sweep's sides, planned: the SPECs expanded to the releases (or the commits, or the cases' own
revisions, or the interpreters) they name, spread over --steps, cut to a --shard part and named, and
which steps are judged (adjacent, or each against the anchor for interpreters); the sides made from
them; named again when some are left out; and grouped by the benchmarks each can run
(verdicts/sweep_sessions.py times one session a group). A bisection's range is planned here too: the
releases (or commits) it searches."""

from __future__ import annotations

import contextlib
import dataclasses
import sys

from serialbench.core.errors import UsageError
from serialbench.sides import commits, interpreters, releases
from serialbench.sides.building import check_commits, sides_with_interpreters, sides_with_overlays, with_environment
from serialbench.sides.commits import Commit
from serialbench.sides.sides import Side
from serialbench.sides.worktrees import cases_repository, checkout, work_tree


@dataclasses.dataclass(frozen=True)
class Plan:
    """The sides a sweep times, in order: their SPECs and labels (this part's, with --shard), the labels
    this part owns, every label of the whole sweep, the history they are (a range's name) and the
    commits among them, by label; whether each step is judged against the anchor rather than the
    side before it, and what a side is called."""

    specs: list[str]
    labels: list[str]
    own: list[str]
    all_labels: list[str]
    history: str
    described: dict[str, Commit]
    # Releases and commits: where did it change (each adjacent step)? Interpreters: is each cheaper than
    # the one run now, the first (each against the anchor)?
    against_anchor: bool = False
    noun: str = "release"


def plan(given: list[str], revisions: str | None, pythons: str | None, case_dirs: list[str], steps: int | None,
         shard: tuple[int, int] | None, say) -> Plan:
    """The sides of a sweep from its SPECs (or --revisions A..B, or --pythons), before any is built."""
    if pythons:
        specs = releases.spread(interpreters.parse_pythons(pythons), steps)
        history, described = "", {}
    elif revisions:
        chosen = releases.spread(commits.expand_range(f"{cases_repository(case_dirs)}@{revisions}"), steps)
        specs = [commit.sha for commit in chosen]
        history, described = f"{revisions} of the cases (first-parent)", {c.label: c for c in chosen}
    else:
        specs = releases.spread([s for spec in given for s in releases.expand(spec, sys.executable)], steps)
        history = "; ".join(commits.range_name(spec) for spec in given if commits.is_range(spec))
        described = check_commits(specs)  # every commit's package name, before anything is built
    if len(specs) < 2:
        raise UsageError(f"one side ({specs[0]}) is nothing to sweep: give two SPECs or more, or a range")
    all_labels = (list(described) if revisions else interpreters.labels(specs) if pythons
                  else releases.labels(specs))
    labels, own = all_labels, all_labels
    if shard:
        label_of = dict(zip(specs, all_labels))
        specs, own_specs = releases.shard(specs, *shard)
        labels, own = [label_of[s] for s in specs], [label_of[s] for s in own_specs]
        say(f"part {shard[0]}/{shard[1]}: {', '.join(labels)}")
    return Plan(specs, labels, own, all_labels, history, described, against_anchor=bool(pythons),
                noun="interpreter" if pythons else "release")


@contextlib.contextmanager
def sides_of(specs: list[str], labels: list[str], revisions: str | None, pythons: str | None, case_dirs: list[str],
             payloads, with_specs, needs, build, say):
    """The sides before they are checked, and those left out (label -> why): the work tree's cases
    with an overlay per SPEC, or (--pythons) in each interpreter, with an environment made where it
    lacks what the selection `needs`, or (--revisions) a worktree per revision of the cases, --with on each."""
    if pythons:
        with work_tree(case_dirs) as tree:
            yield sides_with_interpreters(dataclasses.replace(tree, payloads=payloads), specs, labels, with_specs,
                                          needs, say, build)
        return
    if not revisions:
        with work_tree(case_dirs) as tree:
            tree = dataclasses.replace(tree, payloads=payloads)
            yield sides_with_overlays(tree, labels, [[spec, *with_specs] for spec in specs], say, build)
        return
    with checkout(specs, labels, case_dirs) as trees:
        yield [with_environment(dataclasses.replace(tree, payloads=payloads), None, with_specs, say, build)
               for tree in trees], {}


def usable(checked: list, plan: Plan, shard, left_out: dict[str, str], say) -> tuple[list, list[str]]:
    """The checked sides that can run some of the selection (at least two), those left out said and
    kept in left_out (label -> why), and the labels this part owns: all of them, named again, when some
    left out change the names."""
    for item in checked:
        if not item.runnable:
            left_out[item.side.label] = item.why or "it runs none of the selected benchmarks (causes above)"
            say(f"{item.side.label}: left out: {left_out[item.side.label]}")
    usable = [item for item in checked if item.runnable]
    if len(usable) < 2:
        raise UsageError(f"fewer than two sides can run the selection ({len(usable)}); nothing to sweep")
    if not shard and len(usable) < len(plan.specs) and any(len(releases.requirement_set(s)) > 1 for s in plan.specs):
        usable = relabelled(usable, plan.specs)
        return usable, [item.side.label for item in usable]
    return usable, plan.own


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


@dataclasses.dataclass(frozen=True)
class Range:
    """What a bisection searches: the versions in order and its ends' labels; over commits, each commit by
    label and the range's name ('msgpack-python v1.1.2..v1.2.0 (first-parent)')."""

    name: str
    versions: list[str]
    good: str
    bad: str
    history: dict[str, Commit] = dataclasses.field(default_factory=dict)
    named: str = ""

    def spec(self, version: str) -> str:
        """What installs a version: its commit's clean tree, or the release from the index."""
        commit = self.history.get(version)
        return commit.spec if commit else f"{self.name}=={version}"


def bisect_range(name: str, good: str, bad: str, repo: str | None, say) -> Range:
    """The releases of `name` the index has from GOOD to BAD, or (`repo`, a clone of it) the commits from GOOD
    to BAD on BAD's first-parent line; said in one line."""
    if not repo:
        versions = releases.between(name, good, bad, sys.executable)
        say(f"{len(versions)} releases of {name} from {good} to {bad}: {', '.join(versions)}")
        return Range(name, versions, good, bad)
    found = commits.between(repo, name, good, bad)
    history = {commit.label: commit for commit in found}
    changing = f", changing {found[0].folder}" if found[0].folder else ""
    say(f"{len(history)} commits of {name} from {good} to {bad} (first-parent{changing})")
    return Range(name, list(history), found[0].label, found[-1].label, history,
                 commits.range_name(found[0].place.spec(f"{good}..{bad}")))
