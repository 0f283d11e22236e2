"""TensorFlow Serving REST: the JSON body of `POST /v1/models/NAME:predict`.

Row form (`json`, `ujson`, `orjson`, `orjson-numpy`): `{"instances": [...]}`, one entry per
batch row; with several named inputs, one object per row.
Columnar form (the same libraries, `-columnar`): `{"inputs": ...}`, the whole tensor as one
nested list, or with several named inputs an object of name to nested list.
A byte string goes as `{"b64": "..."}`: in the row form as a batch of one, in the columnar form
as the scalar it is. Each op builds the body from the ndarray, as a client does: `tolist()` (one
Python object per element) and the JSON library, or orjson's native numpy support.

Decode cases (`decode-...`) are the server's side of the row form: the library's `loads`, then
`np.asarray(..., dtype)` with the dtype the model's signature gives, and base64 decoding.
"""

from __future__ import annotations

import base64
import importlib
import json

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS, ARRAY_INPUTS

FORMAT = "tfserving-rest"
# TF Serving's JSON reader and writer (tensorflow_serving/util/json_tensor.cc: AddValueToTensor,
# AddSingleValueAndAdvance) know float, double, int8-64, uint8, uint32, uint64, bool and string.
NO_JSON_FORM = {dtype: f"TF Serving's REST API has no JSON form for {tf_name}: it refuses such an input ('Conversion "
                       f"of JSON Value ... to type: {tf_name}', Unimplemented) and cannot write such an output "
                       "(tensorflow_serving/util/json_tensor.cc)"
                for dtype, tf_name in (("float16", "half"), ("bfloat16", "bfloat16"), ("uint16", "uint16"))}
NUMPY_UNSUPPORTED = {
    "png": "a byte string is not an ndarray: the body is the orjson case's",
    "bytes-batch": "orjson's numpy support has no object arrays",
}


def _b64(value: bytes) -> dict:
    return {"b64": base64.b64encode(value).decode("ascii")}


def _b64_batch(batch: np.ndarray) -> list:
    """A batch of byte strings as nested lists of {"b64": ...}, following its shape."""
    if batch.ndim == 1:
        return [_b64(value) for value in batch]
    return [_b64_batch(rows) for rows in batch]


def _tensor_builder(value, array_to_json):
    """A function building one whole tensor's JSON value."""
    if isinstance(value, bytes):
        return lambda: _b64(value)
    if value.dtype == object:
        return lambda: _b64_batch(value)
    return lambda: array_to_json(value)


def _instances_builder(payload, array_to_json):
    """A function building the row-form `instances` value from the payload's tensors."""
    tensors = payload.tensors
    if len(tensors) == 1:
        value = tensors[0].value
        if isinstance(value, bytes):
            return lambda: [_b64(value)]  # a batch of one
        return _tensor_builder(value, array_to_json)
    names = [t.name for t in tensors]
    columns = [_tensor_builder(t.value, array_to_json) for t in tensors]

    def rows():
        # Several named inputs: one object per batch row, {name: that input's row}.
        return [dict(zip(names, row, strict=False)) for row in zip(*(column() for column in columns), strict=False)]

    return rows


def _inputs_builder(payload, array_to_json):
    """A function building the columnar `inputs` value: one tensor, or an object of them by name."""
    tensors = payload.tensors
    if len(tensors) == 1:
        return _tensor_builder(tensors[0].value, array_to_json)
    named = [(t.name, _tensor_builder(t.value, array_to_json)) for t in tensors]
    return lambda: {name: build() for name, build in named}


def _tolist(array):
    return array.tolist()


def _numpy_rows(array):
    # orjson serialises an ndarray natively; rows stay ndarrays (views), not Python lists.
    return array if array.ndim != 2 else list(array)


def _as_is(array):
    return array


# Encode cases: one body per JSON library and form -------------------------------------------

def json_body(key, make_value, module_name):
    """setup(payload) -> op: the body `{key: value()}` dumped by `module_name` (json, ujson, orjson),
    the value built at each call by the function make_value(payload) returns. stdlib json and
    ujson return str, encoded to UTF-8 as a client sends it; orjson returns the bytes."""

    def setup(payload):
        value, dumps = make_value(payload), importlib.import_module(module_name).dumps
        if module_name == "orjson":
            return lambda: dumps({key: value()})
        return lambda: dumps({key: value()}).encode()

    return setup


