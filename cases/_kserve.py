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
# Little-endian, as every v2 body carries them; equal to the native dtypes on little-endian hosts.
DATATYPE_TO_NUMPY = {name: dtype.newbyteorder("<") for dtype, name in NUMPY_TO_DATATYPE.items()}

# gRPC names the model in the request; HTTP puts it in the URL.
MODEL_NAME = "model"


def is_bytes(value) -> bool:
    """A BYTES tensor: one byte string (png) or an object array of them (bytes-batch)."""
    return isinstance(value, bytes) or value.dtype == object


def datatype(value) -> str:
    """The v2 datatype of one input (whatever its byte order: that is the raw paths' concern)."""
    if is_bytes(value):
        return "BYTES"
    try:
        return NUMPY_TO_DATATYPE[value.dtype.newbyteorder("=")]
    except KeyError:
        raise ValueError(f"{value.dtype} has no KServe v2 datatype") from None


def refuse_big_endian(payload: Payload) -> None:
    """Raw v2 tensors are little-endian: an encoder that sends an array's bytes as they are
    refuses any other byte order at set-up, as tritonclient does, instead of sending wrong bytes."""
    for tensor in payload.tensors:
        value = tensor.value
        if is_bytes(value):
            continue
        little = value.dtype.newbyteorder("<")
        if value.dtype != little:
            raise ValueError(f"{tensor.name} is {value.dtype.str}: raw v2 tensors are little-endian "
                             f"(tritonclient refuses it too); convert with astype('{little.str}')")


def shape(value) -> list[int]:
    """The v2 shape of one input: a byte string is a batch of one BYTES element."""
    return [1] if isinstance(value, bytes) else list(value.shape)


def bytes_elements(value) -> list[bytes]:
    """The elements of a BYTES tensor, in row-major order."""
    return [value] if isinstance(value, bytes) else value.reshape(-1).tolist()


def object_array(value) -> np.ndarray:
    """A BYTES input as the object array tritonclient's `set_data_from_numpy` takes."""
    if isinstance(value, bytes):
        array = np.empty(1, dtype=np.object_)
        array[0] = value
        return array
    return value


def length_prefixes(elements) -> list[bytes]:
    """Each element's 4-byte little-endian length, packed in one call and split by a numpy view."""
    packed = struct.pack(f"<{len(elements)}I", *map(len, elements))
    return np.frombuffer(packed, dtype="V4").tolist()  # a void item's tolist() is its bytes


def serialize_bytes(elements) -> bytes:
    """BYTES framing of a list of byte strings, byte-identical to
    `tritonclient.utils.serialize_byte_tensor(array).item()`, with no per-element Python step:
    one struct.pack of every length, one join of prefixes and elements interleaved."""
    parts = [b""] * (2 * len(elements))
    parts[0::2] = length_prefixes(elements)
    parts[1::2] = elements
    return b"".join(parts)


def split_bytes_elements(raw) -> list[bytes]:
    """Undo the BYTES framing: the list of elements (an element at a time, as servers do)."""
    elements, offset = [], 0
    while offset < len(raw):
        (length,) = struct.unpack_from("<I", raw, offset)
        offset += 4
        elements.append(bytes(raw[offset : offset + length]))
        offset += length
    if offset != len(raw):
        raise ValueError("BYTES framing runs past the end of its tensor")
    return elements


def bytes_tensor(elements, shape) -> np.ndarray:
    """Decoded BYTES elements as the object array a server hands its model."""
    array = np.empty(len(elements), dtype=np.object_)
    array[:] = elements
    return array.reshape(shape)


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
        if len(raw) != size:
            raise ValueError(f"{entry['name']}: {size} bytes announced, {len(raw)} present")
        offset += size
        if entry["datatype"] == "BYTES":
            tensors.append(bytes_tensor(split_bytes_elements(raw), entry["shape"]))
        else:
            dtype = DATATYPE_TO_NUMPY[entry["datatype"]]
            tensors.append(np.frombuffer(raw, dtype=dtype).astype(dtype.newbyteorder("=")).reshape(entry["shape"]))
    if offset != len(wire):
        raise ValueError(f"{len(wire) - offset} bytes after the last tensor")
    return tensors
