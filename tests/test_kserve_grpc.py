"""kserve-grpc: every ModelInferRequest decodes to its input; `raw` is tritonclient.grpc's request, byte for byte."""

import numpy as np
import pytest
from serialbench.cases import _kserve, kserve_grpc
from tritonclient.grpc import InferInput, service_pb2
from tritonclient.grpc._utils import _get_inference_request

from serialbench.catalog.fidelity import differences
from serialbench.catalog.inputs import INPUT_KINDS, make_payload

CASES = {case.impl: case for case in kserve_grpc.CASES}
TIERS = ("1K", "10K")


def wire_of(impl, payload) -> bytes:
    return CASES[impl].setup(payload)()


def tritonclient_request(payload) -> bytes:
    """What InferenceServerClient.infer(MODEL_NAME, inputs) hands its stub, serialised."""
    inputs = []
    for tensor in payload.tensors:
        value = tensor.value
        if isinstance(value, bytes):
            value = np.array([value], dtype=np.object_)
        datatype = "BYTES" if value.dtype == object else _kserve.NUMPY_TO_DATATYPE[value.dtype]
        infer_input = InferInput(tensor.name, list(value.shape), datatype)
        infer_input.set_data_from_numpy(value)
        inputs.append(infer_input)
    request = _get_inference_request(_kserve.MODEL_NAME, inputs, "", "", None, 0, False, False, 0, None, None)
    return request.SerializeToString()


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("impl,kind", [(c.impl, k) for c in kserve_grpc.CASES if c.direction == "encode"
                                       for k in c.inputs])
def test_every_encode_case_decodes_to_its_input(impl, kind, tier):
    payload = make_payload(kind, tier)
    assert differences(payload, kserve_grpc.decode_request(wire_of(impl, payload), payload)) == []


@pytest.mark.parametrize("impl,kind", [(c.impl, k) for c in kserve_grpc.CASES if c.direction == "decode"
                                       for k in c.inputs])
def test_every_decode_case_returns_the_input(impl, kind):
    payload = make_payload(kind, "10K")
    wire = wire_of(CASES[impl].source, payload)
    assert differences(payload, CASES[impl].setup(wire, payload)()) == []


@pytest.mark.parametrize("impl", ["raw", "tritonclient"])
@pytest.mark.parametrize("kind", list(INPUT_KINDS))
def test_raw_request_is_tritonclients_bytes(impl, kind):
    payload = make_payload(kind, "10K")
    assert wire_of(impl, payload) == tritonclient_request(payload)


@pytest.mark.parametrize("kind,field", [("float32", "fp32_contents"), ("int32x3", "int_contents"),
                                        ("float64", "fp64_contents"), ("uint8", "uint_contents"),
                                        ("bytes-batch", "bytes_contents")])
def test_typed_request_carries_values_in_the_typed_field(kind, field):
    payload = make_payload(kind, "1K")
    request = service_pb2.ModelInferRequest.FromString(wire_of("typed", payload))
    assert len(request.raw_input_contents) == 0
    for tensor, sent in zip(payload.tensors, request.inputs):
        assert sent.contents.ListFields()[0][0].name == field
        assert len(getattr(sent.contents, field)) == tensor.value.size


def test_negative_int32_values_cost_ten_bytes_each_in_int_contents():
    payload = make_payload("int32x3", "1K")
    negatives = sum(int(np.count_nonzero(t.value < 0)) for t in payload.tensors)
    assert len(wire_of("typed", payload)) > len(wire_of("raw", payload)) + 5 * negatives
