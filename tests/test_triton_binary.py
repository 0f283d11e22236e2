"""triton-binary: every body decodes to its input, and every hand-built body is tritonclient's, byte for byte."""

import numpy as np
import pytest
from serialbench.cases import _kserve, triton_binary
from tritonclient.http import InferenceServerClient, InferInput
from tritonclient.utils import serialize_byte_tensor

from serialbench.catalog.fidelity import as_wire_bytes, differences
from serialbench.catalog.inputs import Payload, Tensor, make_payload

CASES = {case.impl: case for case in triton_binary.CASES}
TIERS = ("1K", "10K")
HAND_BUILT = ("join", "struct-pack", "zero-copy", "join-vectorised")


def wire_of(impl, payload) -> bytes:
    return as_wire_bytes(CASES[impl].setup(payload)())


def tritonclient_body(payload):
    """The body and JSON size straight from tritonclient's own calls, written here independently."""
    inputs = []
    for tensor in payload.tensors:
        value = tensor.value
        if isinstance(value, bytes):
            value = np.array([value], dtype=np.object_)
        datatype = "BYTES" if value.dtype == object else _kserve.NUMPY_TO_DATATYPE[value.dtype]
        infer_input = InferInput(tensor.name, list(value.shape), datatype)
        infer_input.set_data_from_numpy(value, binary_data=True)
        inputs.append(infer_input)
    return InferenceServerClient.generate_request_body(inputs)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("impl,kind", [(c.impl, k) for c in triton_binary.CASES if c.direction == "encode"
                                       for k in c.inputs])
def test_every_encode_case_decodes_to_its_input(impl, kind, tier):
    payload = make_payload(kind, tier)
    assert differences(payload, _kserve.decode_binary_body(wire_of(impl, payload), payload)) == []


@pytest.mark.parametrize("impl,kind", [(c.impl, k) for c in triton_binary.CASES if c.direction == "decode"
                                       for k in c.inputs])
def test_every_decode_case_returns_the_input(impl, kind):
    payload = make_payload(kind, "10K")
    wire = wire_of(CASES[impl].source, payload)
    assert differences(payload, CASES[impl].setup(wire, payload)()) == []


@pytest.mark.parametrize("impl,kind", [(impl, k) for impl in HAND_BUILT + ("tritonclient",)
                                       for k in CASES[impl].inputs])
def test_hand_built_bodies_are_tritonclients_bytes(impl, kind):
    payload = make_payload(kind, "10K")
    body, json_size = tritonclient_body(payload)
    wire = wire_of(impl, payload)
    assert wire == body
    assert _kserve.binary_headers(wire)["Inference-Header-Content-Length"] == str(json_size)


@pytest.mark.parametrize("elements", [
    [b"\x89PNG\r\n\x1a\n" + bytes(range(256))],
    [b"a", b"", b"bc\x00", b"\x00" * 7],  # empty elements and trailing NULs (np.bytes_ would strip them)
    [bytes([i % 251]) * (i % 13) for i in range(1000)],
    [b"x" * 70_000, b"y" * 3],
])
def test_vectorised_bytes_encoder_is_serialize_byte_tensor(elements):
    array = np.empty(len(elements), dtype=np.object_)
    array[:] = elements
    assert _kserve.serialize_bytes(elements) == serialize_byte_tensor(array).item()


def test_vectorised_bytes_encoder_of_no_elements_is_empty_like_the_client():
    # tritonclient sends b"" when serialize_byte_tensor returns its empty array.
    assert serialize_byte_tensor(np.empty(0, dtype=np.object_)).size == 0
    assert _kserve.serialize_bytes([]) == b""


def test_zero_copy_hands_over_the_inputs_own_memory():
    payload = make_payload("int32x3", "1K")
    buffers = CASES["zero-copy"].setup(payload)()
    assert isinstance(buffers, list) and len(buffers) == 4  # header, then one buffer per input
    for buffer, tensor in zip(buffers[1:], payload.tensors):
        assert isinstance(buffer, memoryview)
        assert np.shares_memory(np.asarray(buffer), tensor.value)


def test_zero_copy_sends_byte_strings_as_they_are():
    payload = make_payload("bytes-batch", "1K")
    buffers = CASES["zero-copy"].setup(payload)()
    elements = buffers[2::2]
    assert all(sent is kept for sent, kept in zip(elements, payload.tensors[0].value))



def test_zero_copy_of_a_non_contiguous_array_copies_it_into_the_same_body():
    strided = np.arange(64, dtype=np.float32).reshape(4, 16)[:, ::2]
    payload = Payload("edge", "edge", (Tensor("input", strided),))
    assert wire_of("zero-copy", payload) == wire_of("join", payload) == tritonclient_body(payload)[0]


@pytest.mark.parametrize("impl", HAND_BUILT)
def test_big_endian_arrays_are_refused_not_sent_with_the_wrong_byte_order(impl):
    payload = Payload("edge", "edge", (Tensor("input", np.arange(8, dtype=">f4")),))
    with pytest.raises(ValueError, match="little-endian"):
        CASES[impl].setup(payload)
