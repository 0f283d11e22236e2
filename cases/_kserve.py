"""KServe v2 / Triton facts shared by the triton-binary, kserve-json and kserve-grpc cases.

Only the standard library and numpy here: case modules import this at discovery time.
"""

from __future__ import annotations

import json
import struct

import numpy as np

from serialbench.inputs import Payload

NUMPY_TO_DATATYPE = {
    np.dtype(np.bool_): "BOOL",
    np.dtype(np.uint8): "UINT8",
    np.dtype(np.uint16): "UINT16",
    np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint64): "UINT64",
    np.dtype(np.int8): "INT8",
    np.dtype(np.int16): "INT16",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int64): "INT64",
    np.dtype(np.float16): "FP16",
    np.dtype(np.float32): "FP32",
    np.dtype(np.float64): "FP64",
}
DATATYPE_TO_NUMPY = {name: dtype for dtype, name in NUMPY_TO_DATATYPE.items()}


def datatype(value) -> str:
    """The v2 datatype of one input: BYTES for a byte string."""
    return "BYTES" if isinstance(value, bytes) else NUMPY_TO_DATATYPE[value.dtype]


def shape(value) -> list[int]:
    """The v2 shape of one input: a byte string is a batch of one BYTES element."""
    return [1] if isinstance(value, bytes) else list(value.shape)


def bytes_element(value: bytes) -> bytes:
    """One BYTES element on the wire: a 4-byte little-endian length, then the bytes."""
    return struct.pack("<I", len(value)) + value


def split_bytes_elements(raw: bytes) -> list[bytes]:
    """Undo the BYTES framing: the list of elements."""
    elements, offset = [], 0
    while offset < len(raw):
        (length,) = struct.unpack_from("<I", raw, offset)
        offset += 4
        elements.append(raw[offset : offset + length])
        offset += length
    return elements


def header_length(wire: bytes) -> int:
    """The length of the JSON header that starts a binary-extension body."""
    _, end = json.JSONDecoder().raw_decode(wire.decode("latin-1"))
    return end


def binary_headers(wire: bytes) -> dict[str, str]:
    """The HTTP headers a client sends with a binary-extension body."""
    return {
        "Content-Type": "application/octet-stream",
        "Inference-Header-Content-Length": str(header_length(wire)),
    }


def decode_binary_body(wire: bytes, payload: Payload) -> list:
    """Independent decoder of a binary-extension body: parse the header, slice the tensors."""
    json_size = header_length(wire)
    header = json.loads(wire[:json_size])
    offset, tensors = json_size, []
    for entry in header["inputs"]:
        size = entry["parameters"]["binary_data_size"]
        raw = wire[offset : offset + size]
        offset += size
        if entry["datatype"] == "BYTES":
            (element,) = split_bytes_elements(raw)
            tensors.append(element)
        else:
            dtype = DATATYPE_TO_NUMPY[entry["datatype"]]
            tensors.append(np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(entry["shape"]))
    if offset != len(wire):
        raise ValueError(f"{len(wire) - offset} bytes after the last tensor")
    return tensors
