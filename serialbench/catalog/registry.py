"""Benchmarks: cases crossed with input kinds and tiers (and the user's payloads, catalog/payloads.py),
selected by the command-line filters, and prepared for timing (the op built outside the timed
region, its round trip checked once)."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from serialbench.catalog.case import Case
from serialbench.catalog.discovery import BUILTIN_CASES_DIR, discover
from serialbench.catalog.fidelity import as_wire_bytes, differences
from serialbench.catalog.inputs import ARRAY, BATCH, INPUT_KINDS, TIERS, Payload, default_inputs, make_payload
from serialbench.catalog.payloads import BYTES, PayloadSource, parse_payloads
from serialbench.core.errors import UsageError
from serialbench.core.parsing import parse_words

FLOOR = ("baseline", "tobytes")  # the memcpy floor every report compares against


@dataclass(frozen=True)
class Benchmark:
    case: Case
    input: str
    tier: str
    payload: PayloadSource | None = None  # a --payload's benchmark: input and tier are its words

    @property
    def name(self) -> str:
        return f"{self.case.format}/{self.case.impl}/{self.input}/{self.tier}"

    def make_payload(self) -> Payload:
        if self.payload is not None:
            from serialbench.catalog.payloads import build

            return build(self.payload)
        return make_payload(self.input, self.tier)


@dataclass
class Prepared:
    """A benchmark ready to time: its op, the wire bytes it produces or reads, its payload."""

    op: Callable[[], Any]
    wire: bytes
    payload: Payload
    first_call: float | None = None  # seconds of prepare's own call of op, on the clock given to prepare


class CaseFailed(Exception):
    """A case raised while preparing, or its output does not decode to its input."""


def case_dirs(extra: Sequence[str]) -> list[Path]:
    dirs = [BUILTIN_CASES_DIR]
    for directory in extra:
        path = Path(directory)
        if not path.is_dir():
            raise UsageError(f"--cases {directory}: no such directory; give a directory of case modules (*.py)")
        dirs.append(path)
    return dirs


def all_benchmarks(cases: Sequence[Case], inputs: Sequence[str], tiers: Sequence[str],
                   payloads: Sequence[PayloadSource] = ()) -> list[Benchmark]:
    """Each case's benchmarks in registration order: its input kinds by tier, then the payloads it carries."""
    return [
        benchmark
        for case in cases
        for benchmark in [
            *(Benchmark(case, kind, tier) for kind in inputs if kind in case.inputs for tier in tiers),
            *(Benchmark(case, source.word, source.tier, source) for source in payloads
              if payload_refusal(case, source, cases) is None),
        ]
    ]


def payload_refusal(case: Case, source: PayloadSource, cases: Sequence[Case] = ()) -> str | None:
    """Why this case cannot carry the payload (a form it declares unsupported, a dtype, its
    structure), or None when it can; "" when it takes no input of a tensor's form and says nothing of
    it (json-b64 and arrays), which leaves the payload out as silently as a built-in kind. A decoder
    cannot read what its source (among `cases`) refuses to write."""
    forms = {INPUT_KINDS[kind].form for kind in case.inputs if kind in INPUT_KINDS}
    for tensor in source.tensors:
        form = BATCH if tensor.dtype == BYTES else ARRAY
        if form not in forms:
            reason = _form_reason(case, form)
            return f"{tensor.name} is {'a batch of byte strings' if form == BATCH else 'an array'}: {reason}" \
                if reason else ""
        if tensor.dtype in case.refuses:
            return f"{tensor.dtype}: {case.refuses[tensor.dtype]}"
    refusal = case.refuses_payload(source.tensors) if case.refuses_payload else None
    if refusal is None and case.decodes:
        writer = next((c for c in cases if (c.format, c.impl) == (case.format, case.source)), None)
        refusal = payload_refusal(writer, source, cases) if writer is not None else None
    return refusal


def _form_reason(case: Case, form: str) -> str:
    """The reason the case gives for a built-in kind of this form it leaves out ("" for none)."""
    kinds = [kind for kind, input_kind in INPUT_KINDS.items() if input_kind.form == form]
    return next((case.unsupported[kind] for kind in kinds if kind in case.unsupported), "")


