"""--payload: the spec, the files and directories, the values, every format x every dtype, and the
payload's way to every worker."""

import fnmatch
import hashlib
import json

import numpy as np
import pyperf
import pytest

from serialbench.catalog.fidelity_check import check
from serialbench.catalog.inputs import MAX_INPUT_BYTES, tier_size
from serialbench.catalog.payloads import (
    BYTES_ELEMENT,
    DTYPES,
    VOCABULARY,
    build,
    parse_payload,
    parse_payloads,
    size_word,
)
from serialbench.catalog.registry import Benchmark, payload_refusal, prepare, select
from serialbench.core.errors import UsageError
from serialbench.inside import worker as timing_worker
from tests.helpers import SMALLEST, assert_one_line_usage_error, serialbench

TEXT = "input_ids:int64[32,512],attention_mask:int64[32,512],token_type_ids:int64[32,512]"
HELP = ("give NAME:DTYPE[D,...] tensors separated by commas (e.g. input_ids:int64[32,512],"
        "attention_mask:int64[32,512]), a .npz or .npy file, or a directory of files; NAME=... names it")


def refusal(argument: str) -> str:
    with pytest.raises(UsageError) as caught:
        parse_payloads([argument] if isinstance(argument, str) else argument)
    return str(caught.value)


# The spec ------------------------------------------------------------------------------------------

def test_a_spec_is_named_by_its_dtypes_and_shapes_and_sized_in_bytes():
    text = parse_payload(TEXT)
    assert (text.word, text.tier, text.nbytes) == ("3xint64-32x512", "393K", 3 * 32 * 512 * 8)
    assert text.spec == TEXT
    images = parse_payload("images:uint8[8,224,224,3]")
    assert (images.word, images.tier) == ("uint8-8x224x224x3", "1.2M")
    mixed = parse_payload("ids:int64[4,16], pooled:float32[4,768], flag:bool[]")
    assert (mixed.word, mixed.spec) == ("int64-4x16+float32-4x768+bool-scalar", "ids:int64[4,16],pooled:float32[4,768],"
                                                                               "flag:bool[]")
    assert parse_payload(f"text={TEXT}").word == "text"
    assert parse_payload("s:bytes[3]").nbytes == 3 * BYTES_ELEMENT


def test_a_long_spec_gets_a_short_word_that_globs_can_select():
    word = parse_payload(",".join(f"t{i}:float32[{i + 1}]" for i in range(8))).word
    assert word.startswith("8-tensors-") and not set(word) & set("/[]*?,")


@pytest.mark.parametrize("nbytes, word", [(0, "0"), (999, "999"), (1000, "1K"), (393216, "393K"),
                                          (999_999, "1M"), (1_204_224, "1.2M"), (2_408_448, "2.41M"),
                                          (1_500_000_000, "1.5G")])
def test_the_tier_word_is_the_size_in_three_digits_and_reads_back(nbytes, word):
    assert size_word(nbytes) == word
    assert tier_size(word) == pytest.approx(nbytes, rel=0.005, abs=1)


@pytest.mark.parametrize("argument, message", [
    ("input_ids:int64[32,512", f"cannot read 'input_ids:int64[32,512'; {HELP}"),
    ("ids:int46[4]", "unknown dtype 'int46' in 'ids:int46[4]'; accepted: bool, int8, int16, int32, int64, uint8, "
                     "uint16, uint32, uint64, float16, bfloat16, float32, float64, bytes"),
    ("a:int8[2] b:int8[2]", f"a comma must follow 'a:int8[2]'; {HELP}"),
    ("a:int8[2,x]", "the shape of 'a:int8[2,x]' must be whole numbers, e.g. [32,512]"),
    ("a:int8[2],a:int8[3]", "tensor 'a' is named twice; each tensor needs its own name"),
    ("no-such-file.npz", f"neither a spec nor an existing file or directory; {HELP}"),
    ("float32=x:float32[4]", "'float32' is a built-in input kind's name; choose another"),
    ("my/name=x:float32[4]", f"cannot read 'my/name=x:float32[4]'; {HELP}"),
])
def test_a_wrong_spec_is_refused_in_one_line_with_what_is_accepted(argument, message):
    assert refusal(argument) == f"--payload {argument!r}: {message}"


def test_a_spec_over_the_memory_limit_is_refused_before_anything_is_allocated():
    argument = "x:float64[100000,100000]"
    assert refusal(argument) == (f"--payload {argument!r} needs 80,000,000,000 bytes of input, over the limit of "
                                 f"{MAX_INPUT_BYTES:,} (SERIALBENCH_MAX_INPUT_BYTES); nothing was allocated: give a "
                                 "smaller shape")


