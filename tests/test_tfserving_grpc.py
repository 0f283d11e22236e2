"""tfserving-grpc: every body is the input's PredictRequest, the fast paths are byte-identical to
TensorFlow's, and no protobuf-only worker starts the TensorFlow runtime.

TensorFlow itself runs in subprocesses (tests/tfserving_with_tensorflow.py), so this process
never imports it.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
from serialbench.cases import _tfserving, tfserving_grpc

from serialbench.catalog.fidelity import as_wire_bytes, differences
from serialbench.catalog.inputs import Payload, Tensor, make_payload
from tests.helpers import PROJECT_ROOT, serialbench

CASES = {case.impl: case for case in tfserving_grpc.CASES}
TENSORFLOW_IMPLS = {"make-tensor-proto", "make-tensor-proto-build", "decode-make-ndarray"}
PROTOBUF_ENCODE = [c for c in tfserving_grpc.CASES if c.direction == "encode" and c.impl not in TENSORFLOW_IMPLS]
PROTOBUF_DECODE = [c for c in tfserving_grpc.CASES if c.direction == "decode" and c.impl not in TENSORFLOW_IMPLS]
SAME_MESSAGE_AS_DIRECT = ["direct-build", "copy-from", "copy-from-build", "constructor", "constructor-build", "wire"]


def body(impl, payload) -> bytes:
    return as_wire_bytes(CASES[impl].setup(payload)())


def in_key_order(wire: bytes) -> bytes:
    """The same request serialised with its map entries in key order (what `wire` writes)."""
    request = _tfserving.messages().PredictRequest.FromString(wire)
    return request.SerializeToString(deterministic=True)


def parse(wire: bytes):
    return _tfserving.messages().PredictRequest.FromString(wire)


def _pairs(cases, tiers=("1K",)):
    return [pytest.param(case, kind, tier, id=f"{case.impl}/{kind}/{tier}")
            for case in cases for kind in case.inputs for tier in tiers]


# Every body is the input -------------------------------------------------------------------------

@pytest.mark.parametrize("case, kind, tier", _pairs(PROTOBUF_ENCODE, ("1K", "10K")))
def test_each_encode_case_parses_back_to_exactly_its_input(case, kind, tier):
    payload = make_payload(kind, tier)
    request = parse(body(case.impl, payload))
    assert (request.model_spec.name, request.model_spec.signature_name) == ("model", "serving_default")
    assert sorted(request.inputs) == sorted(t.name for t in payload.tensors)
    decoded = [_tfserving.tensor_value(request.inputs[t.name]) for t in payload.tensors]
    assert differences(payload, decoded) == []


@pytest.mark.parametrize("case, kind, tier", _pairs(PROTOBUF_DECODE))
def test_each_decode_case_returns_its_input(case, kind, tier):
    payload = make_payload(kind, tier)
    decoded = case.setup(body(case.source, payload), payload)()
    assert differences(payload, decoded) == []


def test_float32_travels_as_its_raw_bytes_in_tensor_content():
    payload = make_payload("float32", "10K")
    (tensor,) = parse(body("direct", payload)).inputs.values()
    assert tensor.dtype == _tfserving.DT_FLOAT
    assert [d.size for d in tensor.tensor_shape.dim] == [10, 1000]
    assert tensor.tensor_content == payload.tensors[0].value.tobytes()


def test_typed_val_fills_the_typed_field_and_leaves_tensor_content_empty():
    payload = make_payload("int32x3", "1K")
    for tensor, proto in zip(payload.tensors, [parse(body("typed-val", payload)).inputs[t.name]
                                               for t in payload.tensors]):
        assert proto.tensor_content == b""
        assert list(proto.int_val) == tensor.value.reshape(-1).tolist()


def test_png_is_one_string_val_with_an_empty_shape_as_make_tensor_proto_writes_a_bytes_scalar():
    payload = make_payload("png", "1K")
    tensor = parse(body("direct", payload)).inputs["image"]
    assert tensor.dtype == _tfserving.DT_STRING
    assert tensor.HasField("tensor_shape") and not tensor.tensor_shape.dim
    assert list(tensor.string_val) == [payload.tensors[0].value]


# Same message, same bytes ------------------------------------------------------------------------

@pytest.mark.parametrize("impl", SAME_MESSAGE_AS_DIRECT)
@pytest.mark.parametrize("kind", ["float32", "png", "float64", "uint8", "bytes-batch"])
@pytest.mark.parametrize("tier", ["1K", "100K"])
def test_one_input_bodies_are_byte_identical_to_direct(impl, kind, tier):
    payload = make_payload(kind, tier)
    assert body(impl, payload) == body("direct", payload)


@pytest.mark.parametrize("impl", SAME_MESSAGE_AS_DIRECT)
def test_several_inputs_give_the_same_message_as_direct(impl):
    # A protobuf map is written in hash order, which differs between processes: compare the
    # message with its entries in key order, which is exactly what `wire` writes.
    payload = make_payload("int32x3", "10K")
    direct = body("direct", payload)
    assert in_key_order(body(impl, payload)) == in_key_order(direct)
    if impl == "wire":
        assert body("wire", payload) == in_key_order(direct)


@pytest.mark.slow
def test_a_build_stage_dumps_the_body_of_its_full_case():
    done = serialbench("dump", "tfserving-grpc/direct-build/float32/1K")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == body("direct", make_payload("float32", "1K"))


@pytest.mark.parametrize("array", [
    np.arange(24, dtype=">f4").reshape(4, 6)[:, ::2],  # big-endian and strided
    np.asfortranarray(np.arange(24, dtype=np.float32).reshape(4, 6)),
    np.array(2.5),  # 0-d
    np.zeros((0, 3), np.int32),  # empty: no tensor_content field at all
], ids=["big-endian-strided", "fortran", "scalar", "empty"])
def test_wire_writes_direct_s_bytes_whatever_the_array_layout(array):
    payload = Payload("edge", "edge", (Tensor("input", array),))
    assert body("wire", payload) == body("direct", payload)


def test_data_type_numbers_are_those_of_types_proto():
    data_type = _tfserving.messages().TensorProto.DESCRIPTOR.fields_by_name["dtype"].enum_type
    for name in ("DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8", "DT_INT16", "DT_INT8", "DT_STRING",
                 "DT_INT64", "DT_BOOL", "DT_BFLOAT16", "DT_UINT16", "DT_HALF", "DT_UINT32", "DT_UINT64"):
        assert getattr(_tfserving, name) == data_type.values_by_name[name].number


# TensorFlow only where it is needed --------------------------------------------------------------

NO_TENSORFLOW_SCRIPT = """
import json, sys
from serialbench.cases import _tfserving, tfserving_grpc, tfserving_grpc_response
from serialbench.catalog.fidelity import as_wire_bytes
from serialbench.catalog.inputs import Payload, Tensor, make_payload

