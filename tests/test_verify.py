"""`verify`: a fidelity verdict for every case and input, and an exit status for the timing inputs."""

import textwrap

import pytest

from serialbench.catalog.edge_inputs import EDGE_INPUTS, edge_payload, edges_for
from serialbench.catalog.fidelity import LOSSLESS, LOSSY, REJECTED, UNCHECKED
from serialbench.catalog.fidelity_check import Trial, check, plan
from serialbench.catalog.inputs import make_payload
from serialbench.catalog.registry import select
from tests.helpers import assert_one_line_usage_error, serialbench, verify_rows

VERDICTS = (LOSSLESS, LOSSY, REJECTED, UNCHECKED)

# A JSON-only body that puts the PNG in as it is, a lossy float16 encoder, and a decoder that
# returns the wrong tensor: what verify must catch, in a user's --cases directory.
FAULTY_CASES = '''
import json

import numpy as np

from serialbench.case import Case


def raw_json(payload):
    value = payload.tensors[0].value
    return lambda: json.dumps({"data": value}).encode()


def decode_raw_json(wire, payload):
    return [json.loads(wire)["data"]]


def half(payload):
    value = payload.tensors[0].value
    return lambda: value.astype(np.float16).tobytes()


def decode_half(wire, payload):
    return [np.frombuffer(wire, dtype=np.float16).reshape(payload.tensors[0].value.shape)]


def decode_negated(wire, payload):
    return lambda: [-decode_half(wire, payload)[0].astype(np.float32)]


CASES = [
    Case("faulty", "raw-json", ("png",), raw_json, reference_decoder=decode_raw_json),
    Case("faulty", "half", ("float32",), half, reference_decoder=decode_half),
    Case("faulty", "decode-negated", ("float32",), decode_negated, source="half"),
]
'''


@pytest.fixture(scope="module")
def cases():
    return select(inputs="float32,png,int32x3,float64,uint8,bytes-batch")[1]


@pytest.fixture
def faulty_dir(tmp_path):
    directory = tmp_path / "cases"
    directory.mkdir()
    (directory / "faulty.py").write_text(textwrap.dedent(FAULTY_CASES))
    return directory


def verdict_of(cases, label, input_name):
    case = next(c for c in cases if c.label == label)
    payload = edge_payload(input_name) if input_name in EDGE_INPUTS else make_payload(input_name, "1K")
    return check(case, payload, cases)


def test_orjson_turns_nan_and_inf_into_null(cases):
    result = verdict_of(cases, "tfserving-rest/orjson", "edge-nan")
    assert result.status == LOSSY
    assert result.detail == "NaN and ±Inf -> null (5 of 8 values)"


def test_stdlib_json_keeps_nan_but_is_flagged_as_not_strict_json(cases):
    result = verdict_of(cases, "tfserving-rest/json", "edge-nan")
    assert result.status == LOSSLESS
    assert "not strict JSON" in result.detail


@pytest.mark.slow
def test_a_raw_png_in_a_json_only_body_is_rejected_and_fails_verify(faulty_dir):
    done = serialbench("verify", "--cases", faulty_dir, "-b", "faulty/raw-json")
    rows = verify_rows(done.stdout)
    assert rows[("faulty/raw-json", "png/1K")] == "rejected: TypeError: Object of type bytes is not JSON serializable"
    assert rows[("faulty/raw-json", "edge-bytes")].startswith("rejected: TypeError")
    assert done.returncode == 1
    assert "faulty/raw-json/png/1K" in done.stderr.decode().splitlines()[-1]


def test_an_input_a_case_declares_unsupported_is_run_shown_with_its_reason_and_never_fails(cases):
    declared = [c for c in cases if "png" in (c.unsupported or {})]
    if not declared:
        pytest.skip("no case declares png unsupported")
    for case in declared:
        rows = [row for row in plan([case], ["png"], ["1K"], True, []) if not row.declared]
        assert {row.input for row in rows} >= {"png", "edge-bytes"}
        assert not any(row.timed for row in rows)


