"""The public API of a case module's inputs: `Payload` (a request's tensors), `Tensor`, and the input
kinds a case declares it accepts (`ALL_INPUTS`, `ARRAY_INPUTS`, `BYTES_INPUTS`).

The inputs live in serialbench/catalog/inputs.py; this path stays stable for users' modules.
"""

from serialbench.catalog.inputs import (
    ALL_INPUTS,
    ARRAY_INPUTS,
    BYTES_INPUTS,
    INPUT_KINDS,
    TIERS,
    Payload,
    Tensor,
    default_inputs,
    make_payload,
)

__all__ = ["ALL_INPUTS", "ARRAY_INPUTS", "BYTES_INPUTS", "INPUT_KINDS", "TIERS", "Payload", "Tensor",
           "default_inputs", "make_payload"]
