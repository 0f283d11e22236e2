"""Triton / KServe v2 HTTP with the binary tensor extension.

The body is the JSON header followed by each input's raw bytes, in input order. The three first
implementations reproduce the change "Optimize the request body creation in HTTP python
clients": `struct-pack` is the body as tritonclient built it before (`binary_data += raw` per
input, then `struct.pack("{}s{}s")`), `join` is the body after it (`b"".join`), and
`tritonclient` is the real client's request builder. `zero-copy` is the floor: the header and
the tensors' own buffers, the list a client hands to `socket.sendmsg`, with nothing concatenated.

A byte string (png) is a BYTES tensor of one element, a bytes-batch one of several: each element
is framed by its 4-byte length. `struct-pack` and `join` frame them as the client does, with
`tritonclient.utils.serialize_byte_tensor`; `join-vectorised` uses this project's vectorised
encoder (`_kserve.serialize_bytes`) instead, byte-identical (tests/test_triton_binary.py).

Decoders (the server side) parse the header and slice the body with `np.frombuffer`; the header
length comes from the `Inference-Header-Content-Length` HTTP header, so it is known before timing.
`decode-kserve` is KServe's model server instead: `InferRequest.from_bytes`, then `as_numpy()`.
It refuses BYTES that are not UTF-8 (png, bytes-batch), with its reason.
"""

from __future__ import annotations

import struct

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS, ARRAY, ARRAY_INPUTS, BATCH, BYTES, BYTES_INPUTS

from . import _kserve, _kserve_server


def _header_builder(payload, dumps):
    """header(sizes) -> the JSON header text tritonclient writes for inputs of these byte sizes."""
    specs = [(t.name, _kserve.shape(t.value), _kserve.datatype(t.value)) for t in payload.tensors]

    def header(sizes):
        inputs = [
            {"name": name, "shape": shape, "datatype": datatype, "parameters": {"binary_data_size": size}}
            for (name, shape, datatype), size in zip(specs, sizes)
        ]
        # tritonclient asks for binary outputs when no outputs are named.
        return dumps({"inputs": inputs, "parameters": {"binary_data_output": True}})

    return header


def _client_raw_data(payload):
    """raw(value) -> an input's bytes as `InferInput.set_data_from_numpy(binary_data=True)` makes them."""
    if not any(_kserve.is_bytes(t.value) for t in payload.tensors):
        return lambda value: value.tobytes()
    from tritonclient.utils import serialize_byte_tensor

    def raw(value):
        if _kserve.is_bytes(value):
            return serialize_byte_tensor(_kserve.object_array(value)).item()
        return value.tobytes()

    return raw


def _vectorised_raw_data(payload):
    """raw(value) -> the same bytes, BYTES framed by this project's vectorised encoder."""
    serialize_bytes, bytes_elements, is_bytes = _kserve.serialize_bytes, _kserve.bytes_elements, _kserve.is_bytes

    def raw(value):
        return serialize_bytes(bytes_elements(value)) if is_bytes(value) else value.tobytes()

    return raw


def _join_with(raw_data):
    def setup(payload):
        import rapidjson

        _kserve.refuse_big_endian(payload)
        header = _header_builder(payload, rapidjson.dumps)
        values = [t.value for t in payload.tensors]
        raw = raw_data(payload)

        def encode():
            raws = [raw(v) for v in values]
            return b"".join([header(map(len, raws)).encode(), *raws])

        return encode

    return setup


join = _join_with(_client_raw_data)
join_vectorised = _join_with(_vectorised_raw_data)


def struct_pack(payload):
    import rapidjson

    _kserve.refuse_big_endian(payload)
    header = _header_builder(payload, rapidjson.dumps)
    values = [t.value for t in payload.tensors]
    raw = _client_raw_data(payload)

    def encode():
        raws = [raw(v) for v in values]
        request_body = header(map(len, raws))
        binary_data = None
        for raw_data in raws:
            if binary_data is not None:
                binary_data += raw_data
            else:
                binary_data = raw_data
        return struct.pack(
            f"{len(request_body)}s{len(binary_data)}s", request_body.encode(), binary_data
        )

    return encode


