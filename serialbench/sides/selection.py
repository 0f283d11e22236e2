"""The user's selection, checked once before any side: a typo in --tier, --input or -b is the
user's, not a side's, and is said before any overlay is installed."""

from __future__ import annotations

from collections.abc import Sequence

from serialbench.core.errors import UsageError


def check_selection(case_dirs: Sequence[str], patterns: Sequence[str], tiers: str | None,
                    inputs: str | None, payloads: Sequence[str] = ()) -> None:
    """The user's selection, checked once before any side: the tiers, the input kinds, the payloads,
    and that every -b pattern names a benchmark of the catalog, whether or not its libraries are
    installed here (an overlay may bring them)."""
    from serialbench.catalog.inputs import INPUT_KINDS, TIERS, default_inputs
    from serialbench.catalog.payloads import parse_payloads
    from serialbench.catalog.registry import name_matches
    from serialbench.core.parsing import parse_words

    sources = parse_payloads(payloads)
    tier_list = parse_words(tiers, list(TIERS), "tier") or list(TIERS)
    input_list = parse_words(inputs, list(INPUT_KINDS), "input") or ([] if sources else default_inputs())
    if not patterns:
        return
    names = catalog_names(case_dirs, input_list, tier_list, sources)
    for pattern in patterns:
        if not any(name_matches(name, pattern) for name in names):
            raise UsageError(f"-b {pattern!r} matches no benchmark at --tier {','.join(tier_list)} and --input "
                             f"{','.join(input_list)}; names are FORMAT/IMPL/INPUT/TIER, "
                             "see 'python -m serialbench list'")


# What the inputs are made with, in every side: numpy for the arrays, Pillow for the PNG byte strings
# (catalog/inputs.py), ml_dtypes for a --payload's bfloat16 (catalog/payloads.py).
INPUT_LIBRARIES = ("numpy",)
BYTES_LIBRARIES = ("pillow",)
PAYLOAD_LIBRARIES = ("ml_dtypes",)


def selection_distributions(case_dirs: Sequence[str], patterns: Sequence[str], tiers: str | None,
                            inputs: str | None, payloads: Sequence[str] = ()) -> list[str]:
    """The distributions a side needs to run the selection, as this work tree's catalog declares them:
    the inputs' libraries and each selected case's `libraries` (a decoder's source case's too)."""
    from serialbench.catalog.discovery import discover
    from serialbench.catalog.inputs import ARRAY, INPUT_KINDS, TIERS, default_inputs
    from serialbench.catalog.payloads import parse_payloads
    from serialbench.catalog.registry import all_benchmarks, name_matches
    from serialbench.catalog.registry import case_dirs as directories
    from serialbench.core.parsing import parse_words

    sources = parse_payloads(payloads)
    tier_list = parse_words(tiers, list(TIERS), "tier") or list(TIERS)
    input_list = parse_words(inputs, list(INPUT_KINDS), "input") or ([] if sources else default_inputs())
    cases = discover(directories(case_dirs), lambda message: None)
    chosen = [bench for bench in all_benchmarks(cases, input_list, tier_list, sources)
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

    names = [name for name in catalog_names(case_dirs, list(INPUT_KINDS), list(TIERS), parse_payloads(payloads))
             if name_matches(name, pattern)]
    if len(names) != 1:
        raise UsageError(f"-b {pattern!r} names {len(names)} benchmarks ({few(names, names) if names else 'none'}); "
                         "bisect takes one, FORMAT/IMPL/INPUT/TIER (see 'python -m serialbench list')")
    return names[0]


def catalog_names(case_dirs: Sequence[str], inputs: Sequence[str], tiers: Sequence[str], sources) -> list[str]:
    """Every benchmark of the catalog at these inputs, tiers and payloads, whether or not its libraries are
    installed here (an overlay may bring them)."""
    from serialbench.catalog.discovery import discover
    from serialbench.catalog.registry import all_benchmarks
    from serialbench.catalog.registry import case_dirs as directories

    return [b.name for b in all_benchmarks(discover(directories(case_dirs), lambda message: None), inputs, tiers,
                                           sources)]
