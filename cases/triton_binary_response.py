"""Triton / KServe v2 HTTP responses with the binary tensor extension: the JSON header, then each
output's raw bytes in output order; the header's length travels in the response's
`Inference-Header-Content-Length` HTTP header.

Server side (encode-response), from the model's output arrays to the body:
- `response-kserve`: KServe's model server, `InferResponse.to_rest()` with binary outputs (the
  request from tritonclient asks for them): `set_data_from_numpy` per output, the header dumped by
  orjson, `b"".join` with the outputs' bytes.
- `response-join`: the project's own, byte-identical to KServe's (tests/test_responses.py):
  the same header with orjson and one `b"".join`, BYTES framed by `_kserve.serialize_bytes`.

Client side (decode-response), from response-join's bytes (KServe's, without KServe in the
worker) to the arrays:
- `decode-response-tritonclient`: `tritonclient.http.InferResult.from_response_body(body,
  header_length=...)` (what `InferenceServerClient.parse_response_body` calls; `infer` builds the
  same InferResult on the socket's reply), then `as_numpy(name)` per output.
- `decode-response-frombuffer`: the floor: orjson parses the header, `np.frombuffer` slices the rest.
"""

from __future__ import annotations

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS, ARRAY

from . import _kserve, _kserve_response, _kserve_server, _responses

FORMAT = "triton-binary"


def kserve_to_rest(payload):
    build = _kserve_response.kserve_response(payload, binary=True)

    def encode():
        body, _json_length = build().to_rest()  # _json_length: the Inference-Header-Content-Length
        return body

    return encode


def join(payload):
    import orjson

    _kserve.refuse_big_endian(payload)
    specs = _kserve_response.outputs(payload)
    serialize_bytes, bytes_elements, dumps = _kserve.serialize_bytes, _kserve.bytes_elements, orjson.dumps
    header = _kserve_response.header

    def encode():
        raws = [serialize_bytes(bytes_elements(value)) if datatype == "BYTES" else value.tobytes()
                for _, _, datatype, value in specs]
        entries = [{"name": name, "shape": shape, "datatype": datatype, "parameters": {"binary_data_size": len(raw)}}
                   for (name, shape, datatype, _), raw in zip(specs, raws, strict=True)]
        return b"".join([dumps(header(entries)), *raws])

    return encode


def decode_response_body(wire, payload):
    """Independent decoder: stdlib json for the header, each output by its name, sliced."""
    by_name = {entry["name"]: _kserve.raw_tensor(entry["datatype"], raw, entry["shape"])
               for entry, raw in _kserve.binary_body_entries(wire, "outputs")}
    return [by_name[name] for name in _responses.output_names(payload)]


def tritonclient_result(wire, payload):
    from tritonclient.http import InferResult

    header_length = _kserve.header_length(wire)  # the Inference-Header-Content-Length response header
    names, from_response_body = _responses.output_names(payload), InferResult.from_response_body

    def decode():
        result = from_response_body(wire, header_length=header_length)
        return [result.as_numpy(name) for name in names]

    return decode


def frombuffer(wire, payload):
    import orjson

    return _kserve.binary_body_decoder(wire, orjson.loads, "outputs", header_from_view=True)


def _encode(impl, setup, requires, libraries, install="", roundtrip="", refuses=None):
    return Case(FORMAT, impl, ALL_INPUTS, setup, reference_decoder=decode_response_body, requires=requires,
                libraries=libraries, headers=_kserve.binary_headers, install=install, response=True,
                roundtrip=roundtrip, refuses=refuses or {})


def _decode(impl, setup, requires, libraries, roundtrip="", no_copy=()):
    return Case(FORMAT, impl, ALL_INPUTS, setup, source="response-join", requires=requires, libraries=libraries,
                response=True, roundtrip=roundtrip, no_copy=no_copy)


ORJSON = ("orjson",)
CASES = [
    _encode("response-kserve", kserve_to_rest, _kserve_server.REQUIRES, (*_kserve_server.LIBRARIES, "orjson"),
            _kserve_server.INSTALL, roundtrip=FORMAT, refuses=_kserve_server.BINARY_DECODE),
    _encode("response-join", join, ORJSON, ORJSON),
    _decode("decode-response-tritonclient", tritonclient_result, ("tritonclient", "rapidjson", "geventhttpclient"),
            ("tritonclient", "python-rapidjson"), roundtrip=FORMAT),
    _decode("decode-response-frombuffer", frombuffer, ORJSON, ORJSON, no_copy=(ARRAY,)),  # np.frombuffer views
]