def select(
    case_dirs_extra: Sequence[str] = (),
    patterns: Sequence[str] = (),
    tiers: str | Sequence[str] | None = None,
    inputs: str | Sequence[str] | None = None,
    warn: Callable[[str], None] = lambda message: None,
    floor: bool = False,
    payloads: Sequence[str] = (),
) -> tuple[list[Benchmark], list[Case]]:
    """The selected benchmarks in run order, and every available case (decoders need sources).

    The cases whose library is missing are left out with one line through `warn` that names what
    installs them; a selection made only of such cases is a usage error that names it. A pattern
    that matches nothing is a usage error: a typo must not silently run nothing. With `floor`, the
    memcpy floor of every selected input and tier is added where the patterns left it out, in
    registration order like the rest (pyperf's workers find their task by index). Payloads
    (`--payload` arguments) replace the default input kinds; `inputs` adds kinds to them, and
    `tiers` applies to the kinds only (a payload's tier is its size).
    """
    sources = parse_payloads(payloads)
    tier_list = parse_words(tiers, list(TIERS), "tier") or list(TIERS)
    input_list = parse_words(inputs, list(INPUT_KINDS), "input") or ([] if sources else default_inputs())
    cases = discover(case_dirs(case_dirs_extra), warn)
    _check_unique(cases)
    available = [case for case in cases if not case.missing_requirement()]
    absent = [bench for bench in all_benchmarks([c for c in cases if c not in available], input_list, tier_list,
                                                 sources) if not patterns or any(name_matches(bench.name, p)
                                                                                 for p in patterns)]
    benchmarks = all_benchmarks(available, input_list, tier_list, sources)
    if patterns:
        for pattern in patterns:
            if any(name_matches(b.name, pattern) for b in absent):
                continue  # selected, but its library is missing: said below, once for the whole selection
            if not any(name_matches(b.name, pattern) for b in benchmarks):
                groups: dict[tuple[str, str], list[Case]] = {}
                for case, kind, reason in _unsupported(available, input_list, tier_list, [pattern], sources):
                    groups.setdefault((kind, reason), []).append(case)
                why = "".join(f"; {_labels(refusing, available)}: no {kind}: {reason}"
                              for (kind, reason), refusing in groups.items())
                raise UsageError(
                    f"-b {pattern!r} matches no benchmark{why}; names are FORMAT/IMPL/INPUT/TIER, "
                    "see 'python -m serialbench list'"
                )
        chosen = {b.name for b in benchmarks if any(name_matches(b.name, p) for p in patterns)}
        if floor:
            chosen |= {b.name for b in floor_benchmarks(benchmarks, chosen)}
        benchmarks = [b for b in benchmarks if b.name in chosen]
    if absent:
        left_out = missing_libraries([bench.case for bench in absent], cases)
        if not benchmarks:
            raise UsageError(f"-b {' -b '.join(map(repr, patterns))}: every case selected needs a library that "
                             f"is not installed: {left_out}")
        warn(f"left out, a library not installed: {left_out}")
    for reason in unsupported_reasons(available, input_list, tier_list, patterns, sources):
        warn(reason)
    return benchmarks, available


def select_named(case_dirs_extra: Sequence[str], names: Sequence[str], payloads: Sequence[str] = (),
                 floor: bool = False) -> tuple[list[Benchmark], list[Case]]:
    """select() of exactly these benchmark names (and, with `floor`, their memcpy floors), for a worker
    given names: the input kinds and tiers they name, and the payloads (--payload arguments) whose words
    the others name."""
    words = {source.word for source in parse_payloads(payloads)}
    kinds = [name.split("/") for name in names if name.split("/")[2] not in words]
    return select(case_dirs_extra, names, ",".join(dict.fromkeys(w[3] for w in kinds)) or None,
                  ",".join(dict.fromkeys(w[2] for w in kinds)) or None, floor=floor, payloads=payloads)


def is_floor(bench: Benchmark) -> bool:
    return (bench.case.format, bench.case.impl) == FLOOR


def floor_benchmarks(candidates: Sequence[Benchmark], names: set[str]) -> list[Benchmark]:
    """The floor benchmarks among `candidates` for the inputs and tiers of the benchmarks in `names`."""
    measured = {(b.input, b.tier) for b in candidates if b.name in names}
    return [b for b in candidates if is_floor(b) and (b.input, b.tier) in measured]


def unsupported_reasons(cases: Sequence[Case], inputs: Sequence[str], tiers: Sequence[str],
                        patterns: Sequence[str], payloads: Sequence[PayloadSource] = ()) -> list[str]:
    """Why a selected case leaves out a selected input kind or payload, one line per case and input."""
    return [f"{case.label}: no {kind}: {reason}"
            for case, kind, reason in _unsupported(cases, inputs, tiers, patterns, payloads)]


