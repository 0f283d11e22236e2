"""The command line: list, dump (requests and responses), and one-line errors with exit status 2 for bad input."""

import json
import re
import struct

import pytest

from tests.helpers import assert_one_line_usage_error, serialbench

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)

FIRST_CASES = [
    "baseline/tobytes", "baseline/noop",
    "tfserving-rest/json", "tfserving-rest/ujson", "tfserving-rest/orjson", "tfserving-rest/orjson-numpy",
    "triton-binary/struct-pack", "triton-binary/join", "triton-binary/tritonclient",
]


def listed(*args) -> list[str]:
    done = serialbench("list", *args, check=True)
    return done.stdout.decode().split()


def test_list_shows_the_first_cases_at_four_tiers_for_their_inputs():
    names = set(listed())
    for label in FIRST_CASES:
        if label == "baseline/noop":
            inputs = ["float32"]
        elif label == "tfserving-rest/orjson-numpy":
            inputs = ["float32", "int32x3"]
        else:
            inputs = ["float32", "png", "int32x3"]
        for kind in inputs:
            for tier in ("1K", "10K", "100K", "1M"):
                assert f"{label}/{kind}/{tier}" in names


def test_list_is_in_a_stable_order_and_filters_combine():
    assert listed() == listed()
    names = listed("-b", "triton-binary/struct-pack", "-b", "triton-binary/join", "--tier", "1K,1M",
                   "--input", "int32x3")
    expected = [f"triton-binary/{impl}/int32x3/{tier}" for impl in ("struct-pack", "join") for tier in ("1K", "1M")]
    assert names == expected


def test_list_names_on_stderr_the_floor_a_run_adds_and_keeps_it_out_of_stdout():
    done = serialbench("list", "-b", "triton-binary/join", "--tier", "1K", "--input", "float32,png", check=True)
    assert done.stdout.decode().split() == ["triton-binary/join/float32/1K", "triton-binary/join/png/1K"]
    assert ("a run also times the memcpy floor of the selected inputs and tiers (2 more): "
            "baseline/tobytes/float32/1K, baseline/tobytes/png/1K") in done.stderr.decode()


def test_help_lists_every_command_before_the_run_options():
    from serialbench.__main__ import COMMANDS

    stdout = serialbench("--help", check=True).stdout.decode()
    commands, options = stdout.split("usage: python -m serialbench [-h]", 1)
    for command, (_, description) in COMMANDS.items():
        assert re.search(rf"^  {command} +{re.escape(description)}$", commands, re.M), command
    assert "--no-summary" in options and "memcpy floor, always runs" in options


def test_a_glob_word_never_runs_across_a_slash():
    names = listed("-b", "triton-binary/[!d]*", "--tier", "1K", "--input", "float32")
    assert names and not any("/decode-" in name for name in names)
    assert all(name.startswith("triton-binary/") for name in names)


def test_dump_writes_the_exact_body_and_prints_its_http_headers(tmp_path):
    out = tmp_path / "body.bin"
    done = serialbench("dump", "triton-binary/join/float32/1K", "-o", out, check=True)
    body = out.read_bytes()
    headers = dict(line.split(": ", 1) for line in done.stderr.decode().splitlines())
    json_size = int(headers["Inference-Header-Content-Length"])
    assert headers["Content-Type"] == "application/octet-stream"
    header = json.loads(body[:json_size])
    assert header["inputs"][0]["parameters"]["binary_data_size"] == len(body) - json_size == 4000


def test_list_shows_both_response_halves_of_each_protocol():
    names = listed("-b", "*/*/float32/1K")
    for fmt in ("triton-binary", "kserve-json", "kserve-grpc", "tfserving-grpc", "tfserving-rest"):
        halves = [name for name in names if name.startswith(f"{fmt}/")]
        assert any(f"{fmt}/response-" in name for name in halves), fmt  # encode-response: the server
        assert any(f"{fmt}/decode-response-" in name for name in halves), fmt  # decode-response: the client
    assert listed("-b", "*/response-*/float32/1K") == [name for name in names if "/response-" in name
                                                      and "/decode-response-" not in name]


def test_dump_of_a_response_and_of_its_client_decoder_write_the_body_with_the_server_s_headers(tmp_path):
    bodies = {}
    for impl in ("response-kserve", "decode-response-tritonclient"):
        out = tmp_path / f"{impl}.bin"
        done = serialbench("dump", f"triton-binary/{impl}/int32x3/1K", "-o", out, check=True)
        headers = dict(line.split(": ", 1) for line in done.stderr.decode().splitlines())
        bodies[impl] = body = out.read_bytes()
        json_size = int(headers["Inference-Header-Content-Length"])
        outputs = json.loads(body[:json_size])["outputs"]
        assert [o["name"] for o in outputs] == ["output_0", "output_1", "output_2"]
        assert sum(o["parameters"]["binary_data_size"] for o in outputs) == len(body) - json_size == 12000
    assert bodies["response-kserve"] == bodies["decode-response-tritonclient"]  # KServe's bytes, read by the client


def test_dump_to_stdout_matches_dump_to_file(tmp_path):
    out = tmp_path / "body.json"
    serialbench("dump", "tfserving-rest/json/png/1K", "-o", out, check=True)
    assert serialbench("dump", "tfserving-rest/json/png/1K", check=True).stdout == out.read_bytes()


def test_dump_of_the_baseline_is_the_inputs_concatenated():
    body = serialbench("dump", "baseline/tobytes/int32x3/1K", check=True).stdout
    assert len(body) == 3 * 4000
    first = struct.unpack_from("<1000i", body, 0)
    assert first != struct.unpack_from("<1000i", body, 4000)


@pytest.mark.parametrize("args,words", [
    (["frobnicate"], "unknown command 'frobnicate'; accepted: run, list"),
    (["list", "-b", "nope/*"], "matches no benchmark"),
    (["-b", "nope/*"], "matches no benchmark"),
    (["list", "--tier", "2K"], "unknown tier 2K; accepted: 1K, 10K, 100K, 1M"),
    (["--tier", "2K"], "unknown tier 2K"),
    (["list", "--input", "jpeg"], "unknown input jpeg; accepted: float32, png, int32x3"),
    (["list", "--cases", "/no/such/dir"], "--cases /no/such/dir: no such directory"),
    (["--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["dump", "triton-binary/*"], "dump takes one full name FORMAT/IMPL/INPUT/TIER"),
    (["dump", "triton-binary/join/float32/5K"], "unknown tier 5K"),
])
def test_bad_input_is_one_line_and_exit_status_2(args, words):
    line = assert_one_line_usage_error(serialbench(*args))
    assert words in line


def test_an_existing_output_file_is_refused_not_overwritten(tmp_path):
    existing = tmp_path / "earlier.json"
    existing.write_text("measured before")
    line = assert_one_line_usage_error(serialbench("-b", "baseline/noop/float32/1K", "-o", existing))
    assert "never overwritten" in line
    assert existing.read_text() == "measured before"


def test_dump_does_not_overwrite_without_force(tmp_path):
    existing = tmp_path / "body.bin"
    existing.write_bytes(b"keep")
    assert_one_line_usage_error(serialbench("dump", "baseline/tobytes/float32/1K", "-o", existing))
    assert existing.read_bytes() == b"keep"
