"""The -b, --tier and --input filters applied to the benchmarks of a result file."""

from __future__ import annotations

from collections.abc import Sequence

from serialbench.catalog.registry import name_matches
from serialbench.core.errors import UsageError
from serialbench.core.parsing import split_words
from serialbench.results.files import Result, ResultFile


def select_results(results: ResultFile, patterns: Sequence[str], tiers: str | None, inputs: str | None) -> list[Result]:
    """The results that the filters select; a filter that selects nothing in the file is an error."""
    wanted = {}
    for option, words_text, key in (("--tier", tiers, "tier"), ("--input", inputs, "input")):
        words = split_words(words_text)
        if words is None:
            continue
        present = list(dict.fromkeys(getattr(r, key) for r in results.results))
        unknown = [word for word in words if word not in present]
        if unknown or not words:
            raise UsageError(f"{option} {words_text!r}: {', '.join(unknown) or 'empty'} not in {results.path}; "
                             f"it has: {', '.join(present)}")
        wanted[key] = words
    for pattern in patterns:
        if not any(name_matches(r.name, pattern) for r in results.results):
            raise UsageError(f"-b {pattern!r} matches no benchmark in {results.path}; names are "
                             "FORMAT/IMPL/INPUT/TIER")
    return filter_results(results.results, patterns, wanted.get("tier"), wanted.get("input"))


def filter_results(results: Sequence[Result], patterns: Sequence[str], tiers: str | Sequence[str] | None,
                   inputs: str | Sequence[str] | None) -> list[Result]:
    tiers, inputs = split_words(tiers), split_words(inputs)
    return [r for r in results
            if (not patterns or any(name_matches(r.name, p) for p in patterns))
            and (tiers is None or r.tier in tiers) and (inputs is None or r.input in inputs)]
