"""The public API of a case module's inputs: `Payload` (a request's tensors), `Tensor`, and the input
kinds a case declares it accepts (`ALL_INPUTS`, `ARRAY_INPUTS`, `BYTES_INPUTS`), and the forms of a tensor
(`ARRAY`, `BYTES`, `BATCH`: `Case.no_copy`).

The inputs live in serialbench/catalog/inputs.py; this path stays stable for users' modules.
"""

from serialbench.catalog.inputs import (
    ALL_INPUTS,
    ARRAY,
    ARRAY_INPUTS,
    BATCH,
    BYTES,
    BYTES_INPUTS,
    INPUT_KINDS,
    TIERS,
    Payload,
    Tensor,
    default_inputs,
    make_payload,
)

__all__ = ["ALL_INPUTS", "ARRAY", "ARRAY_INPUTS", "BATCH", "BYTES", "BYTES_INPUTS", "INPUT_KINDS", "TIERS", "Payload",
           "Tensor", "default_inputs", "make_payload"]
