"""What every response case shares: the payload seen as the model's output.

The response cases (`*_response.py`) take the same inputs and tiers as the request cases; the
arrays are now what the model returns, so their tensors are named as outputs (`input` ->
`output`, `input_0` -> `output_0`; `image` and `images` stay). A response decoder compares what it
reads with the same payload, in the same order.

Only the standard library here: case modules import this at discovery time.
"""

from __future__ import annotations

from serialbench.inputs import Payload, Tensor


def output_name(name: str) -> str:
    return "output" + name[len("input"):] if name.startswith("input") else name


def as_outputs(payload: Payload) -> Payload:
    """The same arrays (not copied), named as a model's outputs."""
    return Payload(payload.kind, payload.tier, tuple(Tensor(output_name(t.name), t.value) for t in payload.tensors))


def output_names(payload: Payload) -> list[str]:
    return [output_name(t.name) for t in payload.tensors]