def _unsupported(cases: Sequence[Case], inputs: Sequence[str], tiers: Sequence[str], patterns: Sequence[str],
                 payloads: Sequence[PayloadSource]) -> list[tuple[Case, str, str]]:
    """(case, input kind or payload word, reason), case by case in registration order."""
    found = [
        (case, kind, reason)
        for case in cases
        for kind, reason in case.unsupported.items()
        if kind in inputs and (not patterns or any(
            name_matches(f"{case.format}/{case.impl}/{kind}/{tier}", p) for tier in tiers for p in patterns))
    ]
    found += [
        (case, source.word, refusal)
        for source in payloads
        for case in cases
        if (refusal := payload_refusal(case, source, cases)) and (not patterns or any(
            name_matches(f"{case.format}/{case.impl}/{source.word}/{source.tier}", p) for p in patterns))
    ]
    order = {case.label: index for index, case in enumerate(cases)}
    return sorted(found, key=lambda item: order[item[0].label])


def refusal_summary(cases: Sequence[Case], payloads: Sequence[str], patterns: Sequence[str] = ()) -> list[str]:
    """What a run's summary says of the cases that leave a payload out: one line per payload and
    reason, naming the cases (a whole format as FORMAT/*)."""
    lines = []
    for source in parse_payloads(payloads):
        by_reason: dict[str, list[Case]] = {}
        for case in cases:
            name = f"{case.format}/{case.impl}/{source.word}/{source.tier}"
            refusal = payload_refusal(case, source, cases)
            if refusal and (not patterns or any(name_matches(name, p) for p in patterns)):
                by_reason.setdefault(refusal, []).append(case)
        for reason, refusing in by_reason.items():
            lines.append(f"{source.word}: not carried by {_labels(refusing, cases)}: {reason}")
    return lines


def missing_libraries(absent: Sequence[Case], cases: Sequence[Case]) -> str:
    """The cases left out for a missing library, grouped by what installs it: a whole format as
    FORMAT/*, then the module missing and the command that installs it (Case.install)."""
    groups: dict[tuple[str, str], list[Case]] = {}
    for case in dict.fromkeys(absent):
        groups.setdefault((case.missing_requirement() or "", case.install), []).append(case)
    return "; ".join(f"{_labels(group, cases)} (module {module!r}{f', {install} brings it' if install else ''})"
                     for (module, install), group in groups.items())


def _labels(refusing: Sequence[Case], cases: Sequence[Case]) -> str:
    named: list[str] = []
    for case in refusing:
        whole = all(c in refusing for c in cases if c.format == case.format)
        label = f"{case.format}/*" if whole else case.label
        if label not in named:
            named.append(label)
    return ", ".join(named)


def name_matches(name: str, pattern: str) -> bool:
    """Whether a benchmark name matches a -b pattern, word by word.

    Each `/`-separated word of the pattern is a glob for the same word of the name, so `*` never
    runs across a `/` (`kserve-*/[!d]*` leaves out decoders). A pattern with fewer than four words
    matches the leading words: `triton-binary/*` covers every input and tier.
    """
    pattern_words = pattern.split("/")
    name_words = name.split("/")
    if len(pattern_words) > len(name_words):
        return False
    return all(fnmatch.fnmatchcase(word, glob) for word, glob in zip(name_words, pattern_words))


def _check_unique(cases: Sequence[Case]) -> None:
    seen: dict[str, str] = {}
    for case in cases:
        if case.label in seen:
            raise UsageError(f"{case.label} is declared twice ({seen[case.label]} and {case.module}); "
                             "names must be unique")
        seen[case.label] = case.module
    halves: dict[tuple[str, str], str] = {}
    for case in cases:
        if not case.roundtrip:
            continue
        half = (case.roundtrip, case.direction)
        if half in halves:
            raise UsageError(f"{halves[half]} and {case.label} both declare the {case.direction} half of the "
                             f"{case.roundtrip!r} round trip; one case per half")
        halves[half] = case.label


def roundtrip_halves(cases: Sequence[Case]) -> dict[tuple[str, str], tuple[str, str]]:
    """(protocol, direction) -> (format, impl): the cases that declare a round trip's halves."""
    return {(case.roundtrip, case.direction): (case.format, case.impl) for case in cases if case.roundtrip}


