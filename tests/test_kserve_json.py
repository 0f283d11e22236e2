"""kserve-json: every body is the v2 document of its input; raw bytes are refused with a reason, base64 is sent."""

import base64
import json

import numpy as np
import pytest
from serialbench.cases import kserve_json
from tritonclient.http import InferInput
from tritonclient.utils import InferenceServerException

from serialbench.catalog.fidelity import differences
from serialbench.catalog.inputs import make_payload
from tests.helpers import assert_one_line_usage_error, serialbench

CASES = {case.impl: case for case in kserve_json.CASES}
ENCODERS = [case for case in kserve_json.CASES if case.direction == "encode"]
TIERS = ("1K", "10K")


def body_of(impl, payload) -> bytes:
    return CASES[impl].setup(payload)()


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("impl,kind", [(c.impl, k) for c in ENCODERS for k in c.inputs])
def test_every_encode_case_decodes_to_its_input(impl, kind, tier):
    payload = make_payload(kind, tier)
    assert differences(payload, kserve_json.decode_json_body(body_of(impl, payload), payload)) == []


@pytest.mark.parametrize("impl,kind", [(c.impl, k) for c in kserve_json.CASES if c.direction == "decode"
                                       for k in c.inputs])
def test_every_decode_case_returns_the_input(impl, kind):
    payload = make_payload(kind, "10K")
    wire = body_of(CASES[impl].source, payload)
    assert differences(payload, CASES[impl].setup(wire, payload)()) == []


@pytest.mark.parametrize("kind", ["float32", "int32x3", "float64", "uint8"])
def test_every_library_sends_the_same_document_as_tritonclient(kind):
    # The same keys and the same values in the input's dtype; the text of a number may differ
    # (orjson writes a float32 as its shortest float32 repr, the others widen it to float64 first).
    payload = make_payload(kind, "1K")
    client = json.loads(body_of("tritonclient", payload))
    assert client.pop("parameters") == {"binary_data_output": True}  # tritonclient's own addition
    for impl in ("json", "ujson", "orjson", "orjson-numpy"):
        document = json.loads(body_of(impl, payload))
        assert without_data(document) == without_data(client), impl
        for sent, expected, tensor in zip(document["inputs"], client["inputs"], payload.tensors):
            dtype = tensor.value.dtype
            assert np.array_equal(np.array(sent["data"], dtype), np.array(expected["data"], dtype)), impl


def without_data(document):
    return [{key: value for key, value in entry.items() if key != "data"} for entry in document["inputs"]]


def test_data_is_the_flat_list_of_values():
    payload = make_payload("float32", "10K")
    (entry,) = json.loads(body_of("orjson-numpy", payload))["inputs"]
    assert entry["shape"] == [10, 1000] and entry["datatype"] == "FP32"
    assert len(entry["data"]) == 10_000 and not isinstance(entry["data"][0], list)


def test_tritonclient_json_path_refuses_a_png():
    png = make_payload("png", "1K").tensors[0].value
    infer_input = InferInput("image", [1], "BYTES")
    with pytest.raises(InferenceServerException, match="UTF-8"):
        infer_input.set_data_from_numpy(np.array([png], dtype=np.object_), binary_data=False)


@pytest.mark.parametrize("impl", ["tritonclient", "json", "ujson", "orjson", "orjson-numpy", "decode-json"])
def test_json_cases_leave_byte_strings_out_and_say_why(impl):
    case = CASES[impl]
    assert "png" not in case.inputs and "bytes-batch" not in case.inputs
    assert "kserve-json/json-b64" in case.unsupported["png"]


@pytest.mark.slow
def test_asking_for_a_png_in_json_is_answered_with_the_reason():
    line = assert_one_line_usage_error(serialbench("list", "-b", "kserve-json/json/png/1K"))
    assert "JSON cannot carry raw bytes; kserve-json/json-b64 sends them as base64" in line


@pytest.mark.slow
def test_list_prints_why_png_is_missing():
    done = serialbench("list", "-b", "kserve-json/*", "--tier", "1K", check=True)
    assert "kserve-json/json-b64/png/1K" in done.stdout.decode().split()
    assert "kserve-json/json: no png: JSON cannot carry raw bytes" in done.stderr.decode()


@pytest.mark.parametrize("impl", ["json-b64", "orjson-b64"])
def test_byte_strings_go_as_base64_text_with_its_content_type(impl):
    payload = make_payload("bytes-batch", "1K")
    (entry,) = json.loads(body_of(impl, payload))["inputs"]
    assert entry["datatype"] == "BYTES" and entry["shape"] == [4]
    assert entry["parameters"] == {"content_type": "base64"}
    assert [base64.b64decode(text) for text in entry["data"]] == list(payload.tensors[0].value)
