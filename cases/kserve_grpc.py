"""KServe v2 / Triton gRPC: `ModelInferRequest.SerializeToString()`, the bytes grpcio sends.

`tritonclient` is the real client: `tritonclient.grpc.InferInput.set_data_from_numpy` and the
request builder `tritonclient.grpc._utils._get_inference_request` that `InferenceServerClient.infer`
calls before handing the message to its stub (no channel, no server). `raw` builds the same message
directly with `raw_input_contents` (one `tobytes()` per input, BYTES framed by
`_kserve.serialize_bytes`), byte-identical to the client's (tests/test_kserve_grpc.py). `typed`
puts the values in the typed `contents` fields instead (`fp32_contents`, `int_contents`,
`bytes_contents`, ...), from `tolist()`: every INT32 is then a varint, 10 bytes when negative.

The message classes are tritonclient's generated `tritonclient.grpc.service_pb2`; importing
anything in `tritonclient.grpc` needs grpcio.

`decode-kserve` and `decode-kserve-typed` are KServe's model server reading the raw and the typed
forms: its own generated ModelInferRequest, `InferRequest.from_grpc`, `as_numpy()`.
"""

from __future__ import annotations

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS

from . import _kserve, _kserve_server

FORMAT = "kserve-grpc"

# InferTensorContents field for each v2 datatype (FP16 and BF16 have none: raw only).
TYPED_FIELD = {
    "BOOL": "bool_contents",
    "INT8": "int_contents", "INT16": "int_contents", "INT32": "int_contents", "INT64": "int64_contents",
    "UINT8": "uint_contents", "UINT16": "uint_contents", "UINT32": "uint_contents", "UINT64": "uint64_contents",
    "FP32": "fp32_contents", "FP64": "fp64_contents",
    "BYTES": "bytes_contents",
}

NO_TYPED_FIELD = ("the v2 gRPC InferTensorContents has no field for FP16 or BF16: only raw_input_contents carries "
                  "them (kserve-grpc/raw, tritonclient)")
TYPED_REFUSES = {"float16": NO_TYPED_FIELD, "bfloat16": NO_TYPED_FIELD}

REQUIRES = ("tritonclient", "grpc", "google.protobuf")
LIBRARIES = ("tritonclient", "grpcio", "protobuf")


def _specs(payload):
    return [(t.name, _kserve.datatype(t.value), _kserve.shape(t.value), t.value) for t in payload.tensors]


def tritonclient_grpc(payload):
    from tritonclient.grpc import InferInput
    from tritonclient.grpc._utils import _get_inference_request

    specs = _specs(payload)

    def encode():
        inputs = []
        for name, datatype, shape, value in specs:
            infer_input = InferInput(name, shape, datatype)
            infer_input.set_data_from_numpy(_kserve.object_array(value) if datatype == "BYTES" else value)
            inputs.append(infer_input)
        # The arguments InferenceServerClient.infer passes by default.
        request = _get_inference_request(
            model_name=_kserve.MODEL_NAME, inputs=inputs, model_version="", request_id="", outputs=None,
            sequence_id=0, sequence_start=False, sequence_end=False, priority=0, timeout=None, parameters=None,
        )
        return request.SerializeToString()

    return encode


def raw(payload):
    from tritonclient.grpc import service_pb2

    _kserve.refuse_big_endian(payload)
    request_class = service_pb2.ModelInferRequest
    tensor_class = request_class.InferInputTensor
    specs = _specs(payload)
    serialize_bytes, bytes_elements = _kserve.serialize_bytes, _kserve.bytes_elements

    def encode():
        request = request_class(
            model_name=_kserve.MODEL_NAME,
            inputs=[tensor_class(name=name, datatype=datatype, shape=shape) for name, datatype, shape, _ in specs],
            raw_input_contents=[
                serialize_bytes(bytes_elements(value)) if datatype == "BYTES" else value.tobytes()
                for _, datatype, _, value in specs
            ],
        )
        return request.SerializeToString()

    return encode


def typed(payload):
    from tritonclient.grpc import service_pb2

    request_class = service_pb2.ModelInferRequest
    specs = [(name, datatype, shape, value, _typed_field(datatype)) for name, datatype, shape, value in _specs(payload)]
    bytes_elements = _kserve.bytes_elements

    def encode():
        request = request_class(model_name=_kserve.MODEL_NAME)
        for name, datatype, shape, value, field in specs:
            tensor = request.inputs.add(name=name, datatype=datatype, shape=shape)
            values = bytes_elements(value) if datatype == "BYTES" else value.ravel().tolist()
            getattr(tensor.contents, field).extend(values)
        return request.SerializeToString()

    return encode


