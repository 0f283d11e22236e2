"""KServe v2 / Triton HTTP, all JSON: `{"inputs": [{"name", "shape", "datatype", "data"}]}`.

`data` is the flat, row-major list of the tensor's values. `tritonclient` is the real client with
`set_data_from_numpy(binary_data=False)`, which builds `data` with `.item()` per element and dumps
with rapidjson (adding `"parameters": {"binary_data_output": true}`, as it does when no outputs
are named). The others build the plain v2 body from `tolist()` with stdlib json, ujson and orjson,
or hand orjson the ndarray itself.

Raw bytes cannot go into JSON: tritonclient refuses a PNG (`Failed to encode ... using UTF-8`) and
a JSON library would need a text encoding the server does not know. Those implementations leave
png and bytes-batch out and say why (`Case.unsupported`); `json-b64` and `orjson-b64` send each
element as a base64 string with `"parameters": {"content_type": "base64"}`, MLServer's Base64Codec
convention and the form KServe's image examples use.

`decode-kserve` is KServe's model server reading a JSON body: the steps of its REST v2 endpoint,
from the body's bytes to the arrays its model gets.
"""

from __future__ import annotations

import base64
import json

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ARRAY_INPUTS, BYTES_INPUTS

from . import _kserve, _kserve_server

FORMAT = "kserve-json"
NO_RAW_BYTES = dict.fromkeys(
    BYTES_INPUTS, "JSON cannot carry raw bytes; kserve-json/json-b64 sends them as base64")
NO_BF16 = {"bfloat16": _kserve.BF16_HAS_NO_JSON}
CLIENT_REFUSES_BYTES = dict.fromkeys(
    BYTES_INPUTS, "tritonclient's JSON path refuses non-UTF-8 bytes; kserve-json/json-b64 sends them as base64")


def _body_builder(payload, flat_data):
    """body() -> the v2 request as a dict, `data` made by flat_data(value) at each call."""
    specs = [(t.name, _kserve.shape(t.value), _kserve.datatype(t.value), t.value) for t in payload.tensors]

    def body():
        return {"inputs": [
            {"name": name, "shape": shape, "datatype": datatype, "data": flat_data(value)}
            for name, shape, datatype, value in specs
        ]}

    return body


def stdlib_json(payload):
    body, dumps = _body_builder(payload, _kserve.data_list), json.dumps
    return lambda: dumps(body()).encode()


def ujson_dumps(payload):
    import ujson

    body, dumps = _body_builder(payload, _kserve.data_list), ujson.dumps
    return lambda: dumps(body()).encode()


def orjson_tolist(payload):
    import orjson

    body, dumps = _body_builder(payload, _kserve.data_list), orjson.dumps
    return lambda: dumps(body())


def orjson_numpy(payload):
    import orjson

    body, dumps, option = _body_builder(payload, _kserve.data_array), orjson.dumps, orjson.OPT_SERIALIZE_NUMPY
    return lambda: dumps(body(), option=option)


def tritonclient_json(payload):
    return _kserve.tritonclient_http_body(payload, binary_data=False)


def _b64_body_builder(payload):
    specs = [(t.name, _kserve.shape(t.value), t.value) for t in payload.tensors]
    b64encode, bytes_elements = base64.b64encode, _kserve.bytes_elements

    def body():
        return {"inputs": [
            {"name": name, "shape": shape, "datatype": "BYTES", "parameters": {"content_type": "base64"},
             "data": [b64encode(element).decode("ascii") for element in bytes_elements(value)]}
            for name, shape, value in specs
        ]}

    return body


def stdlib_json_b64(payload):
    body, dumps = _b64_body_builder(payload), json.dumps
    return lambda: dumps(body()).encode()


def orjson_b64(payload):
    import orjson

    body, dumps = _b64_body_builder(payload), orjson.dumps
    return lambda: dumps(body())


