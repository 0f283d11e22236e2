"""KServe's model server code, for the `decode-kserve` cases of triton-binary, kserve-json and kserve-grpc.

Only the standard library here: case modules import this at discovery time; KServe itself is
imported by `infer_type()`, inside a case's setup, so only a KServe worker pays for it.

KServe's generated `grpc_predict_v2_pb2` and tritonclient's `service_pb2` both declare the protobuf
package `inference` in protobuf's default descriptor pool, so one process cannot import both
(`TypeError: Couldn't build proto file into descriptor pool: duplicate symbol
'inference.ServerLiveRequest'`). A KServe server never imports tritonclient.grpc; serialbench
does (the kserve-grpc encoders, and `verify` runs every case in one process). So KServe's module
is executed from its own file into a descriptor pool of its own, before KServe is imported: the
same generated code and the same message definitions, parsed by the same upb backend, only
registered apart (tests/test_kserve_server.py checks both orders of import).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

MESSAGES_MODULE = "kserve.protocol.grpc.grpc_predict_v2_pb2"
REQUIRES = ("kserve",)
LIBRARIES = ("kserve",)
INSTALL = "pip install 'serialbench[servers]'"  # the extra that brings KServe (pyproject.toml)

# `from_bytes` reads a binary-extension tensor, then calls `set_data_from_numpy(binary_data=False)`,
# which decodes every BYTES element as UTF-8: it raises for one that is not, and turns the others
# into str.
REFUSES_RAW_BYTES = ("KServe's from_bytes decodes every BYTES element of a binary body as UTF-8: it refuses "
                     "one that is not (a Python KServe server cannot take this body) and hands str to the model")


# The 16-bit floats (kserve/protocol/infer_type.py and kserve/utils/numpy_codec.py, 0.21).
REFUSES_BF16 = ("KServe 0.21 has no BF16: its numpy codec (kserve/utils/numpy_codec.py) maps no dtype to it, "
                "so it reads and writes no BF16 tensor")
REFUSES_JSON_FP16 = ("KServe refuses FP16 in a JSON body ('Sending FP16 data via JSON is not supported. Please use "
                     "the binary data format'): the v2 spec's JSON has no 16-bit float type")
GRPC_RESPONSE_FP16 = ("KServe 0.21's InferResponse.to_grpc() sends FP16 outputs raw but first tests the array for "
                      "truth ('if use_raw_outputs and infer_output.data'): ValueError for any FP16 output of more "
                      "than one element")
BINARY_DECODE = {"bfloat16": REFUSES_BF16}  # a binary body or raw contents: FP16 is read as it is
JSON_DECODE = {"float16": REFUSES_JSON_FP16, "bfloat16": REFUSES_BF16}


def infer_type():
    """`kserve.protocol.infer_type`, with KServe's gRPC messages in their own descriptor pool."""
    _load_messages_in_own_pool()
    # kserve/model_server.py parses sys.argv at import (its server options): a pyperf worker's
    # `--worker` reads as an abbreviation of its `--workers` and exits with status 2.
    argv, sys.argv = sys.argv, sys.argv[:1]
    try:
        from kserve.protocol import infer_type
    finally:
        sys.argv = argv
    return infer_type


def _load_messages_in_own_pool() -> None:
    if MESSAGES_MODULE in sys.modules:
        return
    # Imported before Default() is swapped: both bind the default pool when first imported.
    from google.protobuf import descriptor_pool, symbol_database  # noqa: F401
    from google.protobuf.internal import builder  # noqa: F401

    # find_spec of the top-level name only: a dotted name would import kserve/__init__.py, which
    # imports the messages module into the default pool.
    package_dir = Path(importlib.util.find_spec("kserve").origin).parent
    spec = importlib.util.spec_from_file_location(MESSAGES_MODULE,
                                                  package_dir / "protocol" / "grpc" / "grpc_predict_v2_pb2.py")
    module = importlib.util.module_from_spec(spec)
    own_pool, default = descriptor_pool.DescriptorPool(), descriptor_pool.Default
    descriptor_pool.Default = lambda: own_pool  # the generated code adds its file to Default()
    try:
        spec.loader.exec_module(module)
    finally:
        descriptor_pool.Default = default
    sys.modules[MESSAGES_MODULE] = module


def decode_tensors(request) -> list:
    """What a KServe model reads: `.as_numpy()` of each input of the server's InferRequest."""
    return [infer_input.as_numpy() for infer_input in request.inputs]