cases = {c.impl: c for c in tfserving_grpc.CASES}
payload = make_payload("float32", "1K")
for impl in ("direct", "direct-build", "copy-from", "constructor", "typed-val", "wire"):
    wire = as_wire_bytes(cases[impl].setup(payload)())
    _tfserving.decode_predict_request(wire, payload)
cases["decode-frombuffer"].setup(wire, payload)()
responses = {c.impl: c for c in tfserving_grpc_response.CASES}  # the response half, protobuf only
wire = as_wire_bytes(responses["response-direct"].setup(payload)())
tfserving_grpc_response.decode_predict_response(wire, payload)
responses["decode-response-frombuffer"].setup(wire, payload)()
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] == "tensorflow")))
"""


@pytest.mark.slow
def test_protobuf_only_cases_never_start_the_tensorflow_runtime():
    done = subprocess.run([sys.executable, "-c", NO_TENSORFLOW_SCRIPT], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    # Neither tensorflow/__init__.py nor anything of the runtime (tensorflow.python, the C++
    # extensions) ran: only the generated message modules and the empty packages holding them.
    assert "tensorflow" not in loaded
    assert [name for name in loaded if not name.endswith("_pb2")] == ["tensorflow.core", "tensorflow.core.framework"]


@pytest.fixture(scope="module")
def tensorflow_checks():
    done = subprocess.run([sys.executable, "-m", "tests.tfserving_with_tensorflow"], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_direct_bodies_are_built_before_tensorflow_is_imported(tensorflow_checks):
    assert tensorflow_checks["tensorflow_imported_early"] is False


@pytest.mark.slow
def test_the_tensorflow_cases_call_tf_make_tensor_proto_and_tf_make_ndarray(tensorflow_checks):
    assert tensorflow_checks["same_functions"] is True


@pytest.mark.slow
def test_make_tensor_proto_without_the_runtime_writes_what_the_full_import_writes(tensorflow_checks):
    assert tensorflow_checks["same_as_full_import"] and all(tensorflow_checks["same_as_full_import"].values()), \
        tensorflow_checks["same_as_full_import"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["float32", "png"])
@pytest.mark.parametrize("tier", ["1K", "10K"])
def test_direct_is_byte_identical_to_make_tensor_proto(tensorflow_checks, kind, tier):
    assert tensorflow_checks["identical"][f"{kind}/{tier}"] is True


@pytest.mark.slow
def test_make_tensor_proto_gives_direct_s_message_for_every_input(tensorflow_checks):
    assert all(tensorflow_checks["identical"].values()), tensorflow_checks["identical"]


@pytest.mark.slow
def test_tf_make_ndarray_reads_every_encode_case_back_to_its_input(tensorflow_checks):
    assert tensorflow_checks["make_ndarray_checked"] >= 40
    assert tensorflow_checks["make_ndarray_failures"] == []


@pytest.mark.slow
def test_decode_make_ndarray_returns_its_input(tensorflow_checks):
    assert tensorflow_checks["decode_failures"] == []