def numpy_body(key, make_value, one_array_as_is=False):
    """setup(payload) -> op: `{key: value()}` dumped by orjson with its native numpy support
    (ndarrays in the value, no Python list). With `one_array_as_is`, a payload of one tensor is
    the array itself: the row form of one input, whose rows are the instances."""

    def setup(payload):
        import orjson

        dumps, option = orjson.dumps, orjson.OPT_SERIALIZE_NUMPY
        if one_array_as_is and len(payload.tensors) == 1:
            array = payload.tensors[0].value
            return lambda: dumps({key: array}, option=option)
        value = make_value(payload)
        return lambda: dumps({key: value()}, option=option)

    return setup


def rows(array_to_json):
    """make_value for the row form: the `instances` list."""
    return lambda payload: _instances_builder(payload, array_to_json)


def columns(array_to_json):
    """make_value for the columnar form: the `inputs` value."""
    return lambda payload: _inputs_builder(payload, array_to_json)


stdlib_json = json_body("instances", rows(_tolist), "json")
ujson_dumps = json_body("instances", rows(_tolist), "ujson")
orjson_tolist = json_body("instances", rows(_tolist), "orjson")
orjson_numpy = numpy_body("instances", rows(_numpy_rows), one_array_as_is=True)
stdlib_json_columnar = json_body("inputs", columns(_tolist), "json")
ujson_columnar = json_body("inputs", columns(_tolist), "ujson")
orjson_columnar = json_body("inputs", columns(_tolist), "orjson")
orjson_numpy_columnar = numpy_body("inputs", columns(_as_is))


# Independent decoders (stdlib json) ----------------------------------------------------------

def decode_row_body(wire, payload):
    """Independent decoder: stdlib json, then the dtype and shape the model's signature gives."""
    instances = json.loads(wire)["instances"]
    tensors = payload.tensors
    if len(tensors) == 1:
        value = tensors[0].value
        if isinstance(value, bytes):
            (instances,) = instances  # a batch of one
        return [_from_json(instances, value)]
    return [_from_json([row[t.name] for row in instances], t.value) for t in tensors]


def decode_columnar_body(wire, payload):
    """Independent decoder of the columnar form: stdlib json, dtype and shape from the signature."""
    inputs = json.loads(wire)["inputs"]
    tensors = payload.tensors
    if len(tensors) == 1:
        return [_from_json(inputs, tensors[0].value)]
    return [_from_json(inputs[t.name], t.value) for t in tensors]


def _from_json(value, like):
    if isinstance(like, bytes):
        return base64.b64decode(value["b64"], validate=True)
    if like.dtype == object:
        leaves = np.asarray(value, dtype=object).reshape(-1)
        return [base64.b64decode(leaf["b64"], validate=True) for leaf in leaves]
    return np.asarray(value, dtype=like.dtype).reshape(like.shape)


# Decode cases: a server reading the row form -------------------------------------------------

def _row_decoder(load_loads):
    """setup(wire, payload) for a server that parses with `loads` and knows the signature's dtypes."""

    def setup(wire, payload):
        loads = load_loads()
        b64decode, asarray = base64.b64decode, np.asarray
        specs = [(t.name, _signature(t.value)) for t in payload.tensors]

        def tensor(value, signature):
            if signature is BYTES:
                return b64decode(value["b64"])
            if signature is BATCH:
                return [b64decode(entry["b64"]) for entry in value]
            dtype, shape = signature
            return asarray(value, dtype=dtype).reshape(shape)

        def decode():
            instances = loads(wire)["instances"]
            if len(specs) == 1:
                signature = specs[0][1]
                return [tensor(instances[0] if signature is BYTES else instances, signature)]
            return [tensor([row[name] for row in instances], signature) for name, signature in specs]

        return decode

    return setup


BYTES, BATCH = "bytes", "batch"


def _signature(value):
    """What the model's signature tells a server about one input: a byte string, a batch of them,
    or (dtype, shape)."""
    if isinstance(value, bytes):
        return BYTES
    if value.dtype == object:
        return BATCH
    return value.dtype, value.shape