def test_two_payloads_with_one_word_are_refused():
    assert refusal(["a:int8[4]", "b:int8[4]"]) == ("--payload 'a:int8[4]' and 'b:int8[4]' are both named 'int8-4'; "
                                                   "name one with NAME=..., e.g. --payload mine=b:int8[4]")


@pytest.mark.slow
def test_the_command_line_refuses_a_typo_with_exit_status_2():
    line = assert_one_line_usage_error(serialbench("list", "--payload", "ids:int46[4]"))
    assert "unknown dtype 'int46'" in line


# The values ----------------------------------------------------------------------------------------

SPEC = ("input_ids:int64[2,8],attention_mask:int64[2,8],token_type_ids:int64[2,8],pixels:float16[3,4],"
        "act:bfloat16[2,2],flags:bool[5],counts:uint16[3],blob:bytes[2]")


def digest(payload) -> str:
    h = hashlib.sha256()
    for tensor in payload.tensors:
        values = tensor.value
        h.update(b"".join(values.reshape(-1).tolist()) if values.dtype == object else values.tobytes())
    return h.hexdigest()[:16]


def test_a_spec_s_values_are_the_same_bytes_everywhere():
    # SHAKE-256 and exact arithmetic: no numpy generator, no libm (pinned like tests/test_inputs.py).
    assert digest(build(parse_payload(SPEC))) == "038829d775b81888"


def test_the_values_are_plausible_for_their_dtype_and_name():
    tensors = {t.name: t.value for t in build(parse_payload(TEXT + ",x:float32[100,100],pixels:uint8[4096]")).tensors}
    assert 0 <= tensors["input_ids"].min() and tensors["input_ids"].max() < VOCABULARY
    for row in tensors["attention_mask"]:  # ones, then the padding's zeros
        assert row[0] == 1 and set(np.unique(row)) <= {0, 1} and np.all(np.diff(row) <= 0)
    for row in tensors["token_type_ids"]:  # the first segment, then the second
        assert set(np.unique(row)) <= {0, 1} and np.all(np.diff(row) >= 0)
    floats = tensors["x"]
    assert np.abs(floats).max() <= 4 and abs(floats.mean()) < 0.05 and 1.0 < floats.std() < 1.3
    assert tensors["pixels"].min() == 0 and tensors["pixels"].max() == 255


def test_every_dtype_is_built_as_numpy_names_it_and_read_only():
    for dtype in DTYPES:
        (tensor,) = build(parse_payload(f"x:{dtype}[3,2]")).tensors
        assert tensor.value.dtype.name == ("object" if dtype == "bytes" else dtype)
        assert tensor.value.shape == (3, 2) and not tensor.value.flags.writeable


# Files and directories --------------------------------------------------------------------------------

def test_a_npz_is_a_tensor_per_array_and_fixed_width_bytes_a_batch(tmp_path):
    path = tmp_path / "my request.npz"
    np.savez(path, input_ids=np.arange(6, dtype=np.int64).reshape(2, 3), names=np.array([b"ab", b"cde"]))
    source = parse_payload(str(path))
    assert (source.word, source.spec) == ("my-request", "input_ids:int64[2,3],names:bytes[2]")
    assert (source.nbytes, source.tier) == (53, "53")
    ids, names = build(source).tensors
    assert ids.value.tolist() == [[0, 1, 2], [3, 4, 5]] and names.value.tolist() == [b"ab", b"cde"]


def test_a_npy_is_one_tensor_named_after_the_file(tmp_path):
    np.save(tmp_path / "embeddings.npy", np.ones((4, 8), np.float32))
    source = parse_payload(str(tmp_path / "embeddings.npy"))
    assert (source.word, source.spec, source.tier) == ("embeddings", "embeddings:float32[4,8]", "128")


def test_a_directory_is_one_bytes_batch_of_its_files_in_name_order(tmp_path):
    jpegs = tmp_path / "jpegs"
    jpegs.mkdir()
    for name, content in (("b.jpg", b"\xff\xd8second"), ("a.jpg", b"\xff\xd8first"), (".hidden", b"x")):
        (jpegs / name).write_bytes(content)
    source = parse_payload(str(jpegs))
    assert (source.word, source.spec, source.nbytes) == ("jpegs", "jpegs:bytes[2]", 15)
    assert build(source).tensors[0].value.tolist() == [b"\xff\xd8first", b"\xff\xd8second"]


def test_files_numpy_cannot_give_as_tensors_are_refused_with_why(tmp_path):
    np.save(tmp_path / "objects.npy", np.array([b"a", None], dtype=object), allow_pickle=True)
    assert "is an object array, which needs pickle" in refusal(str(tmp_path / "objects.npy"))
    import ml_dtypes

    np.save(tmp_path / "act.npy", np.zeros(3, ml_dtypes.bfloat16))
    assert "numpy saves bfloat16 as raw 2-byte void: give it as a spec, name:bfloat16[...]" in refusal(
        str(tmp_path / "act.npy"))
    (tmp_path / "request.json").write_text("{}")
    assert "a file must be .npz (each array a tensor) or .npy (one tensor)" in refusal(str(tmp_path / "request.json"))
    (tmp_path / "empty").mkdir()
    assert refusal(str(tmp_path / "empty")).endswith("the directory holds no file")


