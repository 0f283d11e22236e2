"""`python -m serialbench verify`: does every case give back exactly what it was given?

For every selected case, each timing input kind it accepts (at 1K unless --tier says otherwise)
and each edge input that applies to it (catalog/edge_inputs.py), the case encodes the input
and its independent reference decoder reads the body back (catalog/roundtrip.py); a decode case
reads the body its source produced. One line per case and input: `lossless`, `lossy: <what
changes>`, `rejected: <the library's error>` or `unchecked: <why>`. Nothing is timed.

An input kind a case declares `unsupported` (raw PNG bytes in a JSON body) is run anyway and
marked so: the table shows the library's own refusal beside the reason the case gives.

Exit status 0 when every selected case is lossless (or unchecked) on the timing inputs it
declares, the ones a run would time; 1 otherwise, naming them. Edge inputs and unsupported kinds
are reported, never fatal: that JSON turns NaN into null is a fact to show, not a bug to fix.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from serialbench.catalog.case import Case
from serialbench.catalog.edge_inputs import EDGE_INPUTS, edge_payload
from serialbench.catalog.fidelity import REJECTED, Verdict, library_error
from serialbench.catalog.inputs import INPUT_KINDS, TIERS, default_inputs, make_payload
from serialbench.catalog.payloads import build, parse_payloads
from serialbench.catalog.registry import select, unsupported_reasons
from serialbench.catalog.roundtrip import Check, Row, check, plan
from serialbench.commands.options import add_filter_arguments, add_with_argument, parser
from serialbench.core.errors import UsageError
from serialbench.core.parsing import parse_words
from serialbench.core.tables import text_table
from serialbench.measure.side_setup import overlay_active, run_with_overlay
from serialbench.views.payload_matrix import payload_matrix

DEFAULT_TIER = "1K"  # what round-trips does not depend on size; --tier checks other sizes


def verdict_text(c: Check) -> str:
    if c.row.declared:
        return str(c.verdict)
    reason = c.row.refusal or c.row.case.unsupported.get(_stands_for(c.row)) or "declared unsupported"
    if c.verdict.status == REJECTED:
        return f"rejected: {reason} [run anyway: {library_error(c.verdict.detail, limit=100)}]"
    return f"{c.verdict} [declared unsupported: {reason}]"


def _stands_for(row: Row) -> str:
    if row.input in EDGE_INPUTS:
        unsupported = row.case.unsupported
        return next((k for k in EDGE_INPUTS[row.input].stands_for if k in unsupported), "")
    return row.input


def format_table(checks: Sequence[Check]) -> str:
    rows: list = [("FORMAT/IMPL", "INPUT", "VERDICT")]
    previous = None
    for c in checks:
        if previous is not None and c.row.case.label != previous:
            rows.append(None)
        previous = c.row.case.label
        rows.append((c.row.case.label, _input_label(c.row), verdict_text(c)))
    return "\n".join(text_table(rows, left=(0, 1, 2)))


def _input_label(row: Row) -> str:
    return f"{row.input}/{row.tier}" if row.tier else row.input


def edge_legend() -> str:
    width = max(len(name) for name in EDGE_INPUTS)
    return "\n".join(f"  {name:<{width}}  {edge.description}" for name, edge in EDGE_INPUTS.items())


def run(argv: list[str]) -> int:
    cli = parser("verify", "Check that every case decodes back to exactly its input, on the timing inputs "
                           "and on edge inputs; nothing is timed.")
    cli.epilog = "edge inputs (never timed; each runs on the cases that accept an input of its form):\n" \
        + edge_legend()
    cli.formatter_class = argparse.RawDescriptionHelpFormatter
    add_filter_arguments(cli)
    cli.add_argument("--edge", action=argparse.BooleanOptionalAction,
                     help="also check the edge inputs (default: yes, but not with --payload); they never "
                          "change the exit status")
    cli.add_argument("--matrix", action="store_true",
                     help="with --payload: a row per FORMAT/IMPL and a column per payload (give one dtype each to "
                          "see which formats carry which dtypes), the reasons numbered below it")
    add_with_argument(cli, "the check")
    args = cli.parse_args(argv)
    if args.with_specs and not overlay_active():  # the command again, its libraries from the overlay
        return run_with_overlay("verify", argv, args.with_specs, lambda message: print(message, file=sys.stderr))
    sources = parse_payloads(args.payloads)
    tiers = parse_words(args.tier, list(TIERS), "tier") or [DEFAULT_TIER]
    kinds = parse_words(args.input, list(INPUT_KINDS), "input") or ([] if sources else default_inputs())
    warnings: list[str] = []
    _, cases = select(args.case_dirs, (), ",".join(tiers), ",".join(kinds) or None, warnings.append,
                      payloads=args.payloads)
    edges = args.edge if args.edge is not None else not sources
    rows = plan(cases, kinds, tiers, edges, args.patterns, sources)
    shown_in_table = set(unsupported_reasons(cases, kinds, tiers, (), sources))
    for message in warnings:  # broken case modules, missing libraries
        if message not in shown_in_table:
            print(message, file=sys.stderr)
    checks = [Check(row, _check_row(row, cases)) for row in rows]
    if args.matrix and not sources:
        raise UsageError("--matrix lays out payloads: give --payload (one per dtype, say)")
    if args.matrix:
        rest = [c for c in checks if c.row.payload is None]
        print(payload_matrix(checks, [source.word for source in sources]), end="")
        if rest:
            print()
            print(format_table(rest))
    else:
        print(format_table(checks))
    timed = [c for c in checks if c.row.timed]
    failed = [c for c in checks if c.failed]
    if failed:
        print(f"verify: {len(failed)} of {len(timed)} timing benchmarks are not lossless: "
              f"{', '.join(c.row.name for c in failed)}", file=sys.stderr)
        return 1
    print(f"verify: all {len(timed)} timing benchmarks are lossless")
    return 0


def _check_row(row: Row, cases: Sequence[Case]) -> Verdict:
    if row.tier is None:
        return check(row.case, edge_payload(row.input), cases)
    if row.payload is not None:
        return check(row.case, build(row.payload), cases)
    try:
        payload = make_payload(row.input, row.tier)
    except MemoryError as exc:  # an oversize tier is refused before anything is allocated
        return Verdict(REJECTED, f"input not built: {exc}")
    return check(row.case, payload, cases)