def _tensors(request, asarray=np.asarray):
    """The decoded tensors of a parsed v2 request, in input order."""
    tensors = []
    for entry in request["inputs"]:
        data, shape = entry["data"], entry["shape"]
        if entry["datatype"] == "BYTES":
            if entry.get("parameters", {}).get("content_type") == "base64":
                elements = [base64.b64decode(text, validate=True) for text in data]
            else:  # plain v2: BYTES elements are UTF-8 text (tritonclient sends them so)
                elements = [text.encode("utf-8") for text in data]
            tensors.append(_kserve.bytes_tensor(elements, shape))
        else:
            tensors.append(asarray(data, dtype=_kserve.DATATYPE_TO_NUMPY[entry["datatype"]]).reshape(shape))
    return tensors


def decode_json_body(wire, payload):
    """Independent decoder: stdlib json, then each input's datatype and shape from the body."""
    return _tensors(json.loads(wire))


def _decoder(module_name):
    """setup(wire, payload) for a server that parses the body with `module_name`.loads."""

    def setup(wire, payload):
        loads = __import__(module_name).loads
        return lambda: _tensors(loads(wire))

    return setup


def kserve_rest_json(wire, payload):
    """KServe's REST v2 `infer` endpoint for an application/json body: Starlette's `Request.json()`
    (stdlib json.loads), FastAPI's validation of it against the endpoint's declared body type
    (`InferenceRequest`, a pydantic model), `InferRequest.from_inference_request`, then each
    input's `as_numpy()` (`np.array(data, dtype)`). KServe calls `from_bytes` only for a body that
    is not JSON (the binary extension: triton-binary/decode-kserve)."""
    from typing import get_type_hints

    from_inference_request = _kserve_server.infer_type().InferRequest.from_inference_request  # imports kserve
    from kserve.protocol.rest.v2_endpoints import V2Endpoints
    from pydantic import TypeAdapter

    body_type = TypeAdapter(get_type_hints(V2Endpoints.infer)["request_body"])  # Union[InferenceRequest, bytes]
    validate, loads = body_type.validate_python, json.loads
    model_name, tensors = _kserve.MODEL_NAME, _kserve_server.decode_tensors

    def decode():
        request_body = validate(loads(wire), from_attributes=True)  # as fastapi's ModelField.validate
        return tensors(from_inference_request(request_body, model_name))

    return decode


def _headers(wire):
    return {"Content-Type": "application/json"}


def _case(impl, setup, requires=(), libraries=(), inputs=ARRAY_INPUTS, unsupported=NO_RAW_BYTES, roundtrip=""):
    return Case(FORMAT, impl, inputs, setup, reference_decoder=decode_json_body, requires=requires,
                libraries=libraries, headers=_headers, unsupported=unsupported, roundtrip=roundtrip, slow_at_1m=True,
                refuses=NO_BF16)


def _decoder_case(impl, source, setup, inputs=ARRAY_INPUTS, unsupported=NO_RAW_BYTES, refuses=NO_BF16, **kwargs):
    return Case(FORMAT, impl, inputs, setup, source=source, unsupported=unsupported, slow_at_1m=True,
                refuses=refuses, **kwargs)


CASES = [
    _case("tritonclient", tritonclient_json, ("tritonclient", "rapidjson", "geventhttpclient"),
          ("tritonclient", "python-rapidjson"), unsupported=CLIENT_REFUSES_BYTES, roundtrip=FORMAT),
    _case("json", stdlib_json),
    _case("ujson", ujson_dumps, ("ujson",), ("ujson",)),
    _case("orjson", orjson_tolist, ("orjson",), ("orjson",)),
    _case("orjson-numpy", orjson_numpy, ("orjson",), ("orjson",)),
    _case("json-b64", stdlib_json_b64, inputs=BYTES_INPUTS, unsupported={}),
    _case("orjson-b64", orjson_b64, ("orjson",), ("orjson",), inputs=BYTES_INPUTS, unsupported={}),
    _decoder_case("decode-json", "json", _decoder("json")),
    _decoder_case("decode-orjson", "orjson-numpy", _decoder("orjson"), requires=("orjson",), libraries=("orjson",)),
    _decoder_case("decode-b64", "json-b64", _decoder("json"), inputs=BYTES_INPUTS, unsupported={}),
    _decoder_case("decode-kserve", "json", kserve_rest_json, requires=_kserve_server.REQUIRES,
                  libraries=("kserve", "pydantic"), install=_kserve_server.INSTALL, roundtrip=FORMAT,
                  refuses=_kserve_server.JSON_DECODE),
]