# Every format x every dtype -------------------------------------------------------------------------------

ALL_CASES = select((), (), None, None)[1]

# Which cases refuse which dtype, as each format's spec and library say (the reasons: verify --matrix).
REFUSED = {
    "uint16": ["tfserving-rest/*"],
    "float16": ["tfserving-rest/*", "kserve-grpc/*typed", "kserve-grpc/response-kserve", "kserve-json/*-kserve"],
    "bfloat16": ["tfserving-rest/*", "kserve-json/*", "msgpack/*", "kserve-grpc/*typed", "kserve-grpc/*kserve*",
                 "triton-binary/*kserve"],
    # kserve-json: all but the -b64 cases; tfserving-rest's decoders: a batch of [4, 8] byte strings
    "bytes": ["kserve-json/*[!4]", "tfserving-grpc/*typed-val*", "tfserving-rest/*numpy*", "tfserving-rest/decode-*",
              "triton-binary/decode-kserve"],
}


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_case_carries_a_dtype_through_its_parser_or_refuses_it_with_its_reason(dtype):
    source = parse_payload(f"x-{dtype}=input:{dtype}[4,8]")
    payload = build(source)
    refused = set()
    for case in ALL_CASES:
        reason = payload_refusal(case, source, ALL_CASES)
        if reason == "":  # takes no tensor of this form (json-b64 and arrays): left out, as for a built-in kind
            continue
        if reason is None:  # the round trip through the format's own parser, bit for bit, or CaseFailed
            prepare(Benchmark(case, source.word, source.tier, source), ALL_CASES)
            continue
        refused.add(case.label)
        assert reason.startswith((f"{dtype}:", "input is a batch of byte strings")), reason
        assert check(case, payload, ALL_CASES).status  # run anyway: the library's refusal, never a crash
    carriers = {c.label for c in ALL_CASES if payload_refusal(c, source, ALL_CASES) != ""}
    assert refused == {label for label in carriers if any(fnmatch.fnmatchcase(label, glob)
                                                          for glob in REFUSED.get(dtype, ()))}


def test_a_decoder_refuses_what_its_source_refuses_to_write():
    source = parse_payload("input:float16[4,8]")
    decode_typed = next(c for c in ALL_CASES if c.label == "kserve-grpc/decode-typed")
    assert payload_refusal(decode_typed, source, ALL_CASES).startswith("float16: the v2 gRPC InferTensorContents")


def test_the_rest_row_form_needs_one_batch_size():
    source = parse_payload("a:float32[2,3],b:float32[4,3]")
    row = next(c for c in ALL_CASES if c.label == "tfserving-rest/json")
    columnar = next(c for c in ALL_CASES if c.label == "tfserving-rest/json-columnar")
    assert payload_refusal(row, source, ALL_CASES).startswith("the row form needs one batch size")
    prepare(Benchmark(columnar, source.word, source.tier, source), ALL_CASES)


# The commands -----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_list_names_a_payload_s_benchmarks_and_says_why_a_case_refuses_it():
    done = serialbench("list", "--payload", "act:bfloat16[2,4]", "-b", "kserve-grpc/*")
    assert done.returncode == 0, done.stderr.decode()
    assert "kserve-grpc/raw/act/16" not in done.stdout.decode()  # named by its dtype and shape
    assert "kserve-grpc/raw/bfloat16-2x4/16" in done.stdout.decode().split()
    assert ("kserve-grpc/typed: no bfloat16-2x4: bfloat16: the v2 gRPC InferTensorContents has no field for FP16 or "
            "BF16: only raw_input_contents carries them (kserve-grpc/raw, tritonclient)") in done.stderr.decode()


@pytest.mark.slow
def test_a_pattern_that_only_refusing_cases_match_is_a_usage_error_that_says_why():
    line = assert_one_line_usage_error(serialbench("list", "--payload", "act:bfloat16[2,4]", "-b", "msgpack/*"))
    assert "matches no benchmark; msgpack/*: no bfloat16-2x4: bfloat16: msgpack-numpy's dtype field" in line


@pytest.mark.slow
def test_verify_matrix_says_which_format_carries_which_dtype():
    done = serialbench("verify", "--matrix", "--payload", "half=x:float16[2,4]", "--payload", "ints=x:int32[2,4]",
                       "-b", "kserve-grpc/typed", "-b", "kserve-grpc/raw")
    text = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.startswith("kserve-grpc/")}
    assert rows == {"kserve-grpc/raw": ["lossless", "lossless"], "kserve-grpc/typed": ["refused", "[1]", "lossless"]}
    assert "[1] float16: the v2 gRPC InferTensorContents has no field for FP16 or BF16" in text