@cache
def builtin_roundtrip_halves() -> dict[tuple[str, str], tuple[str, str]]:
    """roundtrip_halves of the built-in cases, whether or not their libraries are installed: the
    round-trip view's reading of a result file from before files recorded them."""
    return roundtrip_halves(discover([BUILTIN_CASES_DIR], lambda message: None))


@cache
def builtin_no_copy() -> dict[tuple[str, str], tuple[str, ...]]:
    """(format, impl) -> Case.no_copy of the built-in cases that declare one: the tables' reading of a
    result file from before files recorded `serialbench_copies`."""
    cases = discover([BUILTIN_CASES_DIR], lambda message: None)
    return {(case.format, case.impl): tuple(case.no_copy) for case in cases if case.no_copy}


def find_case(cases: Sequence[Case], format: str, impl: str) -> Case:
    for case in cases:
        if case.format == format and case.impl == impl:
            return case
    raise CaseFailed(f"{format}/{impl} is not available")


def prepare(bench: Benchmark, cases: Sequence[Case], check: bool = True,
            clock: Callable[[], float] | None = None) -> Prepared:
    """Build the op outside the timed region and check once that it round-trips.

    Raises CaseFailed when setup raises or the output does not decode to the input: such a
    benchmark is reported and never timed. `check=False` skips the decoding (for a process that
    prepares a benchmark already checked with the same code: compare's later rounds); the op
    still runs once. Given a clock, that call is timed (Prepared.first_call): the run takes it as
    the value of an op that lasts seconds a call, instead of calling it again.
    """
    case = bench.case
    timer = clock or (lambda: 0.0)
    try:
        payload = bench.make_payload()
        if case.decodes:
            source = find_case(cases, case.format, case.source)
            wire = as_wire_bytes(source.setup(payload)())
            op = case.setup(wire, payload)
            started = timer()
            decoded = op()
            first_call = timer() - started
            problems = differences(payload, decoded) if check else []
        else:
            op = case.setup(payload)
            started = timer()
            output = op()
            first_call = timer() - started
            wire = as_wire_bytes(output)
            problems = (differences(payload, case.reference_decoder(wire, payload))
                        if check and case.reference_decoder else [])
    except CaseFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of a case is reported, not fatal
        raise CaseFailed(f"{bench.name}: {type(exc).__name__}: {exc}") from exc
    if problems:
        raise CaseFailed(f"{bench.name}: output does not decode to its input: {'; '.join(problems)}")
    return Prepared(op, wire, payload, first_call if clock else None)


def benchmark_metadata(bench: Benchmark, prepared: Prepared) -> dict:
    """What a result file records of a benchmark besides its timings (results/files.py reads it)."""
    case = bench.case
    data = {
        "serialbench_format": case.format,
        "serialbench_impl": case.impl,
        "serialbench_input": bench.input,
        "serialbench_tier": bench.tier,
        "serialbench_direction": case.direction,
        "input_bytes": prepared.payload.input_bytes,
        "payload_bytes": len(prepared.wire),
        "serialbench_copies": int(case.copies(prepared.payload)),
    }
    if case.roundtrip:
        data["serialbench_roundtrip"] = case.roundtrip
    if bench.payload is not None:
        data.update(bench.payload.metadata())
    for dist in ("numpy", *case.libraries):
        version = library_version(dist)
        if version:
            data[f"{dist.replace('-', '_')}_version"] = version
    return data


@cache  # a process's libraries do not change under it; the lookup parses a METADATA file
def library_version(dist: str) -> str | None:  # (2 ms: 8 s of each round of 864 benchmarks' prepares)
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def floors_of(benchmarks: Sequence[Benchmark]) -> dict[str, str | None]:
    """Each benchmark's floor in the selection (None for the floor itself)."""
    names = {bench.name for bench in benchmarks}
    floors: dict[str, str | None] = {}
    for bench in benchmarks:
        floor = f"{FLOOR[0]}/{FLOOR[1]}/{bench.input}/{bench.tier}"
        floors[bench.name] = None if is_floor(bench) or floor not in names else floor
    return floors


def slow_at_1m() -> set[str]:
    """FORMAT/IMPL of each built-in case whose op takes up to seconds at 1M (Case.slow_at_1m)."""
    return {case.label for case in discover([BUILTIN_CASES_DIR], lambda message: None) if case.slow_at_1m}
