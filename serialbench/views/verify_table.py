"""verify's table: one line per case and input, what came back (lossless, lossy, rejected, unchecked).

A kind or edge input that a case declares unsupported is run anyway, and its line gives the case's
reason beside what the library did. Blank lines separate the cases. The same rows in Markdown and JSON.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from serialbench.catalog.edge_inputs import EDGE_INPUTS
from serialbench.catalog.fidelity import REJECTED, library_error
from serialbench.catalog.fidelity_check import Check, Trial
from serialbench.views.payload_matrix import payload_matrix
from serialbench.views.table import Column, Document, Table, column


def verdict_text(c: Check) -> str:
    if c.trial.declared:
        return str(c.fidelity)
    reason = c.trial.refusal or c.trial.case.unsupported.get(_stands_for(c.trial)) or "declared unsupported"
    if c.fidelity.status == REJECTED:
        return f"rejected: {reason} [run anyway: {library_error(c.fidelity.detail, limit=100)}]"
    return f"{c.fidelity} [declared unsupported: {reason}]"


def _stands_for(trial: Trial) -> str:
    if trial.input in EDGE_INPUTS:
        unsupported = trial.case.unsupported
        return next((k for k in EDGE_INPUTS[trial.input].stands_for if k in unsupported), "")
    return trial.input


def _input_label(trial: Trial) -> str:
    return f"{trial.input}/{trial.tier}" if trial.tier else trial.input


COLUMNS: list[Column] = [
    column("name", "", None, lambda c: c.trial.name),
    Column("FORMAT/IMPL", lambda c: c.trial.case.label,
           lambda c: {"format": c.trial.case.format, "impl": c.trial.case.impl}, left=True, code=True),
    Column("INPUT", lambda c: _input_label(c.trial), lambda c: {"input": c.trial.input, "tier": c.trial.tier},
           left=True),
    Column("VERDICT", verdict_text, lambda c: {"fidelity": c.fidelity.status, "detail": c.fidelity.detail,
                                               "text": verdict_text(c)}, left=True),
    column("declared", "", None, lambda c: c.trial.declared),
    column("timed", "", None, lambda c: c.trial.timed),
]


def by_case(check: Check) -> str:
    return check.trial.case.label


def verify_document(checks: Sequence[Check], words: Sequence[str] | None = None) -> Document:
    """The table, its closing line under it, and the JSON's keys. The terminal's table has its closing
    line apart (on stderr when a check failed); with `words` (--matrix, a payload each) the payload
    checks are a matrix (views/payload_matrix.py), the others' table under it."""
    failed = [c.trial.name for c in checks if c.failed]
    timed = [c for c in checks if c.trial.timed]
    closing = (f"verify: {len(failed)} of {len(timed)} timing benchmarks are not lossless: {', '.join(failed)}"
               if failed else f"verify: all {len(timed)} timing benchmarks are lossless")
    checked = Table.of(COLUMNS, checks, group=by_case, notes=[closing])
    terminal = [dataclasses.replace(checked, notes=[])]
    if words is not None:  # the matrix, and the table of what is not a payload; either only where it has rows
        rest = Table.of(COLUMNS, [c for c in checks if c.trial.payload is None], group=by_case)
        terminal = [shown for shown in (payload_matrix(checks, words), rest) if shown is not None and shown.rows]
    return Document([checked], terminal=terminal, keys={"checks": checked, "timed": len(timed), "failed": failed,
                                                        "closing": closing})


def edge_legend() -> str:
    width = max(len(name) for name in EDGE_INPUTS)
    return "\n".join(f"  {name:<{width}}  {edge.description}" for name, edge in EDGE_INPUTS.items())
