"""The response half of an inference: KServe's server and tritonclient read each other's bodies, the
project's own encoders write KServe's (and TensorFlow's) bytes, every response case records its
direction, and KServe and TensorFlow stay out of the workers and of `list` that do not call them.

Every response case's round trip through the runner's guard, at 1K on every input it accepts, is
tests/test_every_case.py's. This process imports KServe (once, as tests/test_kserve_server.py does),
never TensorFlow: that runs in a subprocess.
"""

import json
import subprocess
import sys
import textwrap

import pytest
from serialbench.cases import (
    _kserve_response,
    kserve_grpc_response,
    kserve_json_response,
    msgpack_response,
    tfserving_grpc_response,
    tfserving_rest_response,
    triton_binary_response,
)

from serialbench.catalog.fidelity import as_wire_bytes, differences
from serialbench.catalog.inputs import ALL_INPUTS, ARRAY_INPUTS, make_payload
from serialbench.catalog.registry import Benchmark, benchmark_metadata, prepare, select
from tests.helpers import PROJECT_ROOT, worker_imports

MODULES = (triton_binary_response, kserve_json_response, kserve_grpc_response, tfserving_grpc_response,
           tfserving_rest_response, msgpack_response)
RESPONSE_CASES = [case for module in MODULES for case in module.CASES]
ARRAYS_AND_BYTES = ("float32", "int32x3", "png", "bytes-batch")


def names(payload):
    return [name for name, *_ in _kserve_response.outputs(payload)]


# The real libraries read each other ------------------------------------------------------------

@pytest.mark.parametrize("kind", ARRAYS_AND_BYTES)
def test_kserve_s_binary_rest_response_parsed_by_tritonclient_gives_the_arrays_back(kind):
    from tritonclient.http import InferResult

    payload = make_payload(kind, "1K")
    body, json_length = _kserve_response.kserve_response(payload, binary=True)().to_rest()
    result = InferResult.from_response_body(body, header_length=json_length)
    assert differences(payload, [result.as_numpy(name) for name in names(payload)]) == []


@pytest.mark.parametrize("kind", ARRAYS_AND_BYTES)
def test_kserve_s_grpc_response_parsed_by_tritonclient_gives_the_arrays_back(kind):
    from tritonclient.grpc import InferResult, service_pb2

    payload = make_payload(kind, "1K")
    wire = _kserve_response.kserve_response(payload, binary=False)().to_grpc().SerializeToString()
    result = InferResult(service_pb2.ModelInferResponse.FromString(wire))
    assert differences(payload, [result.as_numpy(name) for name in names(payload)]) == []


@pytest.mark.parametrize("kind", ("float32", "int32x3"))
def test_kserve_s_json_response_parsed_by_tritonclient_gives_the_arrays_back(kind):
    from tritonclient.http import InferResult

    payload = make_payload(kind, "1K")
    body = kserve_json_response.kserve_rest_json(payload)()
    assert json.loads(body)["outputs"][0]["data"][:2] == payload.tensors[0].value.ravel()[:2].tolist()
    result = InferResult.from_response_body(body)
    assert differences(payload, [result.as_numpy(name) for name in names(payload)]) == []


def test_kserve_refuses_a_png_in_a_json_response_with_its_own_message():
    with pytest.raises(Exception, match="Failed to encode"):
        kserve_json_response.kserve_rest_json(make_payload("png", "1K"))()


# The project's own encoders write the real libraries' bytes --------------------------------------

def case(module, impl):
    return next(c for c in module.CASES if c.impl == impl)


def body(module, impl, payload) -> bytes:
    return as_wire_bytes(case(module, impl).setup(payload)())


