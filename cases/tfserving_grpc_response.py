"""TensorFlow Serving gRPC responses: `PredictResponse.SerializeToString()`, the reply to `Predict`.

TF Serving's server is C++: no Python library builds its response. The server-side cases here are
the project's own, in Python with the real generated message and TensorFlow's own tensor code:
- `response-make-tensor-proto`: `response.outputs[name].CopyFrom(tf.make_tensor_proto(x))`, the
  way a Python server (or a test double of TF Serving) fills it.
- `response-direct`: protobuf only, each TensorProto filled where it sits in the map
  (`tensor_content`, `string_val`), as tfserving-grpc/direct fills a request; byte-identical to
  response-make-tensor-proto (tests/test_responses.py).
Both set `model_spec` (name, version, signature name), as TF Serving does.

Client side (decode-response), from response-direct's bytes to the arrays:
- `decode-response-make-ndarray`: the client's path: the stub parses the reply
  (`PredictResponse.FromString`), then `tf.make_ndarray(response.outputs[name])`.
- `decode-response-frombuffer`: the floor: `FromString`, then `np.frombuffer` on `tensor_content`.

Only the `make-tensor-proto` and `make-ndarray` cases run TensorFlow code, loaded without its
runtime (cases/_tfserving.py); the others load the generated message classes alone.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS

from . import _responses, _tfserving
from ._tfserving import DT_STRING, MODEL_NAME, NUMPY_DTYPE, SIGNATURE_NAME
from .tfserving_grpc import (
    INSTALL,
    PROTOBUF_LIBRARIES,
    REQUIRES,
    TENSORFLOW_LIBRARIES,
    _fill_in_place,
    _shape,
    _strings,
)

FORMAT = "tfserving-grpc"
MODEL_VERSION = 1


@cache
def response_class():
    """tensorflow_serving's PredictResponse, without the TensorFlow runtime."""
    _tfserving.messages()  # imports predict_pb2 under the stand-in `tensorflow` package
    from tensorflow_serving.apis import predict_pb2

    return predict_pb2.PredictResponse


def _outputs(payload):
    _tfserving.with_bfloat16()
    return [(name, t.value) for name, t in zip(_responses.output_names(payload), payload.tensors, strict=True)]


def _response_filler(fill, outputs):
    PredictResponse = response_class()

    def encode():
        response = PredictResponse()
        spec = response.model_spec
        spec.name = MODEL_NAME
        spec.version.value = MODEL_VERSION
        spec.signature_name = SIGNATURE_NAME
        entries = response.outputs
        for name, value in outputs:
            fill(entries[name], value)
        return response.SerializeToString()

    return encode


def direct(payload):
    return _response_filler(_fill_in_place, _outputs(payload))


def make_tensor_proto(payload):
    make = _tfserving.tensor_util().make_tensor_proto
    return _response_filler(lambda tensor, value: tensor.CopyFrom(make(value)), _outputs(payload))


def decode_predict_response(wire, payload):
    """Independent decoder: the real PredictResponse class parses; each output read as tf.make_ndarray does."""
    outputs = response_class().FromString(wire).outputs
    decoded = []
    for name in _responses.output_names(payload):
        if name not in outputs:
            raise ValueError(f"output {name!r} missing from the response")
        decoded.append(_tfserving.tensor_value(outputs[name]))
    return decoded


def make_ndarray(wire, payload):
    parse, make = response_class().FromString, _tfserving.tensor_util().MakeNdarray
    names = _responses.output_names(payload)

    def decode():
        outputs = parse(wire).outputs
        return [make(outputs[name]) for name in names]

    return decode


def frombuffer(wire, payload):
    _tfserving.with_bfloat16()
    parse, names, np_frombuffer = response_class().FromString, _responses.output_names(payload), np.frombuffer

    def decode():
        outputs = parse(wire).outputs
        arrays = []
        for name in names:
            proto = outputs[name]
            shape = _shape(proto)
            if proto.dtype == DT_STRING:
                arrays.append(_strings(proto, shape))
            else:
                arrays.append(np_frombuffer(proto.tensor_content, dtype=NUMPY_DTYPE[proto.dtype]).reshape(shape))
        return arrays

    return decode


def _encode(impl, setup, tensorflow=False, roundtrip=""):
    return Case(FORMAT, impl, ALL_INPUTS, setup, reference_decoder=decode_predict_response, requires=REQUIRES,
                install=INSTALL, libraries=TENSORFLOW_LIBRARIES if tensorflow else PROTOBUF_LIBRARIES, response=True,
                roundtrip=roundtrip)


def _decode(impl, setup, tensorflow=False, roundtrip=""):
    return Case(FORMAT, impl, ALL_INPUTS, setup, source="response-direct", requires=REQUIRES, install=INSTALL,
                libraries=TENSORFLOW_LIBRARIES if tensorflow else PROTOBUF_LIBRARIES, response=True,
                roundtrip=roundtrip)


CASES = [
    _encode("response-make-tensor-proto", make_tensor_proto, tensorflow=True, roundtrip=FORMAT),
    _encode("response-direct", direct),
    _decode("decode-response-make-ndarray", make_ndarray, tensorflow=True, roundtrip=FORMAT),
    _decode("decode-response-frombuffer", frombuffer),
]