def zero_copy(payload):
    """[header, buffer, buffer, ...]: arrays as memoryviews of their own memory, BYTES elements
    as the caller's byte strings behind their length prefixes. Nothing is copied but the header
    (and an array that is not C-contiguous, which sendmsg cannot take as it is)."""
    import rapidjson

    _kserve.refuse_big_endian(payload)
    header = _header_builder(payload, rapidjson.dumps)
    values = [t.value for t in payload.tensors]
    length_prefixes = _kserve.length_prefixes
    bytes_elements = _kserve.bytes_elements
    buffer_of = [None if _kserve.is_bytes(v) else _contiguous_view(v) for v in values]

    def encode():
        buffers, sizes = [], []
        for value, view in zip(values, buffer_of):
            if view is None:
                elements = bytes_elements(value)
                prefixes = length_prefixes(elements)
                sizes.append(4 * len(elements) + sum(map(len, elements)))
                for prefix, element in zip(prefixes, elements):
                    buffers += (prefix, element)
            else:
                buffers.append(view(value))
                sizes.append(value.nbytes)
        return [header(sizes).encode(), *buffers]

    return encode


def _contiguous_view(array):
    """view(array) -> a C-contiguous memoryview of it: its own memory, or a copy if it has to be.
    A dtype the buffer protocol has no format for (ml_dtypes' bfloat16) is viewed as unsigned
    integers of its size: the same bytes."""
    try:
        memoryview(array[:0] if array.ndim else array)
    except ValueError:
        raw = f"u{array.dtype.itemsize}"
        return lambda value: memoryview(np.ascontiguousarray(value).view(raw))
    if array.flags.c_contiguous:
        return memoryview
    return lambda value: memoryview(np.ascontiguousarray(value))


def tritonclient_http(payload):
    return _kserve.tritonclient_http_body(payload, binary_data=True)


def _body_decoder(module_name):
    """setup(wire, payload) for a server that parses the header with `module_name`.loads and
    slices each tensor out of the body without copying it (`np.frombuffer` on a memoryview)."""

    def setup(wire, payload):
        return _kserve.binary_body_decoder(wire, __import__(module_name).loads, "inputs")

    return setup


def kserve_from_bytes(wire, payload):
    """KServe's REST v2 endpoint for a binary-extension body (`DataPlane.decode_inference_request`):
    `InferRequest.from_bytes(body, json_length, model_name)`, then each input's `as_numpy()`.
    from_bytes itself slices each tensor with np.frombuffer and turns it into a Python list
    (`set_data_from_numpy(binary_data=False)`); as_numpy() makes the array again from that list."""
    from_bytes = _kserve_server.infer_type().InferRequest.from_bytes
    json_length = _kserve.header_length(wire)  # the Inference-Header-Content-Length header
    model_name, tensors = _kserve.MODEL_NAME, _kserve_server.decode_tensors
    return lambda: tensors(from_bytes(wire, json_length, model_name))


def _case(impl, setup, requires, libraries, inputs=ALL_INPUTS, roundtrip="", no_copy=()):
    return Case("triton-binary", impl, inputs, setup, reference_decoder=_kserve.decode_binary_body,
                requires=requires, libraries=libraries, headers=_kserve.binary_headers, roundtrip=roundtrip,
                no_copy=no_copy)


CLIENT_BYTES = (("rapidjson", "tritonclient"), ("python-rapidjson", "tritonclient"))

CASES = [
    _case("struct-pack", struct_pack, *CLIENT_BYTES),
    _case("join", join, *CLIENT_BYTES),
    _case("tritonclient", tritonclient_http, ("tritonclient", "rapidjson", "geventhttpclient"), ("tritonclient",),
          roundtrip="triton-binary"),
    _case("zero-copy", zero_copy, ("rapidjson",), ("python-rapidjson",), no_copy=(ARRAY, BYTES, BATCH)),
    _case("join-vectorised", join_vectorised, ("rapidjson",), ("python-rapidjson",), inputs=BYTES_INPUTS),
    # The view decoders copy no array (np.frombuffer of the body); BYTES elements become byte strings.
    Case("triton-binary", "decode-json", ALL_INPUTS, _body_decoder("json"), source="join", no_copy=(ARRAY,)),
    Case("triton-binary", "decode-orjson", ALL_INPUTS, _body_decoder("orjson"), source="join",
         requires=("orjson",), libraries=("orjson",), no_copy=(ARRAY,)),
    Case("triton-binary", "decode-kserve", ARRAY_INPUTS, kserve_from_bytes, source="join",
         requires=_kserve_server.REQUIRES, libraries=_kserve_server.LIBRARIES, install=_kserve_server.INSTALL,
         unsupported=dict.fromkeys(BYTES_INPUTS, _kserve_server.REFUSES_RAW_BYTES), roundtrip="triton-binary",
         refuses=_kserve_server.BINARY_DECODE),
]
