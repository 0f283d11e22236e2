"""The TensorFlow side of tests/test_tfserving_grpc.py, run in a subprocess of its own.

The test process stays free of TensorFlow: this script builds the protobuf-only bodies first
(so the placeholder-package path of cases/_tfserving.py is the one exercised), then imports the
real TensorFlow and prints one JSON object with what it found:

- `tensorflow_imported_early`: whether anything imported TensorFlow before it was asked for;
- `identical`: for each input and tier, whether the `make-tensor-proto` body equals `direct`'s
  (bytes for one input; the same message, map entries in key order, for several);
- `make_ndarray_failures`: every encode case's body read by `tf.make_ndarray`, what differs from the input;
- `decode_failures`: what `decode-make-ndarray` returns that differs from the input.
"""

import json
import sys

from cases import _tfserving, tfserving_grpc
from serialbench.fidelity import as_wire_bytes, differences
from serialbench.inputs import INPUT_KINDS, make_payload

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
    tensorflow_imported_early = "tensorflow" in sys.modules
    make_ndarray = _tfserving.tensorflow().make_ndarray
    parse = _tfserving.messages().PredictRequest.FromString

    identical = {}
    for (kind, tier), direct_body in direct.items():
        payload = make_payload(kind, tier)
        identical[f"{kind}/{tier}"] = same_request(body("make-tensor-proto", payload), direct_body, payload)

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
        "identical": identical,
        "make_ndarray_checked": checked,
        "make_ndarray_failures": make_ndarray_failures,
        "decode_failures": decode_failures,
    }))


if __name__ == "__main__":
    main()