def test_the_timing_worker_rebuilds_the_payload_it_is_given():
    spec = "ids=input_ids:int64[2,8],attention_mask:int64[2,8]"
    worker = timing_worker.Worker([], payloads=[spec])
    answer = worker.prepare("kserve-grpc/raw/ids/256", 0, 1, None, 1e-3, True, False)
    assert answer["metadata"]["serialbench_payload"] == spec
    assert answer["metadata"]["serialbench_payload_tensors"] == "input_ids:int64[2,8],attention_mask:int64[2,8]"
    assert answer["metadata"]["input_bytes"] == 256


@pytest.mark.slow
def test_a_npz_and_a_directory_of_images_run_end_to_end(tmp_path):
    from PIL import Image

    np.savez(tmp_path / "request.npz", input_ids=np.arange(16, dtype=np.int64).reshape(2, 8),
             pixels=np.linspace(-1, 1, 24, dtype=np.float16).reshape(2, 3, 4))
    images = tmp_path / "images"
    images.mkdir()
    for index in range(3):
        Image.new("RGB", (8, 8), (40 * index, 0, 0)).save(images / f"{index}.png")
    out = tmp_path / "run.json"
    done = serialbench("--payload", tmp_path / "request.npz", "--payload", images, "-b", "kserve-grpc/raw",
                       "-b", "kserve-grpc/typed", *SMALLEST, "-o", out)
    assert done.returncode == 0, done.stderr.decode()
    suite = pyperf.BenchmarkSuite.load(str(out))
    request_bytes, image_bytes = 16 * 8 + 24 * 2, sum(f.stat().st_size for f in images.iterdir())
    assert sorted(suite.get_benchmark_names()) == sorted([
        "baseline/tobytes/request/176", "kserve-grpc/raw/request/176", f"kserve-grpc/raw/images/{image_bytes}",
        f"kserve-grpc/typed/images/{image_bytes}"])  # typed refuses float16; the floor has no byte batch
    metadata = suite.get_benchmark("kserve-grpc/raw/request/176").get_metadata()
    assert metadata["serialbench_payload"] == str(tmp_path / "request.npz")
    assert metadata["serialbench_payload_tensors"] == "input_ids:int64[2,8],pixels:float16[2,3,4]"
    assert metadata["input_bytes"] == request_bytes
    assert ("request: not carried by kserve-grpc/typed: float16: the v2 gRPC InferTensorContents"
            in done.stdout.decode())  # the run's summary
    report = serialbench("report", out, "--payload", images)
    assert report.returncode == 0 and "kserve-grpc/typed" in report.stdout.decode()
    assert "images, encode" in report.stdout.decode() and "request, encode" not in report.stdout.decode()


@pytest.mark.slow
def test_memory_rebuilds_a_payload_from_what_the_result_file_records(tmp_path):
    out = tmp_path / "run.json"
    assert serialbench("--payload", "ids=input_ids:int64[2,8]", "-b", "kserve-grpc/raw", *SMALLEST,
                       "-o", out).returncode == 0
    done = serialbench("memory", out, "--calls", "2", "-b", "kserve-grpc/*")
    assert done.returncode == 0, done.stderr.decode()
    assert "kserve-grpc/raw/ids/128" in json.loads((tmp_path / "run.memory.json").read_text())["benchmarks"]


@pytest.mark.slow
def test_dump_writes_a_payload_s_body():
    done = serialbench("dump", "triton-binary/join/ids/256", "--payload", "ids=input_ids:int64[2,8],mask:int64[2,8]")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.startswith(b'{"inputs":[{"name":"input_ids","shape":[2,8],"datatype":"INT64"')
    assert len(done.stdout) == int(done.stderr.decode().split("Inference-Header-Content-Length: ")[1]) + 256


@pytest.mark.slow
def test_a_side_lists_and_checks_the_payload_it_carries():
    from serialbench.commands.options import filters
    from serialbench.sides.checks import check_side
    from serialbench.sides.sides import Side
    from tests.helpers import PROJECT_ROOT

    side = Side("HEAD", PROJECT_ROOT, payloads=("act=x:bfloat16[2,4]",))
    checked = check_side(side, filters(["kserve-grpc/*"], None, None))
    assert "kserve-grpc/raw/act/16" in checked.listed and "kserve-grpc/typed/act/16" not in checked.listed, checked
    assert checked.failed == {} and "tritonclient" in checked.side.libraries


def test_bisect_finds_a_payload_s_benchmark_by_its_name():
    from serialbench.sides.selection import one_benchmark

    assert one_benchmark([], "triton-binary/join/act", ["act=x:bfloat16[2,4]"]) == "triton-binary/join/act/16"
