"""The user's selection, checked once before any side: a typo in --tier, --input or -b is the
user's, not a side's, and is said before any overlay is installed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from serialbench.core.errors import UsageError


def check_selection(case_dirs: Sequence[str], patterns: Sequence[str], tiers: str | None,
                    inputs: str | None, payloads: Sequence[str] = ()) -> None:
    """The user's selection, checked once before any side: the tiers, the input kinds, the payloads,
    and that every -b pattern names a benchmark of the catalog, whether or not its libraries are
    installed here (an overlay may bring them)."""
    from serialbench.catalog.registry import name_matches

    found = Catalog.of(case_dirs, tiers, inputs, payloads)
    if not patterns:
        return
    names = [bench.name for bench in found.benchmarks()]
    for pattern in patterns:
        if not any(name_matches(name, pattern) for name in names):
            raise UsageError(f"-b {pattern!r} matches no benchmark at --tier {','.join(found.tiers)} and --input "
                             f"{','.join(found.inputs)}; names are FORMAT/IMPL/INPUT/TIER, "
                             "see 'python -m serialbench list'")


@dataclass(frozen=True)
class Catalog:
    """The selection's words parsed (a typo is a UsageError) and the catalog's cases, discovered whether or
    not their libraries are installed here (an overlay may bring them)."""

    case_dirs: tuple[str, ...]
    tiers: list[str]
    inputs: list[str]
    sources: list

    @classmethod
    def of(cls, case_dirs: Sequence[str], tiers: str | None, inputs: str | None,
           payloads: Sequence[str] = ()) -> Catalog:
        from serialbench.catalog.inputs import INPUT_KINDS, TIERS, default_inputs
        from serialbench.catalog.payloads import parse_payloads
        from serialbench.core.parsing import parse_words

        sources = parse_payloads(payloads)
        return cls(tuple(case_dirs), parse_words(tiers, list(TIERS), "tier") or list(TIERS),
                   parse_words(inputs, list(INPUT_KINDS), "input") or ([] if sources else default_inputs()), sources)

    @cached_property
    def cases(self) -> list:
        from serialbench.catalog.discovery import discover
        from serialbench.catalog.registry import case_dirs as directories

        return discover(directories(self.case_dirs), lambda message: None)

    def benchmarks(self) -> list:
        from serialbench.catalog.registry import all_benchmarks

        return all_benchmarks(self.cases, self.inputs, self.tiers, self.sources)


# What the inputs are made with, in every side: numpy for the arrays, Pillow for the PNG byte strings
# (catalog/inputs.py), ml_dtypes for a --payload's bfloat16 (catalog/payloads.py).
INPUT_LIBRARIES = ("numpy",)
BYTES_LIBRARIES = ("pillow",)
PAYLOAD_LIBRARIES = ("ml_dtypes",)


def selection_distributions(case_dirs: Sequence[str], patterns: Sequence[str], tiers: str | None,
                            inputs: str | None, payloads: Sequence[str] = ()) -> list[str]:
    """The distributions a side needs to run the selection, as this work tree's catalog declares them:
    the inputs' libraries and each selected case's `libraries` (a decoder's source case's too)."""
    from serialbench.catalog.inputs import ARRAY, INPUT_KINDS
    from serialbench.catalog.registry import name_matches

    catalog = Catalog.of(case_dirs, tiers, inputs, payloads)
    cases, sources = catalog.cases, catalog.sources
    chosen = [bench for bench in catalog.benchmarks()
              if not patterns or any(name_matches(bench.name, pattern) for pattern in patterns)]
    found = list(INPUT_LIBRARIES)
    if any(bench.input in INPUT_KINDS and INPUT_KINDS[bench.input].form != ARRAY for bench in chosen):
        found += BYTES_LIBRARIES
    if sources:
        found += PAYLOAD_LIBRARIES
    for bench in chosen:
        source = [case for case in cases if bench.case.source and case.format == bench.case.format
                  and case.impl == bench.case.source and not case.source]
        for case in [bench.case, *source]:
            found += case.libraries
    return list(dict.fromkeys(found))


def one_benchmark(case_dirs: Sequence[str], pattern: str, payloads: Sequence[str] = ()) -> str:
    """The one benchmark that -b names in the catalog at any input and tier (bisect takes one)."""
    from serialbench.catalog.inputs import INPUT_KINDS, TIERS
    from serialbench.catalog.payloads import parse_payloads
    from serialbench.catalog.registry import name_matches
    from serialbench.sides.checks import few

    catalog = Catalog(tuple(case_dirs), list(TIERS), list(INPUT_KINDS), parse_payloads(payloads))
    names = [bench.name for bench in catalog.benchmarks() if name_matches(bench.name, pattern)]
    if len(names) != 1:
        raise UsageError(f"-b {pattern!r} names {len(names)} benchmarks ({few(names, names) if names else 'none'}); "
                         "bisect takes one, FORMAT/IMPL/INPUT/TIER (see 'python -m serialbench list')")
    return names[0]
