"""Triton / KServe v2 HTTP with the binary tensor extension.

The body is the JSON header followed by each input's raw bytes, in input order. The three first
implementations reproduce the change "Optimize the request body creation in HTTP python
clients": `struct-pack` is the body as tritonclient built it before (`binary_data += raw` per
input, then `struct.pack("{}s{}s")`), `join` is the body after it (`b"".join`), and
`tritonclient` is the real client's request builder. A byte string (png) goes as a BYTES tensor
of one element.
"""

from __future__ import annotations

import struct

import numpy as np

from cases import _kserve
from serialbench.case import Case

ALL_INPUTS = ("float32", "png", "int32x3")


def _raw_data(value) -> bytes:
    """An input's bytes in the body, as `InferInput.set_data_from_numpy(binary_data=True)` makes them."""
    return _kserve.bytes_element(value) if isinstance(value, bytes) else value.tobytes()


def _header_builder(payload, dumps):
    """header(raws) -> the JSON header text tritonclient writes for these inputs."""
    specs = [(t.name, _kserve.shape(t.value), _kserve.datatype(t.value)) for t in payload.tensors]

    def header(raws):
        inputs = [
            {"name": name, "shape": shape, "datatype": datatype, "parameters": {"binary_data_size": len(raw)}}
            for (name, shape, datatype), raw in zip(specs, raws, strict=False)
        ]
        # tritonclient asks for binary outputs when no outputs are named.
        return dumps({"inputs": inputs, "parameters": {"binary_data_output": True}})

    return header


def join(payload):
    import rapidjson

    header = _header_builder(payload, rapidjson.dumps)
    values = [t.value for t in payload.tensors]

    def encode():
        raws = [_raw_data(v) for v in values]
        return b"".join([header(raws).encode(), *raws])

    return encode


def struct_pack(payload):
    import rapidjson

    header = _header_builder(payload, rapidjson.dumps)
    values = [t.value for t in payload.tensors]

    def encode():
        raws = [_raw_data(v) for v in values]
        request_body = header(raws)
        binary_data = None
        for raw in raws:
            if binary_data is not None:
                binary_data += raw
            else:
                binary_data = raw
        return struct.pack(
            f"{len(request_body)}s{len(binary_data)}s", request_body.encode(), binary_data
        )

    return encode


def tritonclient_http(payload):
    from tritonclient.http import InferenceServerClient, InferInput

    specs = [(t.name, _kserve.shape(t.value), _kserve.datatype(t.value), t.value) for t in payload.tensors]
    generate_request_body = InferenceServerClient.generate_request_body

    def encode():
        inputs = []
        for name, shape, datatype, value in specs:
            infer_input = InferInput(name, shape, datatype)
            array = np.array([value], dtype=np.object_) if datatype == "BYTES" else value
            infer_input.set_data_from_numpy(array, binary_data=True)
            inputs.append(infer_input)
        body, _json_size = generate_request_body(inputs)
        return body

    return encode


def _case(impl, setup, requires, libraries):
    return Case("triton-binary", impl, ALL_INPUTS, setup, reference_decoder=_kserve.decode_binary_body,
                requires=requires, libraries=libraries, headers=_kserve.binary_headers)


CASES = [
    _case("struct-pack", struct_pack, ("rapidjson",), ("python-rapidjson",)),
    _case("join", join, ("rapidjson",), ("python-rapidjson",)),
    _case("tritonclient", tritonclient_http, ("tritonclient", "rapidjson", "geventhttpclient"), ("tritonclient",)),
]
