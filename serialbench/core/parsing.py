"""The words users type: comma lists and percentages, parsed once for every command, and the argument
parser whose errors are such words too.

Each refusal is a UsageError of one line saying what was wrong and what is accepted.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from serialbench.core.errors import UsageError


def split_words(value: str | Sequence[str] | None) -> list[str] | None:
    """`1K, 10K` -> ['1K', '10K']; a list passes through; None stays None (not given)."""
    if value is None:
        return None
    words = value.split(",") if isinstance(value, str) else value
    return [word.strip() for word in words if word.strip()]


def parse_words(value: str | Sequence[str] | None, accepted: Sequence[str], what: str) -> list[str] | None:
    """A comma list whose every word is one of `accepted` (None when not given)."""
    words = split_words(value)
    if words is None:
        return None
    unknown = [word for word in words if word not in accepted]
    if unknown or not words:
        raise UsageError(f"unknown {what} {','.join(unknown) or repr(value)}; accepted: {', '.join(accepted)}")
    return words


def parse_percent(text: str | None, default: float, option: str) -> float:
    """`2`, `2%` or `0.5` percent -> a fraction (0.02); `default` when not given."""
    if text is None:
        return default
    try:
        value = float(str(text).strip().rstrip("%"))
    except ValueError:
        raise UsageError(f"{option} {text!r}: give a percentage such as 2 or 2%") from None
    if not 0 <= value < 100:
        raise UsageError(f"{option} {text!r}: give a percentage from 0 to 100")
    return value / 100


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are a UsageError (one line, exit status 2 where it is caught), not argparse's
    usage and exit: the commands' parser (commands/contract.Parser) and the hidden workers' (workers.py)."""

    def error(self, message: str):
        raise UsageError(message)
