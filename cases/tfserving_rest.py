"""TensorFlow Serving REST: the JSON body of `POST /v1/models/NAME:predict`.

Row form: `{"instances": [...]}`, one entry per batch row; with several named inputs, one object
per row. A byte string goes as `{"b64": "..."}`. Each op builds the body from the ndarray, as a
client does: `tolist()` (one Python object per element) and the JSON library, or orjson's
native numpy support.
"""

from __future__ import annotations

import base64
import json

import numpy as np

from serialbench.case import Case

ARRAY_INPUTS = ("float32", "int32x3")
ALL_INPUTS = ("float32", "png", "int32x3")


def _instances_builder(payload, array_to_json):
    """A function building the row-form `instances` value from the payload's tensors."""
    tensors = payload.tensors
    if len(tensors) == 1:
        value = tensors[0].value
        if isinstance(value, bytes):
            return lambda: [{"b64": base64.b64encode(value).decode("ascii")}]
        return lambda: array_to_json(value)
    names = [t.name for t in tensors]
    arrays = [t.value for t in tensors]

    def rows():
        # Several named inputs: one object per batch row, {name: that input's row}.
        columns = [array_to_json(a) for a in arrays]
        return [dict(zip(names, row, strict=False)) for row in zip(*columns, strict=False)]

    return rows


def _tolist(array):
    return array.tolist()


def _numpy_rows(array):
    # orjson serialises an ndarray natively; rows stay ndarrays (views), not Python lists.
    return array if array.ndim != 2 else list(array)


def stdlib_json(payload):
    instances = _instances_builder(payload, _tolist)
    dumps = json.dumps
    return lambda: dumps({"instances": instances()}).encode()


def ujson_dumps(payload):
    import ujson

    instances = _instances_builder(payload, _tolist)
    dumps = ujson.dumps
    return lambda: dumps({"instances": instances()}).encode()


def orjson_tolist(payload):
    import orjson

    instances = _instances_builder(payload, _tolist)
    dumps = orjson.dumps
    return lambda: dumps({"instances": instances()})


def orjson_numpy(payload):
    import orjson

    dumps, option = orjson.dumps, orjson.OPT_SERIALIZE_NUMPY
    if len(payload.tensors) == 1:
        array = payload.tensors[0].value
        return lambda: dumps({"instances": array}, option=option)
    instances = _instances_builder(payload, _numpy_rows)
    return lambda: dumps({"instances": instances()}, option=option)


def decode_row_body(wire, payload):
    """Independent decoder: stdlib json, then the dtype and shape the model's signature gives."""
    instances = json.loads(wire)["instances"]
    tensors = payload.tensors
    if len(tensors) == 1:
        return [_from_json(instances, tensors[0].value)]
    return [_from_json([row[t.name] for row in instances], t.value) for t in tensors]


def _from_json(value, like):
    if isinstance(like, bytes):
        (entry,) = value
        return base64.b64decode(entry["b64"], validate=True)
    return np.asarray(value, dtype=like.dtype).reshape(like.shape)


def _headers(wire):
    return {"Content-Type": "application/json"}


def _case(impl, inputs, setup, requires=(), libraries=()):
    return Case("tfserving-rest", impl, inputs, setup, reference_decoder=decode_row_body,
                requires=requires, libraries=libraries, headers=_headers)


CASES = [
    _case("json", ALL_INPUTS, stdlib_json),
    _case("ujson", ALL_INPUTS, ujson_dumps, requires=("ujson",), libraries=("ujson",)),
    _case("orjson", ALL_INPUTS, orjson_tolist, requires=("orjson",), libraries=("orjson",)),
    _case("orjson-numpy", ARRAY_INPUTS, orjson_numpy, requires=("orjson",), libraries=("orjson",)),
]
