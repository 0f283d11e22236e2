"""KServe v2 / Triton gRPC responses: `ModelInferResponse.SerializeToString()`, the bytes grpcio sends
back for `ModelInfer`.

Server side (encode-response), from the model's output arrays to the body:
- `response-kserve`: KServe's gRPC servicer: `InferResponse.to_grpc()` (`set_data_from_numpy` per
  output: `raw_output_contents`, and `binary_data_size` as an output parameter), on KServe's own
  generated ModelInferResponse, serialised as grpcio does.
- `response-raw`: the project's own: tritonclient's generated `ModelInferResponse` with the same
  fields (`raw_output_contents` from `tobytes()`); byte-identical to KServe's (tests/test_responses.py).

Client side (decode-response), from response-raw's bytes (KServe's) to the arrays:
- `decode-response-tritonclient`: what `tritonclient.grpc.InferenceServerClient.infer` does with the
  reply: grpcio parses it with `ModelInferResponse.FromString`, the client wraps it in
  `InferResult(response)`; then `as_numpy(name)` per output (`np.frombuffer` of the raw contents).
- `decode-response-raw`: the floor: `FromString`, then `np.frombuffer` of each output's bytes.
"""

from __future__ import annotations

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS

from . import _kserve, _kserve_response, _kserve_server, _responses

FORMAT = "kserve-grpc"
REQUIRES = ("tritonclient", "grpc", "google.protobuf")
LIBRARIES = ("tritonclient", "grpcio", "protobuf")


def kserve_to_grpc(payload):
    # The InferResponse as KServe's custom-model example returns it (use_binary_outputs left False):
    # an ndarray output goes to raw_output_contents either way. With use_binary_outputs=True and
    # ndarray data, kserve 0.21's to_grpc raises (`if use_raw_outputs and infer_output.data`).
    build = _kserve_response.kserve_response(payload, binary=False)
    return lambda: build().to_grpc().SerializeToString()


def raw(payload):
    from tritonclient.grpc import service_pb2

    _kserve.refuse_big_endian(payload)
    response_class, parameter = service_pb2.ModelInferResponse, service_pb2.InferParameter
    tensor_class = response_class.InferOutputTensor
    specs = _kserve_response.outputs(payload)
    serialize_bytes, bytes_elements = _kserve.serialize_bytes, _kserve.bytes_elements
    model_name, response_id = _kserve.MODEL_NAME, _kserve_response.RESPONSE_ID

    def encode():
        raws = [serialize_bytes(bytes_elements(value)) if datatype == "BYTES" else value.tobytes()
                for _, _, datatype, value in specs]
        outputs = [tensor_class(name=name, datatype=datatype, shape=shape,
                                parameters={"binary_data_size": parameter(int64_param=len(raw_bytes))})
                   for (name, shape, datatype, _), raw_bytes in zip(specs, raws, strict=True)]
        return response_class(model_name=model_name, id=response_id, outputs=outputs,
                              raw_output_contents=raws).SerializeToString()

    return encode


def decode_response_body(wire, payload):
    """Independent decoder: tritonclient's generated class parses; each output by its name."""
    from tritonclient.grpc import service_pb2

    response = service_pb2.ModelInferResponse.FromString(wire)
    if len(response.raw_output_contents) != len(response.outputs):
        raise ValueError(f"{len(response.outputs)} outputs but {len(response.raw_output_contents)} raw contents")
    by_name = {tensor.name: _kserve.raw_tensor(tensor.datatype, content, list(tensor.shape))
               for tensor, content in zip(response.outputs, response.raw_output_contents, strict=True)}
    return [by_name[name] for name in _responses.output_names(payload)]


def tritonclient_result(wire, payload):
    from tritonclient.grpc import InferResult, service_pb2

    from_string, names = service_pb2.ModelInferResponse.FromString, _responses.output_names(payload)

    def decode():
        result = InferResult(from_string(wire))  # grpcio's deserializer, then the client's wrapper
        return [result.as_numpy(name) for name in names]

    return decode


def frombuffer(wire, payload):
    from tritonclient.grpc import service_pb2

    return _kserve.raw_contents_decoder(wire, service_pb2.ModelInferResponse.FromString, "outputs",
                                        "raw_output_contents")


def _case(impl, setup, **kwargs):
    return Case(FORMAT, impl, ALL_INPUTS, setup, response=True, **kwargs)


CASES = [
    _case("response-kserve", kserve_to_grpc, reference_decoder=decode_response_body,
          requires=(*_kserve_server.REQUIRES, *REQUIRES), libraries=(*_kserve_server.LIBRARIES, "protobuf"),
          install=_kserve_server.INSTALL, roundtrip=FORMAT,
          refuses={"float16": _kserve_server.GRPC_RESPONSE_FP16, "bfloat16": _kserve_server.REFUSES_BF16}),
    _case("response-raw", raw, reference_decoder=decode_response_body, requires=REQUIRES, libraries=LIBRARIES),
    _case("decode-response-tritonclient", tritonclient_result, source="response-raw", requires=REQUIRES,
          libraries=LIBRARIES, roundtrip=FORMAT),
    _case("decode-response-raw", frombuffer, source="response-raw", requires=REQUIRES, libraries=LIBRARIES),
]
