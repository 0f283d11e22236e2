"""`python -m serialbench verify`: does every case give back exactly what it was given?

For every selected case, each timing input kind it accepts (at 1K unless --tier says otherwise)
and each edge input that applies to it (serialbench/edge_inputs.py), the case encodes the input
and its independent reference decoder reads the body back; a decode case reads the body its
source produced. One line per case and input: `lossless`, `lossy: <what changes>`,
`rejected: <the library's error>` or `unchecked: <why>`. Nothing is timed.

An input kind a case declares `unsupported` (raw PNG bytes in a JSON body) is run anyway and
marked so: the table shows the library's own refusal beside the reason the case gives.

Exit status 0 when every selected case is lossless (or unchecked) on the timing inputs it
declares, the ones a run would time; 1 otherwise, naming them. Edge inputs and unsupported kinds
are reported, never fatal: that JSON turns NaN into null is a fact to show, not a bug to fix.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from serialbench.case import Case
from serialbench.edge_inputs import EDGE_INPUTS, edge_payload, edges_for
from serialbench.errors import UsageError
from serialbench.fidelity import (
    LOSSLESS,
    LOSSY,
    REJECTED,
    UNCHECKED,
    Verdict,
    as_wire_bytes,
    library_error,
    rejected,
    verdict,
)
from serialbench.inputs import INPUT_KINDS, TIERS, Payload, Tensor, default_inputs, make_payload
from serialbench.listing import parser
from serialbench.registry import CaseFailed, find_case, name_matches, parse_list, select, unsupported_reasons
from serialbench.runner import add_filter_arguments

DEFAULT_TIER = "1K"  # what round-trips does not depend on size; --tier checks other sizes


@dataclass(frozen=True)
class Row:
    """One case on one input: a timing kind at a tier, or an edge input (tier None)."""

    case: Case
    input: str
    tier: str | None
    declared: bool = True  # False: a kind the case declares unsupported, run to show the refusal

    @property
    def name(self) -> str:
        base = f"{self.case.label}/{self.input}"
        return f"{base}/{self.tier}" if self.tier else base

    @property
    def timed(self) -> bool:
        """A run would time it, so it must be lossless."""
        return self.tier is not None and self.declared


@dataclass(frozen=True)
class Check:
    row: Row
    verdict: Verdict

    @property
    def failed(self) -> bool:
        return self.row.timed and self.verdict.status not in (LOSSLESS, UNCHECKED)


# One round trip ----------------------------------------------------------------------------------

def check(case: Case, payload: Payload, cases: Sequence[Case]) -> Verdict:
    """Encode and decode once; what came back, compared with the payload bit for bit."""
    encoder = case
    if case.direction == "decode":
        try:
            encoder = find_case(cases, case.format, case.source)
        except CaseFailed as exc:
            return Verdict(UNCHECKED, str(exc))
    try:
        wire = _encode(encoder, payload)
    except Exception as exc:  # noqa: BLE001 - a library's refusal is the verdict
        by = f"by {encoder.impl}: " if encoder is not case else ""
        return Verdict(REJECTED, by + library_error(exc))
    if case.direction == "decode":
        try:
            decoded = case.setup(wire, payload)()
        except Exception as exc:  # noqa: BLE001
            return rejected(exc)
    elif case.reference_decoder is None:
        return Verdict(UNCHECKED, "no reference decoder")
    else:
        try:
            decoded = case.reference_decoder(wire, payload)
        except Exception as exc:  # noqa: BLE001 - a body its own format's parser cannot read
            return Verdict(LOSSY, f"the body does not decode ({library_error(exc)})")
    result = verdict(payload, decoded)
    return _with_json_findings(result, encoder, payload, wire)


def _encode(case: Case, payload: Payload) -> bytes:
    return as_wire_bytes(case.setup(payload)())


# JSON bodies -------------------------------------------------------------------------------------
# A decoder that reads JSON null into a float array (np.asarray([None], float32) is NaN) makes
# NaN -> null look lossless. The body says what happened: nulls that a finite twin of the input
# does not produce are values the encoder dropped.

def _with_json_findings(result: Verdict, case: Case, payload: Payload, wire: bytes) -> Verdict:
    non_finite = _non_finite(payload)
    nulls = _json_nulls(wire) if non_finite else None
    if nulls is None:
        return result
    dropped = nulls - (_json_nulls(_finite_twin_wire(case, payload)) or 0)
    if dropped > 0:
        total = sum(t.value.size for t in payload.tensors if isinstance(t.value, np.ndarray))
        return Verdict(LOSSY, f"{non_finite} -> null ({dropped} of {total} values)")
    if result.status == LOSSLESS and not _strict_json(wire):
        return Verdict(LOSSLESS, "writes NaN/Infinity: not strict JSON, which strict parsers refuse")
    return result


def _non_finite(payload: Payload) -> str:
    """`NaN`, `±Inf` or `NaN and ±Inf`: what non-finite floats the payload holds ('' for none)."""
    arrays = [t.value for t in payload.tensors if isinstance(t.value, np.ndarray) and t.value.dtype.kind == "f"]
    has_nan = any(np.isnan(a).any() for a in arrays)
    has_inf = any(np.isinf(a).any() for a in arrays)
    return " and ".join(word for word, present in (("NaN", has_nan), ("±Inf", has_inf)) if present)


def _json_nulls(wire: bytes) -> int | None:
    """How many nulls a JSON body holds; None when the body is not JSON."""
    if wire[:1] not in (b"{", b"["):
        return None
    try:
        document = json.loads(wire)
    except (ValueError, RecursionError):
        return None
    count, stack = 0, [document]
    while stack:
        item = stack.pop()
        if item is None:
            count += 1
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return count


def _finite_twin_wire(case: Case, payload: Payload) -> bytes:
    twin = Payload(payload.kind, payload.tier, tuple(
        Tensor(t.name, np.nan_to_num(t.value, nan=0, posinf=0, neginf=0).astype(t.value.dtype))
        if isinstance(t.value, np.ndarray) and t.value.dtype.kind == "f" else t
        for t in payload.tensors))
    try:
        return _encode(case, twin)
    except Exception:  # noqa: BLE001 - no twin, no comparison
        return b""


def _strict_json(wire: bytes) -> bool:
    def refuse(token):
        raise ValueError(token)

    try:
        json.loads(wire, parse_constant=refuse)
    except ValueError:
        return False
    return True


# Selection and the table -------------------------------------------------------------------------

def plan(cases: Sequence[Case], kinds: Sequence[str], tiers: Sequence[str], edges: bool,
         patterns: Sequence[str]) -> list[Row]:
    """The rows in table order, case by case: timing kinds, unsupported kinds, edge inputs."""
    rows = []
    for case in cases:
        unsupported = case.unsupported
        for kind in kinds:
            if kind in case.inputs:
                rows.extend(Row(case, kind, tier) for tier in tiers)
            elif kind in unsupported:
                rows.extend(Row(case, kind, tier, declared=False) for tier in tiers)
        if edges:
            rows.extend(Row(case, edge, None) for edge in edges_for(case.inputs))
            rows.extend(Row(case, edge, None, declared=False)
                        for edge in edges_for(tuple(unsupported)) if edge not in edges_for(case.inputs))
    if not patterns:
        return rows
    for pattern in patterns:
        if not any(_row_matches(row, pattern) for row in rows):
            raise UsageError(f"-b {pattern!r} matches no case and input; names are FORMAT/IMPL/INPUT[/TIER], "
                             "see 'python -m serialbench list'")
    return [row for row in rows if any(_row_matches(row, p) for p in patterns)]


def _row_matches(row: Row, pattern: str) -> bool:
    if row.tier is None:  # an edge input has no tier: match FORMAT/IMPL/INPUT, whatever the pattern's tier
        return name_matches(row.name, "/".join(pattern.split("/")[:3]))
    return name_matches(row.name, pattern)


def verdict_text(c: Check) -> str:
    if c.row.declared:
        return str(c.verdict)
    reason = c.row.case.unsupported.get(_stands_for(c.row)) or "declared unsupported"
    if c.verdict.status == REJECTED:
        return f"rejected: {reason} [run anyway: {library_error(c.verdict.detail, limit=100)}]"
    return f"{c.verdict} [declared unsupported: {reason}]"


def _stands_for(row: Row) -> str:
    if row.input in EDGE_INPUTS:
        unsupported = row.case.unsupported
        return next((k for k in EDGE_INPUTS[row.input].stands_for if k in unsupported), "")
    return row.input


def format_table(checks: Sequence[Check]) -> str:
    case_width = max([len("FORMAT/IMPL"), *(len(c.row.case.label) for c in checks)])
    input_width = max([len("INPUT"), *(len(_input_label(c.row)) for c in checks)])
    lines = [f"{'FORMAT/IMPL':<{case_width}}  {'INPUT':<{input_width}}  VERDICT"]
    previous = None
    for c in checks:
        if previous is not None and c.row.case.label != previous:
            lines.append("")
        previous = c.row.case.label
        lines.append(f"{c.row.case.label:<{case_width}}  {_input_label(c.row):<{input_width}}  {verdict_text(c)}")
    return "\n".join(lines)


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
    cli.add_argument("--edge", action=argparse.BooleanOptionalAction, default=True,
                     help="also check the edge inputs (default: yes); they never change the exit status")
    args = cli.parse_args(argv)
    tiers = parse_list(args.tier, list(TIERS), "tier") or [DEFAULT_TIER]
    kinds = parse_list(args.input, list(INPUT_KINDS), "input") or default_inputs()
    warnings: list[str] = []
    _, cases = select(args.case_dirs, (), ",".join(tiers), ",".join(kinds), warnings.append)
    rows = plan(cases, kinds, tiers, args.edge, args.patterns)
    shown_in_table = set(unsupported_reasons(cases, kinds, tiers, ()))
    for message in warnings:  # broken case modules, missing libraries
        if message not in shown_in_table:
            print(message, file=sys.stderr)
    checks = [Check(row, _check_row(row, cases)) for row in rows]
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
    try:
        payload = make_payload(row.input, row.tier)
    except MemoryError as exc:  # an oversize tier is refused before anything is allocated
        return Verdict(REJECTED, f"input not built: {exc}")
    return check(row.case, payload, cases)