def _typed_field(datatype: str) -> str:
    if datatype not in TYPED_FIELD:
        raise ValueError(f"{datatype} has no typed contents field; only raw_input_contents carries it")
    return TYPED_FIELD[datatype]


def decode_request(wire, payload):
    """Independent decoder: parse the message, then raw_input_contents or the typed field of each input."""
    from tritonclient.grpc import service_pb2

    request = service_pb2.ModelInferRequest.FromString(wire)
    raw_contents = list(request.raw_input_contents)
    if raw_contents and len(raw_contents) != len(request.inputs):
        raise ValueError(f"{len(request.inputs)} inputs but {len(raw_contents)} raw_input_contents")
    tensors = []
    for index, tensor in enumerate(request.inputs):
        shape = list(tensor.shape)
        if raw_contents:
            tensors.append(_kserve.raw_tensor(tensor.datatype, raw_contents[index], shape))
        else:
            values = list(getattr(tensor.contents, TYPED_FIELD[tensor.datatype]))
            if tensor.datatype == "BYTES":
                tensors.append(_kserve.bytes_tensor(values, shape))
            else:
                tensors.append(np.array(values, dtype=_kserve.DATATYPE_TO_NUMPY[tensor.datatype]).reshape(shape))
    return tensors


def decode_raw(wire, payload):
    """A server reading raw_input_contents: parse, then `np.frombuffer` on each input's bytes."""
    from tritonclient.grpc import service_pb2

    return _kserve.raw_contents_decoder(wire, service_pb2.ModelInferRequest.FromString, "inputs",
                                        "raw_input_contents")


def decode_typed(wire, payload):
    """A server reading the typed contents: parse, then `np.fromiter` over the repeated field."""
    from tritonclient.grpc import service_pb2

    from_string = service_pb2.ModelInferRequest.FromString
    fromiter, to_numpy, bytes_tensor = np.fromiter, _kserve.DATATYPE_TO_NUMPY, _kserve.bytes_tensor

    def decode():
        request = from_string(wire)
        tensors = []
        for tensor in request.inputs:
            values = getattr(tensor.contents, TYPED_FIELD[tensor.datatype])
            if tensor.datatype == "BYTES":
                tensors.append(bytes_tensor(list(values), tensor.shape))
            else:
                array = fromiter(values, dtype=to_numpy[tensor.datatype], count=len(values))
                tensors.append(array.reshape(tensor.shape))
        return tensors

    return decode


def kserve_from_grpc(wire, payload):
    """KServe's gRPC servicer (`ModelInfer`): the request as grpcio hands it over, parsed with
    KServe's generated ModelInferRequest, `InferRequest.from_grpc`, then each input's
    `as_numpy()` (np.frombuffer of raw_input_contents, or np.array of the typed field's list)."""
    infer_type = _kserve_server.infer_type()
    from_string, from_grpc = infer_type.ModelInferRequest.FromString, infer_type.InferRequest.from_grpc
    tensors = _kserve_server.decode_tensors
    return lambda: tensors(from_grpc(from_string(wire)))


def _kserve_case(impl, source, roundtrip=""):
    return Case(FORMAT, impl, ALL_INPUTS, kserve_from_grpc, source=source,
                requires=_kserve_server.REQUIRES, libraries=(*_kserve_server.LIBRARIES, "protobuf"),
                install=_kserve_server.INSTALL, roundtrip=roundtrip, refuses=_kserve_server.BINARY_DECODE)


def _case(impl, setup, **kwargs):
    return Case(FORMAT, impl, ALL_INPUTS, setup, requires=REQUIRES, libraries=LIBRARIES, **kwargs)


CASES = [
    _case("tritonclient", tritonclient_grpc, reference_decoder=decode_request, roundtrip=FORMAT),
    _case("raw", raw, reference_decoder=decode_request),
    _case("typed", typed, reference_decoder=decode_request, refuses=TYPED_REFUSES),
    _case("decode-raw", decode_raw, source="raw"),
    _case("decode-typed", decode_typed, source="typed"),
    _kserve_case("decode-kserve", source="raw", roundtrip=FORMAT),
    _kserve_case("decode-kserve-typed", source="typed"),
]