def _stdlib_loads():
    return json.loads


def _ujson_loads():
    import ujson

    return ujson.loads


def _orjson_loads():
    import orjson

    return orjson.loads


# Declarations --------------------------------------------------------------------------------

def _headers(wire):
    return {"Content-Type": "application/json"}


def row_form_refusal(tensors) -> str | None:
    """The row form (`instances`, `predictions`) lists a batch: each tensor's first dimension, the same
    for all, at least one (json_tensor.cc: 'has no shape information', 'inconsistent batch size')."""
    for tensor in tensors:
        if not tensor.shape:
            return f"{tensor.name} is a scalar: the row form lists a batch along the first dimension, and it has none"
    sizes = sorted({tensor.shape[0] for tensor in tensors})
    if len(sizes) > 1:
        return (f"the row form needs one batch size, every tensor's first dimension, not {sizes[0]} and {sizes[-1]}; "
                "the columnar form (-columnar) carries any shapes")
    if sizes == [0]:
        return "an empty batch: TF Serving refuses 'instances' with no values"
    return None


def row_decoder_refusal(tensors) -> str | None:
    """What this server's row decoder reads (besides the row form itself): a batch of byte strings
    is one list of {"b64": ...}, so one dimension."""
    for tensor in tensors:
        if tensor.dtype == "bytes" and len(tensor.shape) != 1:
            return (f"{tensor.name} is a batch of byte strings of {len(tensor.shape)} dimensions: this decoder "
                    "reads one list of {\"b64\": ...}")
    return row_form_refusal(tensors)


def _case(impl, inputs, setup, requires=(), libraries=(), columnar=False, unsupported=None, roundtrip=""):
    return Case(FORMAT, impl, inputs, setup,
                reference_decoder=decode_columnar_body if columnar else decode_row_body,
                requires=requires, libraries=libraries, headers=_headers, unsupported=unsupported or {},
                roundtrip=roundtrip, slow_at_1m=True, refuses=NO_JSON_FORM,
                refuses_payload=None if columnar else row_form_refusal)


def _decoder(impl, source, load_loads, requires=(), libraries=(), roundtrip=""):
    return Case(FORMAT, impl, ALL_INPUTS, _row_decoder(load_loads), source=source, requires=requires,
                libraries=libraries, roundtrip=roundtrip, slow_at_1m=True, refuses=NO_JSON_FORM,
                refuses_payload=row_decoder_refusal)


# The round trip's two paths: one JSON library on both sides, the standard one and the fastest.
UJSON, ORJSON = ("ujson",), ("orjson",)
JSON_PATH, ORJSON_PATH = f"{FORMAT} json", f"{FORMAT} orjson"

CASES = [
    _case("json", ALL_INPUTS, stdlib_json, roundtrip=JSON_PATH),
    _case("ujson", ALL_INPUTS, ujson_dumps, UJSON, UJSON),
    _case("orjson", ALL_INPUTS, orjson_tolist, ORJSON, ORJSON, roundtrip=ORJSON_PATH),
    _case("orjson-numpy", ARRAY_INPUTS, orjson_numpy, ORJSON, ORJSON, unsupported=NUMPY_UNSUPPORTED),
    _case("json-columnar", ALL_INPUTS, stdlib_json_columnar, columnar=True),
    _case("ujson-columnar", ALL_INPUTS, ujson_columnar, UJSON, UJSON, columnar=True),
    _case("orjson-columnar", ALL_INPUTS, orjson_columnar, ORJSON, ORJSON, columnar=True),
    _case("orjson-numpy-columnar", ARRAY_INPUTS, orjson_numpy_columnar, ORJSON, ORJSON, columnar=True,
          unsupported=NUMPY_UNSUPPORTED),
    _decoder("decode-json", "json", _stdlib_loads, roundtrip=JSON_PATH),
    _decoder("decode-ujson", "ujson", _ujson_loads, UJSON, UJSON),
    _decoder("decode-orjson", "orjson", _orjson_loads, ORJSON, ORJSON, roundtrip=ORJSON_PATH),
]
