"""Baselines every report compares against: the memcpy floor and the harness's own overhead."""

from __future__ import annotations

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ARRAY, BATCH, BYTES, default_inputs


def tobytes(payload):
    # One copy of each input: ndarray.tobytes(), or memoryview.tobytes() for a byte string
    # (bytes(b) and b[:] return b itself without copying).
    copiers = [
        t.value.tobytes if isinstance(t.value, np.ndarray) else memoryview(t.value).tobytes
        for t in payload.tensors
    ]
    if len(copiers) == 1:
        return copiers[0]
    return lambda: [copy() for copy in copiers]


def decode_concatenated(wire, payload):
    tensors, offset = [], 0
    for t in payload.tensors:
        chunk = wire[offset : offset + t.nbytes]
        offset += t.nbytes
        if isinstance(t.value, bytes):
            tensors.append(chunk)
        else:
            tensors.append(np.frombuffer(chunk, dtype=t.value.dtype).reshape(t.value.shape))
    return tensors


def noop(payload):
    empty = b""
    return lambda: empty


CASES = [
    Case("baseline", "tobytes", default_inputs(), tobytes, reference_decoder=decode_concatenated),
    Case("baseline", "noop", ("float32",), noop, no_copy=(ARRAY, BYTES, BATCH)),  # returns b"": copies nothing
]
