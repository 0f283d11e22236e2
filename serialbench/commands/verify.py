"""`python -m serialbench verify`: does every case give back exactly what it was given?

For every selected case, each timing input kind it accepts (at 1K unless --tier says otherwise)
and each edge input that applies to it (catalog/edge_inputs.py), the case encodes the input
and its independent reference decoder reads the body back (catalog/fidelity_check.py); a decode case
reads the body its source produced. One line per case and input (views/verify_table.py):
`lossless`, `lossy: <what changes>`, `rejected: <the library's error>` or `unchecked: <why>`.
Nothing is timed.

An input kind a case declares `unsupported` (raw PNG bytes in a JSON body) is run anyway and
marked so: the table shows the library's own refusal beside the reason the case gives.

Exit status 0 when every selected case is lossless (or unchecked) on the timing inputs it
declares, the ones a run would time; 1 otherwise, naming them. Edge inputs and unsupported kinds
are reported, never fatal: that JSON turns NaN into null is a fact to show, not a bug to fix.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from serialbench.catalog.case import Case
from serialbench.catalog.edge_inputs import edge_payload
from serialbench.catalog.fidelity import REJECTED, Fidelity
from serialbench.catalog.fidelity_check import Check, Trial, check, plan
from serialbench.catalog.inputs import INPUT_KINDS, TIERS, default_inputs, make_payload
from serialbench.catalog.payloads import build, parse_payloads
from serialbench.catalog.registry import select, unsupported_reasons
from serialbench.commands.contract import Output, Parser
from serialbench.commands.options import add_filter_arguments, add_with_argument
from serialbench.core.errors import UsageError
from serialbench.core.parsing import parse_words
from serialbench.sides.run_with import overlay_active, run_with_overlay
from serialbench.views.verify_table import edge_legend, verify_document

DESCRIPTION = ("Check that every case decodes back to exactly its input, on the timing inputs and on edge inputs; "
               "nothing is timed.")
PARSER_OPTIONS = {"formatter_class": argparse.RawDescriptionHelpFormatter}
DEFAULT_TIER = "1K"  # what round-trips does not depend on size; --tier checks other sizes


def arguments(cli: Parser) -> None:
    cli.epilog = "edge inputs (never timed; each runs on the cases that accept an input of its form):\n" \
        + edge_legend()
    add_filter_arguments(cli)
    cli.add_argument("--edge", action=argparse.BooleanOptionalAction,
                     help="also check the edge inputs (default: yes, but not with --payload); they never "
                          "change the exit status")
    cli.add_argument("--matrix", action="store_true",
                     help="with --payload: a row per FORMAT/IMPL and a column per payload (give one dtype each to "
                          "see which formats carry which dtypes), the reasons numbered below it")
    add_with_argument(cli, "the check")
    cli.add_json("the table")
    cli.add_markdown("the table")


def run(args, out: Output) -> int:
    if args.with_specs and not overlay_active():  # the command again, its libraries from the overlay
        return run_with_overlay("verify", args.argv, args.with_specs, out.say)
    sources = parse_payloads(args.payloads)
    tiers = parse_words(args.tier, list(TIERS), "tier") or [DEFAULT_TIER]
    kinds = parse_words(args.input, list(INPUT_KINDS), "input") or ([] if sources else default_inputs())
    if args.matrix and not sources:
        raise UsageError("--matrix lays out payloads: give --payload (one per dtype, say)")
    warnings: list[str] = []
    _, cases = select(args.case_dirs, (), ",".join(tiers), ",".join(kinds) or None, warnings.append,
                      payloads=args.payloads)
    edges = args.edge if args.edge is not None else not sources
    trials = plan(cases, kinds, tiers, edges, args.patterns, sources)
    shown_in_table = set(unsupported_reasons(cases, kinds, tiers, (), sources))
    for message in warnings:  # broken case modules, missing libraries
        if message not in shown_in_table:
            out.say(message)
    checks = [Check(trial, _check(trial, cases)) for trial in trials]
    document = verify_document(checks, [source.word for source in sources] if args.matrix else None)
    out.document(document)
    if any(c.failed for c in checks):
        out.say(document.keys["closing"])
        return 1
    out.print(document.keys["closing"])
    return 0


def _check(trial: Trial, cases: Sequence[Case]) -> Fidelity:
    if trial.tier is None:
        return check(trial.case, edge_payload(trial.input), cases)
    if trial.payload is not None:
        return check(trial.case, build(trial.payload), cases)
    try:
        payload = make_payload(trial.input, trial.tier)
    except MemoryError as exc:  # an oversize tier is refused before anything is allocated
        return Fidelity(REJECTED, f"input not built: {exc}")
    return check(trial.case, payload, cases)