@pytest.mark.parametrize("module, floor, inputs", [
    (triton_binary_response, "response-join", ALL_INPUTS),
    (kserve_json_response, "response-orjson", ARRAY_INPUTS),
    (kserve_grpc_response, "response-raw", ALL_INPUTS),
], ids=["triton-binary", "kserve-json", "kserve-grpc"])
@pytest.mark.parametrize("tier", ("1K", "10K"))
def test_the_decoders_read_kserve_s_own_bytes(module, floor, inputs, tier):
    # The client decoders read the floor's body, so that their workers never import KServe.
    assert all(c.source == floor for c in module.CASES if c.decodes)
    for kind in inputs:
        payload = make_payload(kind, tier)
        assert body(module, floor, payload) == body(module, "response-kserve", payload), kind


def test_the_binary_response_announces_its_header_length_in_an_http_header():
    payload = make_payload("int32x3", "1K")
    wire, json_length = _kserve_response.kserve_response(payload, binary=True)().to_rest()
    headers = case(triton_binary_response, "response-join").headers(wire)
    assert headers["Inference-Header-Content-Length"] == str(json_length)


TENSORFLOW_SCRIPT = """
import json, sys
from serialbench.cases import tfserving_grpc_response as module
from serialbench.catalog.fidelity import as_wire_bytes
from serialbench.catalog.inputs import make_payload

cases = {c.impl: c for c in module.CASES}
body = lambda impl, payload: as_wire_bytes(cases[impl].setup(payload)())
payloads = {kind: make_payload(kind, "1K") for kind in cases["response-direct"].inputs}
same = {kind: body("response-make-tensor-proto", p) == body("response-direct", p) for kind, p in payloads.items()}
print(json.dumps({"same": same, "tensorflow_init": "tensorflow" in sys.modules}))
"""


@pytest.mark.slow
def test_response_direct_writes_make_tensor_proto_s_bytes_without_tensorflow_s_runtime():
    done = subprocess.run([sys.executable, "-c", TENSORFLOW_SCRIPT], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["same"] and all(found["same"].values()), found
    assert found["tensorflow_init"] is False  # tensor_util only, under the stand-in package


def test_tfserving_rest_predictions_name_each_output_per_row():
    predictions = json.loads(body(tfserving_rest_response, "response-json", make_payload("int32x3", "1K")))
    rows = predictions["predictions"]
    assert len(rows) == 1 and sorted(rows[0]) == ["output_0", "output_1", "output_2"]


# Direction and names -----------------------------------------------------------------------------

def test_every_response_case_is_named_and_recorded_by_its_half():
    for c in RESPONSE_CASES:
        prefix = "decode-response-" if c.decodes else "response-"
        assert c.impl.startswith(prefix), c.label
        assert c.direction == ("decode-response" if c.decodes else "encode-response")
    bench = Benchmark(case(kserve_grpc_response, "decode-response-raw"), "float32", "1K")
    prepared = prepare(bench, RESPONSE_CASES)
    metadata = benchmark_metadata(bench, prepared)
    assert metadata["serialbench_direction"] == "decode-response"
    assert metadata["payload_bytes"] == len(body(kserve_grpc_response, "response-raw", make_payload("float32", "1K")))


def test_a_request_case_keeps_its_direction():
    benchmarks, _ = select(patterns=["triton-binary/join/float32/1K", "triton-binary/decode-json/float32/1K"])
    assert [b.case.direction for b in benchmarks] == ["encode", "decode"]


# Heavy imports stay where they are called --------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name", ["triton-binary/decode-response-tritonclient/float32/1K",
                                  "kserve-json/decode-response-tritonclient/float32/1K",
                                  "kserve-grpc/decode-response-tritonclient/float32/1K"])
def test_a_client_decoder_s_worker_never_imports_kserve(name):
    assert worker_imports(name) == []


LIST_IMPORTS = """
import json, sys
from serialbench.catalog.registry import select
select()
print(json.dumps(sorted({n.split(".")[0] for n in sys.modules} & {"kserve", "fastapi", "pandas", "tensorflow",
                                                                  "tritonclient", "orjson", "grpc"})))
"""


@pytest.mark.slow
def test_finding_every_case_imports_no_library():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(LIST_IMPORTS)], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []

