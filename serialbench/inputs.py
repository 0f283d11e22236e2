"""The public API of a case module's inputs: `Payload` (a request's tensors) and `Tensor`.

The inputs live in serialbench/catalog/inputs.py; this path stays stable for users' modules.
"""

from serialbench.catalog.inputs import INPUT_KINDS, TIERS, Payload, Tensor, default_inputs, make_payload

__all__ = ["INPUT_KINDS", "TIERS", "Payload", "Tensor", "default_inputs", "make_payload"]
