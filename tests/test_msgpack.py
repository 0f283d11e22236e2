"""msgpack: one map per input with shape, dtype and the raw bytes; every body decodes to its input."""

import msgpack
import numpy as np
import pytest
from serialbench.cases import msgpack as msgpack_case

from serialbench.catalog.fidelity import differences
from serialbench.catalog.inputs import INPUT_KINDS, Payload, Tensor, make_payload

CASES = {case.impl: case for case in msgpack_case.CASES}
TIERS = ("1K", "10K")


def body_of(impl, payload) -> bytes:
    return CASES[impl].setup(payload)()


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("impl,kind", [(c.impl, k) for c in msgpack_case.CASES if c.direction == "encode"
                                       for k in c.inputs])
def test_every_encode_case_decodes_to_its_input(impl, kind, tier):
    payload = make_payload(kind, tier)
    assert differences(payload, msgpack_case.decode_fallback(body_of(impl, payload), payload)) == []


@pytest.mark.parametrize("kind", CASES["decode-unpackb"].inputs)
def test_decode_case_returns_the_input(kind):
    payload = make_payload(kind, "10K")
    wire = body_of(CASES["decode-unpackb"].source, payload)
    assert differences(payload, CASES["decode-unpackb"].setup(wire, payload)()) == []


@pytest.mark.parametrize("kind", list(INPUT_KINDS))
def test_packing_a_memoryview_sends_the_same_bytes(kind):
    payload = make_payload(kind, "10K")
    assert body_of("packb-buffer", payload) == body_of("packb", payload)


def test_one_map_per_input_with_shape_dtype_and_raw_data():
    payload = make_payload("int32x3", "1K")
    message = msgpack.unpackb(body_of("packb", payload))
    assert list(message) == ["input_0", "input_1", "input_2"]
    for tensor in payload.tensors:
        entry = message[tensor.name]
        assert entry == {"shape": [1, 1000], "dtype": "<i4", "data": tensor.value.tobytes()}


def test_a_png_goes_as_raw_bytes_not_base64():
    payload = make_payload("png", "1K")
    png = payload.tensors[0].value
    body = body_of("packb", payload)
    assert png in body
    assert len(body) - len(png) < 64


def test_a_non_contiguous_array_is_copied_into_the_same_bytes():
    strided = np.arange(64, dtype=np.float32).reshape(4, 16)[:, ::2]
    payload = Payload("edge", "edge", (Tensor("input", strided),))
    assert body_of("packb-buffer", payload) == body_of("packb", payload)
