"""The Case record: one implementation of one wire format (serialbench/catalog/discovery.py finds them).

A case module (one per wire format, in the built-in cases or a user's `--cases DIR`) holds a
module-level list `CASES` of `Case` records. Each record names one implementation and points at a
`setup` function that is called outside the timed region and returns the zero-argument callable
that is timed. Third-party libraries are imported inside `setup`, never at module import, so that
discovering every case stays cheap and a pyperf worker loads only what its benchmark needs.
Users' case modules import it as `serialbench.case.Case`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from serialbench.catalog.inputs import ARRAY, BATCH, BYTES, Payload

# setup(payload) -> op for encode cases; setup(wire, payload) -> op for decode cases.
Op = Callable[[], Any]

# An inference is serialised four times, in this order: the client encodes the request, the server
# decodes it, the server encodes the response, the client decodes the response.
DIRECTIONS = ("encode", "decode", "encode-response", "decode-response")


@dataclass(frozen=True)
class Case:
    """One implementation of one wire format.

    format, impl: the first two words of the benchmark name `FORMAT/IMPL/INPUT/TIER`.
    inputs: the input kinds this implementation can carry.
    setup: for an encode case, `setup(payload)` returns the timed op, whose result is the wire
        body as bytes (or a list of buffers handed to the socket, whose concatenation is the body).
        For a decode case, `setup(wire, payload)` returns the op, whose result is the decoded
        tensors in input order; `payload` only tells the dtypes and shapes a server knows from
        the model's signature.
    reference_decoder: for an encode case, `reference_decoder(wire, payload)` decodes the body
        with an independent parser into the tensors in input order; the runner checks it once
        before timing and `verify` reports what does not round-trip.
    source: for a decode case, the IMPL of the encode case (same format) whose bytes it reads.
    response: the case is the response's half, not the request's: an encode case is the server
        building the response body from the model's output arrays (`encode-response`), a decode
        case the client reading it back (`decode-response`); the payload is the output.
    requires: importable module names the case needs; a missing one leaves the case out.
    install: the command that installs what `requires` names (e.g. an extra of this project),
        printed by `list` and `run` when one is missing.
    libraries: distributions whose versions go into the benchmark's metadata.
    headers: HTTP headers a client sends with the body, `headers(wire) -> dict`.
    unsupported: input kinds this implementation cannot carry, each with the reason (e.g. raw
        bytes in JSON); `list` and `run` print the reason instead of leaving the input out silently.
    roundtrip: the protocol (e.g. `triton-binary`, `tfserving-rest json`) whose real client or server
        path this case is, in its direction: the round-trip view sums the four directions of each
        protocol named here (verdicts/round_trips.py), and a result file records it per benchmark.
    slow_at_1m: an op of up to seconds a call at 1M (a JSON text form): calibrate's default
        selection leaves it out at that tier.
    refuses: dtypes of a `--payload` (catalog/payloads.py DTYPES: `bfloat16`, `uint64`, ...) this
        implementation cannot carry, each with what the format's spec or library says; `list`,
        `verify` and the run print it. A payload's arrays go to a case that accepts an array kind,
        its byte-string batches to one that accepts `bytes-batch`.
    refuses_payload: payload_tensors -> the reason this implementation cannot carry a payload of
        these tensors (catalog/payloads.py TensorSpec: name, dtype, shape), or None: a limit of the
        format's structure rather than of a dtype (e.g. the REST row form needs one batch size).
    no_copy: the forms of tensor (serialbench.inputs ARRAY, BYTES, BATCH) whose bytes the op passes
        on without copying them: an encoder that hands the socket the caller's own buffers, a
        decoder that slices the body with `np.frombuffer`. An op that copies no tensor of its
        payload never performs the memcpy floor's copy, so the tables say "no copy" instead of its
        multiple of the floor (a fraction of a copy it never makes).
    """

    format: str
    impl: str
    inputs: Sequence[str]
    setup: Callable[..., Op]
    reference_decoder: Callable[[bytes, Payload], list] | None = None
    source: str | None = None
    requires: Sequence[str] = ()
    libraries: Sequence[str] = ()
    headers: Callable[[bytes], dict[str, str]] | None = None
    unsupported: Mapping[str, str] = field(default_factory=dict, compare=False)
    install: str = ""
    response: bool = False
    roundtrip: str = ""
    slow_at_1m: bool = False
    refuses: Mapping[str, str] = field(default_factory=dict, compare=False)
    refuses_payload: Callable[[Sequence[Any]], str | None] | None = field(default=None, compare=False)
    no_copy: Sequence[str] = ()
    module: str = field(default="", compare=False)

    @property
    def decodes(self) -> bool:
        """Whether it reads the body its `source` wrote (setup(wire, payload)), not builds one."""
        return self.source is not None

    @property
    def direction(self) -> str:
        """One of DIRECTIONS: the benchmark's `serialbench_direction`."""
        half = "decode" if self.decodes else "encode"
        return f"{half}-response" if self.response else half

    def __post_init__(self):
        unknown = set(self.no_copy) - {ARRAY, BYTES, BATCH}
        if unknown:
            raise ValueError(f"{self.format}/{self.impl}: no_copy takes the forms {ARRAY!r}, {BYTES!r} and "
                             f"{BATCH!r}, not {', '.join(map(repr, sorted(unknown)))}")

    def copies(self, payload: Payload) -> bool:
        """Whether the op copies the bytes of some tensor of `payload` (Case.no_copy)."""
        return any(tensor.form not in self.no_copy for tensor in payload.tensors)

    @property
    def label(self) -> str:
        return f"{self.format}/{self.impl}"

    def missing_requirement(self) -> str | None:
        """The first required module that cannot be imported, or None."""
        for module in self.requires:
            if _find_spec(module) is None:
                return module
        return None


def _find_spec(module: str):
    # find_spec on "a.b" imports package "a"; the top-level name is enough to know it is there
    # and keeps heavy packages (tensorflow) unimported.
    try:
        return importlib.util.find_spec(module.split(".")[0])
    except (ImportError, ValueError):
        return None
