"""KServe v2 / Triton facts and code shared by the triton-binary, kserve-json and kserve-grpc cases,
requests and responses alike: datatypes, BYTES framing, the raw tensors of a body, tritonclient's
HTTP request builder, the `data` list of a JSON body.

Only the standard library and numpy at import: case modules import this at discovery time; a
library is imported inside the setup function that needs it.
"""

from __future__ import annotations

import json
import struct
import sys

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

# BF16 is numpy's only through ml_dtypes (as tritonclient has it): it joins both tables once a
# payload with bfloat16 has imported ml_dtypes (with_bfloat16), so no other worker imports it.
BF16 = "BF16"
# The v2 spec's JSON has no 16-bit float type ("the binary tensor data extension ... is particularly
# useful for sending and receiving FP16 data"); for BF16 the clients say it outright.
BF16_HAS_NO_JSON = ("BF16 has no JSON form: tritonclient refuses it ('BF16 inputs must be sent as binary data over "
                    "HTTP'); it goes in a triton-binary body or over kserve-grpc")


def with_bfloat16() -> None:
    """Add BF16 to the datatype tables if ml_dtypes is imported (by a payload that holds bfloat16)."""
    ml_dtypes = sys.modules.get("ml_dtypes")
    if ml_dtypes is not None and BF16 not in DATATYPE_TO_NUMPY:
        dtype = np.dtype(ml_dtypes.bfloat16)
        NUMPY_TO_DATATYPE[dtype] = BF16
        DATATYPE_TO_NUMPY[BF16] = dtype

# gRPC names the model in the request; HTTP puts it in the URL.
MODEL_NAME = "model"


def is_bytes(value) -> bool:
    """A BYTES tensor: one byte string (png) or an object array of them (bytes-batch)."""
    return isinstance(value, bytes) or value.dtype == object


def datatype(value) -> str:
    """The v2 datatype of one input (whatever its byte order: that is the raw paths' concern)."""
    if is_bytes(value):
        return "BYTES"
    with_bfloat16()
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


def raw_tensor(datatype: str, raw, shape) -> np.ndarray:
    """One tensor from its raw v2 bytes (an independent decoder's reading, untimed)."""
    with_bfloat16()
    if datatype == "BYTES":
        return bytes_tensor(split_bytes_elements(raw), shape)
    return np.frombuffer(raw, dtype=DATATYPE_TO_NUMPY[datatype]).reshape(shape)


def binary_body_entries(wire: bytes, key: str) -> list[tuple[dict, bytes]]:
    """Independent reading of a binary-extension body: stdlib json parses the header; each entry of
    `key` ("inputs", "outputs") with its raw bytes, every announced size checked against the body."""
    json_size = header_length(wire)
    offset, found = json_size, []
    for entry in json.loads(wire[:json_size])[key]:
        size = entry["parameters"]["binary_data_size"]
        raw = wire[offset : offset + size]
        if len(raw) != size:
            raise ValueError(f"{entry['name']}: {size} bytes announced, {len(raw)} present")
        offset += size
        found.append((entry, raw))
    if offset != len(wire):
        raise ValueError(f"{len(wire) - offset} bytes after the last {key[:-1]}")
    return found


def decode_binary_body(wire: bytes, payload: Payload) -> list:
    """Independent decoder of a binary-extension request: parse the header, slice the tensors."""
    return [raw_tensor(entry["datatype"], raw, entry["shape"]) for entry, raw in binary_body_entries(wire, "inputs")]


# Timed ops shared by two cases (a request's and a response's, or two forms of one client): each op
# below is a case's timed region, written once for the cases that time it.

def binary_body_decoder(wire: bytes, loads, key: str, header_from_view: bool = False):
    """decode() -> the tensors of a binary-extension body: `loads` parses the JSON header (from the
    body's bytes, or from a memoryview of them with `header_from_view`), then each tensor of `key`
    is sliced out of the body without copying it (`np.frombuffer` on a memoryview). The header
    length comes from the Inference-Header-Content-Length HTTP header, known before timing."""
    json_size = header_length(wire)
    view = memoryview(wire)
    header_source = view if header_from_view else wire
    with_bfloat16()
    frombuffer, to_numpy = np.frombuffer, DATATYPE_TO_NUMPY
    split, to_bytes_tensor = split_bytes_elements, bytes_tensor

    def decode():
        offset, tensors = json_size, []
        for entry in loads(header_source[:json_size])[key]:
            size = entry["parameters"]["binary_data_size"]
            chunk = view[offset : offset + size]
            offset += size
            if entry["datatype"] == "BYTES":
                tensors.append(to_bytes_tensor(split(chunk), entry["shape"]))
            else:
                tensors.append(frombuffer(chunk, dtype=to_numpy[entry["datatype"]]).reshape(entry["shape"]))
        return tensors

    return decode


def raw_contents_decoder(wire: bytes, from_string, tensors_field: str, contents_field: str):
    """decode() -> the tensors of a gRPC message (ModelInferRequest or ModelInferResponse): parse it,
    then `np.frombuffer` on the raw contents of each tensor (`inputs`/`raw_input_contents`, or
    `outputs`/`raw_output_contents`)."""
    with_bfloat16()
    frombuffer, to_numpy = np.frombuffer, DATATYPE_TO_NUMPY
    split, to_bytes_tensor = split_bytes_elements, bytes_tensor

    def decode():
        message = from_string(wire)
        tensors = []
        for tensor, content in zip(getattr(message, tensors_field), getattr(message, contents_field)):
            if tensor.datatype == "BYTES":
                tensors.append(to_bytes_tensor(split(content), tensor.shape))
            else:
                tensors.append(frombuffer(content, dtype=to_numpy[tensor.datatype]).reshape(tensor.shape))
        return tensors

    return decode


def tritonclient_http_body(payload: Payload, binary_data: bool):
    """encode() -> the body tritonclient's HTTP client sends: an InferInput per tensor,
    `set_data_from_numpy(binary_data=...)` (the binary extension, or a JSON `data` list), and
    `InferenceServerClient.generate_request_body` (a static method: no connection)."""
    from tritonclient.http import InferenceServerClient, InferInput

    specs = [(t.name, shape(t.value), datatype(t.value), t.value) for t in payload.tensors]
    generate_request_body = InferenceServerClient.generate_request_body

    def encode():
        inputs = []
        for name, input_shape, input_datatype, value in specs:
            infer_input = InferInput(name, input_shape, input_datatype)
            array = object_array(value) if input_datatype == "BYTES" else value
            infer_input.set_data_from_numpy(array, binary_data=binary_data)
            inputs.append(infer_input)
        body, _json_size = generate_request_body(inputs)
        return body

    return encode


# A JSON body's `data`, flat and row-major. Byte strings are handed to the JSON library as they are,
# only so that an unsupported input run anyway (`verify`) shows the library's own refusal.

def data_list(value):
    """`data` as Python objects, one per element (`tolist()`), for any JSON library."""
    return bytes_elements(value) if is_bytes(value) else value.ravel().tolist()


def data_array(value):
    """`data` as a flat ndarray, for orjson's numpy support: a view of a C-contiguous array,
    whose buffer orjson reads itself."""
    return object_array(value).ravel() if is_bytes(value) else value.ravel()
