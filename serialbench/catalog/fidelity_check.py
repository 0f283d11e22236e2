"""The fidelity check, what round-trips: one case on one input, encoded and read back, compared bit for bit.

`verify` (commands/verify.py) runs it on every selected case, the timing inputs and the edge
inputs; the runner's own check before timing is registry.prepare's, which refuses what is lossy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from serialbench.catalog.case import Case
from serialbench.catalog.edge_inputs import edges_for
from serialbench.catalog.fidelity import (
    LOSSLESS,
    LOSSY,
    REJECTED,
    UNCHECKED,
    Fidelity,
    as_wire_bytes,
    fidelity,
    library_error,
    rejected,
)
from serialbench.catalog.inputs import Payload, Tensor
from serialbench.catalog.payloads import PayloadSource
from serialbench.catalog.registry import CaseFailed, find_case, name_matches, payload_refusal
from serialbench.core.errors import UsageError


@dataclass(frozen=True)
class Trial:
    """One case on one input: a timing kind at a tier, a payload (its size as the tier), or an edge
    input (tier None)."""

    case: Case
    input: str
    tier: str | None
    declared: bool = True  # False: a kind the case declares unsupported, run to show the refusal
    payload: PayloadSource | None = None
    refusal: str = ""  # why the case refuses the payload (declared False)

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
    trial: Trial
    fidelity: Fidelity

    @property
    def failed(self) -> bool:
        return self.trial.timed and self.fidelity.status not in (LOSSLESS, UNCHECKED)


# One round trip ----------------------------------------------------------------------------------

def check(case: Case, payload: Payload, cases: Sequence[Case]) -> Fidelity:
    """Encode and decode once; what came back, compared with the payload bit for bit."""
    encoder = case
    if case.decodes:
        try:
            encoder = find_case(cases, case.format, case.source)
        except CaseFailed as exc:
            return Fidelity(UNCHECKED, str(exc))
    try:
        wire = _encode(encoder, payload)
    except Exception as exc:  # noqa: BLE001 - a library's refusal is the verdict
        by = f"by {encoder.impl}: " if encoder is not case else ""
        return Fidelity(REJECTED, by + library_error(exc))
    if case.decodes:
        try:
            decoded = case.setup(wire, payload)()
        except Exception as exc:  # noqa: BLE001
            return rejected(exc)
    elif case.reference_decoder is None:
        return Fidelity(UNCHECKED, "no reference decoder")
    else:
        try:
            decoded = case.reference_decoder(wire, payload)
        except Exception as exc:  # noqa: BLE001 - a body its own format's parser cannot read
            return Fidelity(LOSSY, f"the body does not decode ({library_error(exc)})")
    result = fidelity(payload, decoded)
    return _with_json_findings(result, encoder, payload, wire)


def _encode(case: Case, payload: Payload) -> bytes:
    return as_wire_bytes(case.setup(payload)())


# JSON bodies -------------------------------------------------------------------------------------
# A decoder that reads JSON null into a float array (np.asarray([None], float32) is NaN) makes
# NaN -> null look lossless. The body says what happened: nulls that a finite twin of the input
# does not produce are values the encoder dropped.

def _with_json_findings(result: Fidelity, case: Case, payload: Payload, wire: bytes) -> Fidelity:
    non_finite = _non_finite(payload)
    nulls = _json_nulls(wire) if non_finite else None
    if nulls is None:
        return result
    dropped = nulls - (_json_nulls(_finite_twin_wire(case, payload)) or 0)
    if dropped > 0:
        total = sum(t.value.size for t in payload.tensors if isinstance(t.value, np.ndarray))
        return Fidelity(LOSSY, f"{non_finite} -> null ({dropped} of {total} values)")
    if result.status == LOSSLESS and not _strict_json(wire):
        return Fidelity(LOSSLESS, "writes NaN/Infinity: not strict JSON, which strict parsers refuse")
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
         patterns: Sequence[str], payloads: Sequence[PayloadSource] = ()) -> list[Trial]:
    """The rows in table order, case by case: timing kinds, unsupported kinds, payloads (carried or
    refused), edge inputs."""
    rows = []
    for case in cases:
        unsupported = case.unsupported
        for kind in kinds:
            if kind in case.inputs:
                rows.extend(Trial(case, kind, tier) for tier in tiers)
            elif kind in unsupported:
                rows.extend(Trial(case, kind, tier, declared=False) for tier in tiers)
        for source in payloads:
            refusal = payload_refusal(case, source, cases)
            if refusal is None:
                rows.append(Trial(case, source.word, source.tier, payload=source))
            elif refusal:
                rows.append(Trial(case, source.word, source.tier, declared=False, payload=source, refusal=refusal))
        if edges:
            rows.extend(Trial(case, edge, None) for edge in edges_for(case.inputs))
            rows.extend(Trial(case, edge, None, declared=False)
                        for edge in edges_for(tuple(unsupported)) if edge not in edges_for(case.inputs))
    if not patterns:
        return rows
    for pattern in patterns:
        if not any(_row_matches(row, pattern) for row in rows):
            raise UsageError(f"-b {pattern!r} matches no case and input; names are FORMAT/IMPL/INPUT[/TIER], "
                             "see 'python -m serialbench list'")
    return [row for row in rows if any(_row_matches(row, p) for p in patterns)]


def _row_matches(row: Trial, pattern: str) -> bool:
    if row.tier is None:  # an edge input has no tier: match FORMAT/IMPL/INPUT, whatever the pattern's tier
        return name_matches(row.name, "/".join(pattern.split("/")[:3]))
    return name_matches(row.name, pattern)
