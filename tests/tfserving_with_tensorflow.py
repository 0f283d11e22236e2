"""The TensorFlow side of tests/test_tfserving_grpc.py, run in a subprocess of its own.

The test process stays free of TensorFlow: this script builds the bodies of the protobuf-only
cases and of `make-tensor-proto` first, as a worker does (the placeholder-package paths of
cases/_tfserving.py), then imports the real TensorFlow and prints one JSON object with what it found:

- `tensorflow_imported_early`: whether anything ran `tensorflow/__init__.py` before it was asked for;
- `same_functions`: whether `tf.make_tensor_proto` and `tf.make_ndarray` are the functions the cases call;
- `same_as_full_import`: for each input and tier, whether the case's body equals the body of
  `tf.make_tensor_proto` called after the full `import tensorflow`;
- `identical`: for each input and tier, whether the `make-tensor-proto` body equals `direct`'s
  (bytes for one input; the same message, map entries in key order, for several);
- `make_ndarray_failures`: every encode case's body read by `tf.make_ndarray`, what differs from the input;
- `decode_failures`: what `decode-make-ndarray` returns that differs from the input.
"""

import json
import os
import sys

from serialbench.cases import _tfserving, tfserving_grpc

from serialbench.catalog.fidelity import as_wire_bytes, differences
from serialbench.catalog.inputs import INPUT_KINDS, make_payload

TIERS = ("1K", "10K")
CASES = {case.impl: case for case in tfserving_grpc.CASES}
ENCODE = [case for case in tfserving_grpc.CASES if case.direction == "encode"]


def body(impl, payload):
    return as_wire_bytes(CASES[impl].setup(payload)())


def same_request(left, right, payload):
    if len(payload.tensors) == 1:
        return left == right
    parse = _tfserving.messages().PredictRequest.FromString
    return parse(left).SerializeToString(deterministic=True) == parse(right).SerializeToString(deterministic=True)


def main():
    kinds = [kind for kind in INPUT_KINDS if kind in CASES["direct"].inputs]
    direct = {(kind, tier): body("direct", make_payload(kind, tier)) for kind in kinds for tier in TIERS}
    by_case = {(kind, tier): body("make-tensor-proto", make_payload(kind, tier)) for kind in kinds for tier in TIERS}
    tensorflow_imported_early = "tensorflow" in sys.modules

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tensor_util = _tfserving.tensor_util()
    same_functions = (tf.make_tensor_proto is tensor_util.make_tensor_proto
                      and tf.make_ndarray is tensor_util.MakeNdarray)
    make_ndarray = tf.make_ndarray
    parse = _tfserving.messages().PredictRequest.FromString

    identical, same_as_full_import = {}, {}
    for (kind, tier), direct_body in direct.items():
        payload = make_payload(kind, tier)
        identical[f"{kind}/{tier}"] = same_request(by_case[(kind, tier)], direct_body, payload)
        full = parse(by_case[(kind, tier)])
        for tensor in payload.tensors:
            full.inputs[tensor.name].CopyFrom(tf.make_tensor_proto(tensor.value))
        same_as_full_import[f"{kind}/{tier}"] = same_request(full.SerializeToString(), by_case[(kind, tier)], payload)

    make_ndarray_failures, checked = [], 0
    for case in ENCODE:
        for kind in case.inputs:
            payload = make_payload(kind, "1K")
            request = parse(body(case.impl, payload))
            decoded = [make_ndarray(request.inputs[t.name]) for t in payload.tensors]
            checked += 1
            make_ndarray_failures.extend(f"{case.impl}/{kind}: {p}" for p in differences(payload, decoded))

    decode_failures = []
    for kind in CASES["decode-make-ndarray"].inputs:
        payload = make_payload(kind, "1K")
        decoded = CASES["decode-make-ndarray"].setup(direct[(kind, "1K")], payload)()
        decode_failures.extend(f"decode-make-ndarray/{kind}: {p}" for p in differences(payload, decoded))

    print(json.dumps({
        "tensorflow_imported_early": tensorflow_imported_early,
        "same_functions": same_functions,
        "same_as_full_import": same_as_full_import,
        "identical": identical,
        "make_ndarray_checked": checked,
        "make_ndarray_failures": make_ndarray_failures,
        "decode_failures": decode_failures,
    }))


if __name__ == "__main__":
    main()
