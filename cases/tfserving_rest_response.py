"""TensorFlow Serving REST responses: the JSON body `{"predictions": ...}` that answers a row-form
`:predict` request.

TF Serving's server is C++, so the server-side cases are the project's own, one per JSON library,
from the output arrays as a Python server builds the body: `tolist()` then `dumps`
(`response-json`, `response-ujson`, `response-orjson`), or orjson's native numpy support
(`response-orjson-numpy`, numbers only). One output gives the list of its rows; several give one
object per row, `{name: row}`. A byte string goes as `{"b64": ...}` (TF Serving's form for a binary
output, whose name ends in `_bytes`), one output of one element as a batch of one.

Client side (decode-response), each from its own library's body: `loads`, then
`np.asarray(..., dtype)` with the dtype the model's signature gives, base64 decoding for bytes.
"""

from __future__ import annotations

import base64
import json

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS, ARRAY_INPUTS

from . import _responses
from .tfserving_rest import (
    JSON_PATH,
    NO_JSON_FORM,
    NUMPY_UNSUPPORTED,
    ORJSON_PATH,
    _from_json,
    _instances_builder,
    _numpy_rows,
    _tolist,
    json_body,
    numpy_body,
    row_decoder_refusal,
    row_form_refusal,
)

FORMAT = "tfserving-rest"


def _predictions(array_to_json):
    """make_value for the `predictions` list: the row form of the outputs."""
    return lambda payload: _instances_builder(_responses.as_outputs(payload), array_to_json)


stdlib_json = json_body("predictions", _predictions(_tolist), "json")
ujson_dumps = json_body("predictions", _predictions(_tolist), "ujson")
orjson_tolist = json_body("predictions", _predictions(_tolist), "orjson")
orjson_numpy = numpy_body("predictions", _predictions(_numpy_rows), one_array_as_is=True)


def decode_predictions(wire, payload):
    """Independent decoder: stdlib json, then the dtype and shape the model's signature gives."""
    return _read(json.loads(wire)["predictions"], _responses.as_outputs(payload).tensors, _from_json)


def _read(predictions, outputs, value_of):
    if len(outputs) == 1:
        like = outputs[0].value
        if isinstance(like, bytes):
            (predictions,) = predictions  # a batch of one
        return [value_of(predictions, like)]
    return [value_of([row[t.name] for row in predictions], t.value) for t in outputs]


def _value(value, like, b64decode=base64.b64decode, asarray=np.asarray):
    """One output from its JSON value, as a client reads it (no base64 validation, unlike _from_json)."""
    if isinstance(like, bytes):
        return b64decode(value["b64"])
    if like.dtype == object:
        return [b64decode(entry["b64"]) for entry in value]
    return asarray(value, dtype=like.dtype).reshape(like.shape)


def _decoder(module_name):
    """setup(wire, payload) for a client that parses the reply with `module_name`.loads."""

    def setup(wire, payload):
        loads, outputs = __import__(module_name).loads, _responses.as_outputs(payload).tensors
        return lambda: _read(loads(wire)["predictions"], outputs, _value)

    return setup


def _headers(wire):
    return {"Content-Type": "application/json"}


def _encode(impl, inputs, setup, libraries=(), unsupported=None, roundtrip=""):
    return Case(FORMAT, impl, inputs, setup, reference_decoder=decode_predictions, requires=libraries,
                libraries=libraries, headers=_headers, unsupported=unsupported or {}, response=True,
                roundtrip=roundtrip, slow_at_1m=True, refuses=NO_JSON_FORM, refuses_payload=row_form_refusal)


def _decode(impl, source, module_name, libraries=(), roundtrip=""):
    return Case(FORMAT, impl, ALL_INPUTS, _decoder(module_name), source=source, requires=libraries,
                libraries=libraries, response=True, roundtrip=roundtrip, slow_at_1m=True, refuses=NO_JSON_FORM,
                refuses_payload=row_decoder_refusal)


UJSON, ORJSON = ("ujson",), ("orjson",)
CASES = [
    _encode("response-json", ALL_INPUTS, stdlib_json, roundtrip=JSON_PATH),
    _encode("response-ujson", ALL_INPUTS, ujson_dumps, UJSON),
    _encode("response-orjson", ALL_INPUTS, orjson_tolist, ORJSON, roundtrip=ORJSON_PATH),
    _encode("response-orjson-numpy", ARRAY_INPUTS, orjson_numpy, ORJSON, unsupported=NUMPY_UNSUPPORTED),
    _decode("decode-response-json", "response-json", "json", roundtrip=JSON_PATH),
    _decode("decode-response-ujson", "response-ujson", "ujson", UJSON),
    _decode("decode-response-orjson", "response-orjson", "orjson", ORJSON, roundtrip=ORJSON_PATH),
]
