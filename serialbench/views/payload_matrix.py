"""verify's answer for payloads: which format carries which payload, and which loses what, at a glance.

A row per FORMAT/IMPL, a column per `--payload` (one dtype each, say, to see which formats carry
which dtypes); a cell is `lossless`, `refused [n]` (the case declares it cannot carry it, reason n
below), or, for a payload the case takes and a run would time, `LOSSY [n]`, `REJECTED [n]` (what was
lost, or the library's error), `unchecked`; `-` where the case takes no tensor of that form (arrays
in a base64 case). The reasons follow the table once each, numbered; the one-line-per-row table
(`verify` without --matrix) has them all in full.
"""

from __future__ import annotations

from collections.abc import Sequence

from serialbench.catalog.fidelity import LOSSLESS, UNCHECKED
from serialbench.catalog.fidelity_check import Check
from serialbench.views.table import Cell, Column, Row, Table, by_format

LEGEND = ("lossless: read back bit for bit by the format's own parser; refused [n]: the case does not carry it, "
          "reason n; LOSSY [n] / REJECTED [n]: a case that declares it loses it or fails (verify exits 1); "
          "-: the case takes no tensor of that form.")


def payload_matrix(checks: Sequence[Check], words: Sequence[str]) -> Table | None:
    """The payload checks as a matrix, its numbered reasons under it; None when no check is of a payload."""
    checks = [c for c in checks if c.trial.payload is not None]
    if not checks:
        return None
    notes: dict[str, int] = {}
    cells: dict[str, dict[str, str]] = {}
    for check in checks:
        cells.setdefault(check.trial.case.label, {})[check.trial.input] = _cell(check, notes)
    matrix = Table([Column(word, left=True) for word in words], corner="FORMAT/IMPL", rule=True,
                   notes=[LEGEND, "", *(f"[{number}] {note}" for note, number in notes.items())])
    for label, by_word in cells.items():
        matrix.rows.append(Row(label, [Cell([by_word.get(word, "-")]) for word in words], group=by_format(label)))
    return matrix


def _cell(check: Check, notes: dict[str, int]) -> str:
    verdict = check.fidelity
    if not check.trial.declared:
        return f"refused [{_note(check.trial.refusal, notes)}]"
    if verdict.status == LOSSLESS:
        return "lossless"
    if verdict.status == UNCHECKED:
        return "unchecked"
    return f"{verdict.status.upper()} [{_note(verdict.detail, notes)}]"


def _note(text: str, notes: dict[str, int]) -> int:
    return notes.setdefault(text, len(notes) + 1)
