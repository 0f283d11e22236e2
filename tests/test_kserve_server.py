"""decode-kserve: KServe's model server parses every body it accepts back to its input, refuses
a PNG in a binary body with its own message, and only a KServe worker imports KServe."""

import json
import subprocess
import sys
import textwrap
import tomllib

import pytest
from serialbench.cases import _kserve_server

from serialbench.catalog.inputs import INPUT_KINDS
from serialbench.catalog.registry import prepare, select
from tests.helpers import PROJECT_ROOT, SMALLEST, serialbench, verify_rows, worker_imports

KSERVE_PATTERN = "*/decode-kserve*"


def kserve_benchmarks(tiers):
    benchmarks, cases = select(patterns=[KSERVE_PATTERN], tiers=tiers, inputs=",".join(INPUT_KINDS))
    return [pytest.param(bench, cases, id=bench.name) for bench in benchmarks]


def test_every_server_decode_case_is_declared():
    labels = {param.values[0].case.label for param in kserve_benchmarks("1K")}
    assert labels == {"triton-binary/decode-kserve", "kserve-json/decode-kserve", "kserve-grpc/decode-kserve",
                      "kserve-grpc/decode-kserve-typed"}


@pytest.mark.parametrize("bench, cases", kserve_benchmarks("1K,10K"))
def test_each_kserve_decode_case_round_trips_every_input_it_declares(bench, cases):
    prepared = prepare(bench, cases)  # the runner's guard: raises CaseFailed unless bit for bit
    assert prepared.op() is not None


def run_python(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_verify_shows_kserve_refusing_a_png_in_a_binary_body_with_its_message():
    case = "triton-binary/decode-kserve"
    done = serialbench("verify", "-b", f"{case}/png", "-b", f"{case}/edge-bytes")
    rows = verify_rows(done.stdout)
    for input_name in ("png/1K", "edge-bytes"):
        verdict = rows[(case, input_name)]
        assert verdict.startswith(f"rejected: {_kserve_server.REFUSES_RAW_BYTES} [run anyway: "), verdict
        assert "InferenceError: Failed to encode " in verdict  # KServe's own message
    assert done.returncode == 0  # declared unsupported: shown, never timed


@pytest.mark.slow
def test_kserve_turns_utf8_bytes_of_a_binary_body_into_str():
    done = serialbench("verify", "-b", "triton-binary/decode-kserve/edge-bytes-empty")
    verdict = verify_rows(done.stdout)[("triton-binary/decode-kserve", "edge-bytes-empty")]
    assert verdict.startswith("lossy: image: bytes became str")


@pytest.mark.slow
def test_a_pngs_path_to_a_kserve_server_is_grpc():
    done = serialbench("verify", "-b", "kserve-grpc/decode-kserve/png", "--no-edge", "--input", "png,bytes-batch")
    assert set(verify_rows(done.stdout).values()) == {"lossless"}, done.stdout.decode()


@pytest.mark.slow
def test_a_kserve_worker_imports_kserve_and_a_join_worker_does_not():
    assert worker_imports("triton-binary/decode-kserve/float32/1K") == ["fastapi", "kserve", "pandas"]
    assert worker_imports("triton-binary/join/float32/1K") == []


@pytest.mark.slow
def test_the_run_times_every_kserve_decode_case(tmp_path):
    output = tmp_path / "run.json"
    done = serialbench(*SMALLEST, "-b", "*/decode-kserve*/float32/1K", "-o", output)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    names = [bench["metadata"]["name"] for bench in json.loads(output.read_text())["benchmarks"]]
    assert sorted(names) == ["baseline/tobytes/float32/1K",  # the floor, which every run times
                             "kserve-grpc/decode-kserve-typed/float32/1K", "kserve-grpc/decode-kserve/float32/1K",
                             "kserve-json/decode-kserve/float32/1K", "triton-binary/decode-kserve/float32/1K"]


BOTH_LIBRARIES = """
import sys
from serialbench.cases import _kserve_server, kserve_grpc
from serialbench.catalog.fidelity import differences
from serialbench.catalog.inputs import make_payload

if sys.argv[1] == "tritonclient-first":
    from tritonclient.grpc import service_pb2
infer_type = _kserve_server.infer_type()
from tritonclient.grpc import service_pb2
payload = make_payload("int32x3", "1K")
wire = next(c for c in kserve_grpc.CASES if c.impl == "raw").setup(payload)()
request = infer_type.InferRequest.from_grpc(infer_type.ModelInferRequest.FromString(wire))
assert differences(payload, [i.as_numpy() for i in request.inputs]) == []
assert service_pb2.ModelInferRequest.FromString(wire).SerializeToString() == wire
print("ok")
"""


@pytest.mark.slow
@pytest.mark.parametrize("order", ["tritonclient-first", "kserve-first"])
def test_kserve_and_tritonclient_grpc_messages_share_a_process_in_either_order(order):
    done = subprocess.run([sys.executable, "-c", BOTH_LIBRARIES, order], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["ok"]


MISSING_LIBRARY = '''
from serialbench.case import Case

CASES = [Case("needs", "decode-server", ("float32",), lambda wire, payload: None, source="x",
              requires=("no_such_module_xyz",), install="pip install 'serialbench[servers]'")]
'''


@pytest.mark.slow
def test_list_says_how_to_install_a_missing_server_library(tmp_path):
    (tmp_path / "needs.py").write_text(MISSING_LIBRARY)
    done = serialbench("list", "--cases", tmp_path, "-b", "triton-binary/join/float32/1K", "-b", "needs/*")
    assert ("left out, a library not installed: needs/* (module 'no_such_module_xyz', "
            "pip install 'serialbench[servers]' brings it)") in done.stderr.decode()
    for case in (param.values[0].case for param in kserve_benchmarks("1K")):
        assert case.install == "pip install 'serialbench[servers]'"


def test_the_test_extra_installs_the_servers_extra():
    extras = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert "serialbench[all]" in extras["test"] and "servers" in extras["all"][0]
    assert any(requirement.startswith("kserve") for requirement in extras["servers"])
