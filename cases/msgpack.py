"""msgpack: one map per input, `{name: {"shape": [...], "dtype": "<f4", "data": <bin>}}`.

`dtype` is numpy's `dtype.str` (byte order included), as msgpack-numpy writes it; `data` is the
tensor's raw bytes as one msgpack bin. A byte string (png) or a batch of them has dtype `bytes`
and `data` a list of bins: msgpack carries bytes as they are, with no base64.

`packb` copies each array with `tobytes()` and msgpack copies it again into its buffer;
`packb-buffer` hands msgpack a memoryview of the array, so the only copy is msgpack's own.
"""

from __future__ import annotations

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS

BYTES_DTYPE = "bytes"
# numpy names ml_dtypes' bfloat16 '<V2' in dtype.str: the reader would get raw 2-byte voids.
REFUSES = {"bfloat16": "msgpack-numpy's dtype field is numpy's dtype.str, which for bfloat16 is '<V2', a raw 2-byte "
                       "void: the reader gets bytes, not bfloat16 (and memoryview cannot export it: packb-buffer)"}


def _entry_builder(payload, array_data_for):
    """body() -> the map of maps; array_data_for(array), called once here, gives the function
    that makes that array's `data` at each call."""
    specs = []
    for tensor in payload.tensors:
        value = tensor.value
        if isinstance(value, bytes):
            specs.append((tensor.name, [1], BYTES_DTYPE, value, _one_element))
        elif value.dtype == object:
            specs.append((tensor.name, list(value.shape), BYTES_DTYPE, value, _elements))
        else:
            specs.append((tensor.name, list(value.shape), value.dtype.str, value, array_data_for(value)))

    def body():
        return {name: {"shape": shape, "dtype": dtype, "data": data(value)}
                for name, shape, dtype, value, data in specs}

    return body


def _one_element(value: bytes) -> list[bytes]:
    return [value]


def _elements(batch: np.ndarray) -> list[bytes]:
    return batch.reshape(-1).tolist()


def _tobytes_for(array):
    return np.ndarray.tobytes


def _buffer_for(array):
    # msgpack takes any C-contiguous buffer; anything else must be copied into one first.
    if array.flags.c_contiguous:
        return memoryview
    return lambda value: memoryview(np.ascontiguousarray(value))


def packb(payload):
    import msgpack

    body, pack = _entry_builder(payload, _tobytes_for), msgpack.packb
    return lambda: pack(body())


def packb_buffer(payload):
    import msgpack

    body, pack = _entry_builder(payload, _buffer_for), msgpack.packb
    return lambda: pack(body())


def _tensors(message) -> list:
    tensors = []
    for entry in message.values():
        if entry["dtype"] == BYTES_DTYPE:
            array = np.empty(len(entry["data"]), dtype=np.object_)
            array[:] = entry["data"]
            tensors.append(array.reshape(entry["shape"]))
        else:
            tensors.append(np.frombuffer(entry["data"], dtype=entry["dtype"]).reshape(entry["shape"]))
    return tensors


def decode_fallback(wire, payload):
    """Independent decoder: msgpack's pure-Python unpacker, not the C extension that packed."""
    from msgpack import fallback

    return _tensors(fallback.unpackb(wire))


def decode_unpackb(wire, payload):
    """A server: `msgpack.unpackb`, then `np.frombuffer` on each input's bytes."""
    import msgpack

    unpackb = msgpack.unpackb
    return lambda: _tensors(unpackb(wire))


def _headers(wire):
    return {"Content-Type": "application/msgpack"}


CASES = [
    Case("msgpack", "packb", ALL_INPUTS, packb, reference_decoder=decode_fallback, requires=("msgpack",),
         libraries=("msgpack",), headers=_headers, refuses=REFUSES),
    Case("msgpack", "packb-buffer", ALL_INPUTS, packb_buffer, reference_decoder=decode_fallback,
         requires=("msgpack",), libraries=("msgpack",), headers=_headers, refuses=REFUSES),
    Case("msgpack", "decode-unpackb", ALL_INPUTS, decode_unpackb, source="packb", requires=("msgpack",),
         libraries=("msgpack",), refuses=REFUSES),
]
