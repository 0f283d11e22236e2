"""KServe v2 HTTP responses, all JSON: `{"model_name", "model_version", "id", "parameters", "outputs":
[{"name", "shape", "datatype", "parameters", "data"}]}`, `data` the flat row-major list of values.

Server side (encode-response), from the model's output arrays to the body:
- `response-kserve`: KServe's REST v2 `infer` endpoint for a JSON request: `InferResponse.to_rest()`
  (`set_data_from_numpy(binary_data=False)`: `.item()` per element), the endpoint's
  `InferenceResponse.model_validate` (pydantic), then FastAPI's serialisation of what an endpoint
  returns without a response model: `jsonable_encoder`, and KServe's app's default response class,
  `ORJSONResponse` (orjson).
- `response-orjson`: the project's own: the same object from `tolist()`, orjson; byte-identical to
  KServe's (tests/test_responses.py).
- `response-orjson-numpy`: the floor: orjson's native numpy support, no Python list (float32 printed
  shortest, so not KServe's bytes).

Client side (decode-response), from response-orjson's bytes (KServe's) to the arrays:
- `decode-response-tritonclient`: `tritonclient.http.InferResult.from_response_body(body)` (no
  header length: all JSON; rapidjson), then `as_numpy(name)` (`np.array(data, dtype)`).
- `decode-response-orjson`: the floor: `orjson.loads`, then `np.asarray(data, dtype)`.

Raw bytes cannot go into JSON: KServe refuses a PNG output with its own message; png and
bytes-batch go back in a binary (triton-binary) or gRPC response.
"""

from __future__ import annotations

import json
import warnings

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ARRAY_INPUTS, BYTES_INPUTS

from . import _kserve, _kserve_response, _kserve_server, _responses

FORMAT = "kserve-json"
NO_RAW_BYTES = dict.fromkeys(
    BYTES_INPUTS, "JSON cannot carry raw bytes; a PNG goes back in a triton-binary or kserve-grpc response")
KSERVE_REFUSES_BYTES = dict.fromkeys(BYTES_INPUTS, _kserve_response.REFUSES_JSON_BYTES)
NO_BF16 = {"bfloat16": _kserve.BF16_HAS_NO_JSON}


def kserve_rest_json(payload):
    build = _kserve_response.kserve_response(payload, binary=False)  # imports KServe
    from fastapi.encoders import jsonable_encoder
    from fastapi.responses import ORJSONResponse
    from kserve.protocol.rest.v2_datamodels import InferenceResponse

    validate = InferenceResponse.model_validate
    # FastAPI 0.165 deprecates ORJSONResponse and warns on each instance (a UserWarning, printed once
    # per process); KServe 0.21 still uses it. The warning is still issued per op, as in the server.
    warnings.filterwarnings("ignore", message="ORJSONResponse is deprecated")

    def encode():
        response, _ = build().to_rest()
        # v2_endpoints.infer returns the validated model; FastAPI (response_model=None) encodes it
        # with jsonable_encoder and renders it with the app's ORJSONResponse (kserve/model_server.py).
        return ORJSONResponse(jsonable_encoder(validate(response))).body

    return encode


def _body_builder(payload, data):
    """body() -> the response object in the key order KServe's endpoint writes it (InferenceResponse's
    fields), `data` made by data(value) at each call."""
    specs = _kserve_response.outputs(payload)
    model_name, response_id = _kserve.MODEL_NAME, _kserve_response.RESPONSE_ID

    def body():
        return {"model_name": model_name, "model_version": None, "id": response_id, "parameters": None,
                "outputs": [{"name": name, "shape": shape, "datatype": datatype, "parameters": None,
                             "data": data(value)} for name, shape, datatype, value in specs]}

    return body


def orjson_tolist(payload):
    import orjson

    body, dumps = _body_builder(payload, _kserve.data_list), orjson.dumps
    return lambda: dumps(body())


def orjson_numpy(payload):
    import orjson

    body, dumps, option = _body_builder(payload, _kserve.data_array), orjson.dumps, orjson.OPT_SERIALIZE_NUMPY
    return lambda: dumps(body(), option=option)


def _arrays(response, names, asarray=np.asarray):
    by_name = {entry["name"]: entry for entry in response["outputs"]}
    arrays = []
    for name in names:
        entry = by_name[name]
        if entry["datatype"] == "BYTES":  # UTF-8 text in JSON (KServe refuses any other bytes)
            arrays.append(_kserve.bytes_tensor([text.encode() for text in entry["data"]], entry["shape"]))
        else:
            dtype = _kserve.DATATYPE_TO_NUMPY[entry["datatype"]]
            arrays.append(asarray(entry["data"], dtype=dtype).reshape(entry["shape"]))
    return arrays


def decode_response_body(wire, payload):
    """Independent decoder: stdlib json, each output by its name."""
    return _arrays(json.loads(wire), _responses.output_names(payload))


def tritonclient_result(wire, payload):
    from tritonclient.http import InferResult

    names, from_response_body = _responses.output_names(payload), InferResult.from_response_body

    def decode():
        result = from_response_body(wire)
        return [result.as_numpy(name) for name in names]

    return decode


def orjson_loads(wire, payload):
    import orjson

    names, loads = _responses.output_names(payload), orjson.loads
    return lambda: _arrays(loads(wire), names)


def _headers(wire):
    return {"Content-Type": "application/json"}


def _encode(impl, setup, requires, libraries, unsupported=NO_RAW_BYTES, install="", roundtrip="", refuses=NO_BF16):
    return Case(FORMAT, impl, ARRAY_INPUTS, setup, reference_decoder=decode_response_body,
                requires=requires, libraries=libraries, headers=_headers, unsupported=unsupported, install=install,
                response=True, roundtrip=roundtrip, slow_at_1m=True, refuses=refuses)


def _decode(impl, setup, requires, libraries, roundtrip=""):
    return Case(FORMAT, impl, ARRAY_INPUTS, setup, source="response-orjson", requires=requires,
                libraries=libraries, unsupported=NO_RAW_BYTES, response=True, roundtrip=roundtrip, slow_at_1m=True,
                refuses=NO_BF16)


ORJSON = ("orjson",)
CASES = [
    _encode("response-kserve", kserve_rest_json, _kserve_server.REQUIRES,
            (*_kserve_server.LIBRARIES, "fastapi", "pydantic", "orjson"), KSERVE_REFUSES_BYTES, _kserve_server.INSTALL,
            roundtrip=FORMAT, refuses=_kserve_server.JSON_DECODE),
    _encode("response-orjson", orjson_tolist, ORJSON, ORJSON),
    _encode("response-orjson-numpy", orjson_numpy, ORJSON, ORJSON),
    _decode("decode-response-tritonclient", tritonclient_result, ("tritonclient", "rapidjson", "geventhttpclient"),
            ("tritonclient", "python-rapidjson"), roundtrip=FORMAT),
    _decode("decode-response-orjson", orjson_loads, ORJSON, ORJSON),
]