@pytest.mark.slow
def test_kserve_json_refuses_a_raw_png_with_its_reason():
    done = serialbench("verify", "-b", "kserve-json/json/png", "--no-edge")
    if done.returncode == 2:
        pytest.skip("no kserve-json/json case")
    verdict = verify_rows(done.stdout)[("kserve-json/json", "png/1K")]
    assert verdict.startswith("rejected: JSON cannot carry raw bytes")
    assert done.returncode == 0  # an input the case declares unsupported is shown, never timed


def test_triton_binary_join_is_lossless_on_every_edge_input(cases):
    join = next(c for c in cases if c.label == "triton-binary/join")
    edges = edges_for(join.inputs)
    assert {"edge-nan", "edge-nan-bits", "edge-negzero", "edge-bytes", "edge-batch", "edge-bigendian"} <= set(edges)
    verdicts = {name: str(check(join, edge_payload(name), cases)) for name in edges}
    # A v2 body is little-endian. tritonclient itself refuses a big-endian array (np_to_triton_dtype
    # gives None); join may refuse it too, but must never send its bytes as they are.
    if verdicts["edge-bigendian"] != LOSSLESS:
        assert verdicts.pop("edge-bigendian").startswith("rejected: ")
    assert verdicts == {name: LOSSLESS for name in verdicts}


@pytest.mark.slow
def test_exit_status_1_names_every_case_that_is_not_lossless_on_a_timing_input(faulty_dir):
    done = serialbench("verify", "--cases", faulty_dir, "-b", "faulty/*", "--no-edge")
    rows = verify_rows(done.stdout)
    assert rows[("faulty/half", "float32/1K")].startswith("lossy: input: float32 narrowed to float16; values changed (")
    assert rows[("faulty/decode-negated", "float32/1K")].startswith("lossy: input: ")
    assert done.returncode == 1
    last = done.stderr.decode().strip().splitlines()[-1]
    assert last == ("verify: 3 of 3 timing benchmarks are not lossless: faulty/raw-json/png/1K, "
                    "faulty/half/float32/1K, faulty/decode-negated/float32/1K")


@pytest.mark.slow
def test_every_default_case_is_lossless_on_the_default_inputs():
    done = serialbench("verify")
    rows = verify_rows(done.stdout)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().splitlines()[-1].startswith("verify: all ")
    assert ("triton-binary/join", "float32/1K") in rows
    assert ("triton-binary/join", "edge-nan") in rows
    for (label, input_name), verdict in rows.items():
        assert verdict.split(":")[0].split(" ")[0] in VERDICTS, (label, input_name, verdict)
    assert rows[("baseline/noop", "float32/1K")] == "unchecked: no reference decoder"


@pytest.mark.slow
def test_no_edge_shows_the_timing_inputs_only_and_tier_picks_the_size():
    done = serialbench("verify", "-b", "triton-binary/join", "--no-edge", "--tier", "10K", "--input", "float64")
    assert done.returncode == 0, done.stderr.decode()
    assert set(verify_rows(done.stdout)) == {("triton-binary/join", "float64/10K")}


@pytest.mark.slow
def test_a_pattern_that_matches_nothing_is_a_one_line_usage_error():
    message = assert_one_line_usage_error(serialbench("verify", "-b", "no-such-format/*"))
    assert "'no-such-format/*' matches no case and input" in message


def test_edge_inputs_apply_by_the_form_of_what_a_case_accepts():
    arrays = edges_for(("float32",))
    assert "edge-nan" in arrays and "edge-bool" in arrays and "edge-bytes" not in arrays
    assert edges_for(("png",)) == ["edge-bytes", "edge-bytes-empty"]
    assert edges_for(("bytes-batch",)) == ["edge-batch"]


def test_plan_matches_edge_rows_by_format_impl_and_input(cases):
    join = [c for c in cases if c.label == "triton-binary/join"]
    rows = plan(join, ["float32"], ["1K"], True, ["triton-binary/join/edge-nan*"])
    assert rows == [Trial(join[0], "edge-nan", None), Trial(join[0], "edge-nan-bits", None)]
