"""tfserving-rest: each body is the JSON TF Serving reads, and it holds exactly the input.

Bodies are read back here with the standard library's json and base64, independently of the
case module's own reference decoders.
"""

import base64
import json

import numpy as np
import pytest
from serialbench.cases import tfserving_rest

from serialbench.catalog.fidelity import as_wire_bytes, differences
from serialbench.catalog.inputs import make_payload

CASES = {case.impl: case for case in tfserving_rest.CASES}
ROW = ["json", "ujson", "orjson", "orjson-numpy"]
COLUMNAR = ["json-columnar", "ujson-columnar", "orjson-columnar", "orjson-numpy-columnar"]
DECODERS = [case for case in tfserving_rest.CASES if case.direction == "decode"]


def body(impl, payload) -> dict:
    return json.loads(as_wire_bytes(CASES[impl].setup(payload)()))


def tensor_from_json(value, like):
    """What TF Serving builds from one input's JSON value, given the signature's dtype."""
    if isinstance(like, bytes):
        return base64.b64decode(value["b64"], validate=True)
    if like.dtype == object:
        return [base64.b64decode(entry["b64"], validate=True) for entry in value]
    return np.array(value, dtype=like.dtype)


def read_row(document, payload):
    instances = document["instances"]
    tensors = payload.tensors
    if len(tensors) > 1:
        return [tensor_from_json([row[t.name] for row in instances], t.value) for t in tensors]
    if isinstance(tensors[0].value, bytes):
        (instances,) = instances  # a batch of one
    return [tensor_from_json(instances, tensors[0].value)]


def read_columnar(document, payload):
    inputs = document["inputs"]
    tensors = payload.tensors
    if len(tensors) > 1:
        return [tensor_from_json(inputs[t.name], t.value) for t in tensors]
    return [tensor_from_json(inputs, tensors[0].value)]


def _params(impls, tiers=("1K", "10K")):
    return [pytest.param(impl, kind, tier, id=f"{impl}/{kind}/{tier}")
            for impl in impls for kind in CASES[impl].inputs for tier in tiers]


@pytest.mark.parametrize("impl, kind, tier", _params(ROW))
def test_each_row_body_reads_back_exactly_its_input(impl, kind, tier):
    payload = make_payload(kind, tier)
    document = body(impl, payload)
    assert set(document) == {"instances"}
    assert differences(payload, read_row(document, payload)) == []


@pytest.mark.parametrize("impl, kind, tier", _params(COLUMNAR))
def test_each_columnar_body_reads_back_exactly_its_input(impl, kind, tier):
    payload = make_payload(kind, tier)
    document = body(impl, payload)
    assert set(document) == {"inputs"}
    assert differences(payload, read_columnar(document, payload)) == []


@pytest.mark.parametrize("impl", COLUMNAR[:3])
def test_columnar_png_is_one_b64_object(impl):
    payload = make_payload("png", "1K")
    assert body(impl, payload)["inputs"] == {"b64": base64.b64encode(payload.tensors[0].value).decode()}


@pytest.mark.parametrize("impl", COLUMNAR)
def test_columnar_int32x3_is_three_named_inputs(impl):
    inputs = body(impl, make_payload("int32x3", "1K"))["inputs"]
    assert sorted(inputs) == ["input_0", "input_1", "input_2"]


@pytest.mark.parametrize("impl", ROW)
def test_row_int32x3_is_one_object_per_batch_row(impl):
    instances = body(impl, make_payload("int32x3", "10K"))["instances"]
    assert len(instances) == 10
    assert all(sorted(row) == ["input_0", "input_1", "input_2"] for row in instances)


@pytest.mark.parametrize("case, kind, tier", [
    pytest.param(case, kind, tier, id=f"{case.impl}/{kind}/{tier}")
    for case in DECODERS for kind in case.inputs for tier in ("1K", "10K")
])
def test_each_decode_case_returns_its_input(case, kind, tier):
    payload = make_payload(kind, tier)
    wire = as_wire_bytes(CASES[case.source].setup(payload)())
    assert differences(payload, case.setup(wire, payload)()) == []


@pytest.mark.parametrize("impl", ["json", "ujson", "orjson"])
def test_each_library_decoder_reads_its_own_encoder_s_body(impl):
    assert CASES[f"decode-{impl}"].source == impl
