"""TensorFlow Serving facts shared by the tfserving-grpc cases and their tests.

Only the standard library and numpy at import: case modules import this at discovery time.

The message classes come from `tensorflow-serving-api`'s generated modules. They import
`tensorflow.core.framework.tensor_pb2`, and importing anything under `tensorflow.` first runs
`tensorflow/__init__.py`, which starts the TensorFlow runtime (seconds, see `messages()`). The
generated modules need nothing of it: `messages()` loads them under a placeholder `tensorflow`
package, so that a worker which never calls a TensorFlow function never pays for it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import types
from functools import cache

import numpy as np

MODEL_NAME = "model"
SIGNATURE_NAME = "serving_default"

# tensorflow/core/framework/types.proto (tests/test_tfserving_grpc.py checks them against it).
DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_STRING = 1, 2, 3, 4, 5, 6, 7
DT_INT64, DT_BOOL, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64 = 9, 10, 14, 17, 19, 22, 23

# The dtypes whose values `tf.make_tensor_proto` writes as `tensor_content` (little-endian,
# row-major), and the typed field it falls back to; bool and uint16 only ever go typed.
DATATYPE = {
    np.dtype(np.float16): DT_HALF,
    np.dtype(np.float32): DT_FLOAT,
    np.dtype(np.float64): DT_DOUBLE,
    np.dtype(np.int8): DT_INT8,
    np.dtype(np.int16): DT_INT16,
    np.dtype(np.int32): DT_INT32,
    np.dtype(np.int64): DT_INT64,
    np.dtype(np.uint8): DT_UINT8,
    np.dtype(np.uint16): DT_UINT16,
    np.dtype(np.uint32): DT_UINT32,
    np.dtype(np.uint64): DT_UINT64,
    np.dtype(np.bool_): DT_BOOL,
}
NUMPY_DTYPE = {datatype: dtype.newbyteorder("<") for dtype, datatype in DATATYPE.items()}
TYPED_FIELD = {
    DT_HALF: "half_val",  # the float16 bit patterns, as integers
    DT_FLOAT: "float_val",
    DT_DOUBLE: "double_val",
    DT_INT8: "int_val",
    DT_INT16: "int_val",
    DT_INT32: "int_val",
    DT_UINT8: "int_val",
    DT_UINT16: "int_val",
    DT_INT64: "int64_val",
    DT_UINT32: "uint32_val",
    DT_UINT64: "uint64_val",
    DT_BOOL: "bool_val",
}
# The 16-bit floats whose typed field, half_val, holds their bit patterns as integers.
BIT_PATTERNS = {DT_HALF: np.dtype(np.float16)}


def with_bfloat16() -> None:
    """Add DT_BFLOAT16 to the tables if ml_dtypes is imported (by a payload that holds bfloat16): numpy
    has bfloat16 only through it (as TensorFlow has), and no other worker should import it."""
    ml_dtypes = sys.modules.get("ml_dtypes")
    if ml_dtypes is not None and DT_BFLOAT16 not in NUMPY_DTYPE:
        dtype = np.dtype(ml_dtypes.bfloat16)
        DATATYPE[dtype] = DT_BFLOAT16
        NUMPY_DTYPE[DT_BFLOAT16] = dtype
        TYPED_FIELD[DT_BFLOAT16] = "half_val"
        BIT_PATTERNS[DT_BFLOAT16] = dtype

_TENSORFLOW = "tensorflow"


@cache
def messages() -> types.SimpleNamespace:
    """PredictRequest, ModelSpec, TensorProto and TensorShapeProto, without the TensorFlow runtime."""
    with _without_tensorflow_init():
        from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2
        from tensorflow_serving.apis import model_pb2, predict_pb2

    return types.SimpleNamespace(
        PredictRequest=predict_pb2.PredictRequest,
        ModelSpec=model_pb2.ModelSpec,
        TensorProto=tensor_pb2.TensorProto,
        TensorShapeProto=tensor_shape_pb2.TensorShapeProto,
    )


@cache
def tensor_util():
    """TensorFlow's own `tensor_util` module: `tf.make_tensor_proto` and `tf.make_ndarray` are its
    `make_tensor_proto` and `MakeNdarray` (the same function objects; tests check it).

    `import tensorflow` takes 4-5 s in a worker, most of it the eager runtime, ops and Keras,
    none of which these functions use; this module and its imports (dtypes, tensor_shape, the
    `_dtypes` extension) load in about 0.5 s. The bodies are byte-identical to the fully imported
    `tf.make_tensor_proto`'s (tests/tfserving_with_tensorflow.py).
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    with _without_tensorflow_init(), _quiet_stderr():
        from tensorflow.python.framework import tensor_util

    return tensor_util


@contextlib.contextmanager
def _quiet_stderr():
    """Silence file descriptor 2 during the block: TensorFlow's C++ libraries log start-up notes
    (oneDNN, CUDA drivers) before its log level applies, in every worker. Exceptions still show."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@contextlib.contextmanager
def _without_tensorflow_init():
    """Import modules under `tensorflow.` without running `tensorflow/__init__.py`.

    When `tensorflow` is not imported yet, a placeholder package module whose `__path__` is the
    installed package's directory stands in for it while the block imports, and is removed at
    once: the modules imported (the `*_pb2`, `tensorflow.python.framework...`) stay in
    `sys.modules`, so a later `import tensorflow` runs its `__init__` for real and reuses them,
    and `tf.make_tensor_proto` returns instances of these very classes.
    """
    if _TENSORFLOW in sys.modules:
        yield
        return
    spec = importlib.util.find_spec(_TENSORFLOW)  # locates the package without running it
    if spec is None or not spec.submodule_search_locations:
        yield  # the block's import raises the ImportError a user expects
        return
    placeholder = types.ModuleType(_TENSORFLOW, "stands in for tensorflow while its submodules import")
    placeholder.__path__ = list(spec.submodule_search_locations)
    sys.modules[_TENSORFLOW] = placeholder
    try:
        yield
    finally:
        if sys.modules.get(_TENSORFLOW) is placeholder:
            del sys.modules[_TENSORFLOW]


def little_endian(array: np.ndarray) -> np.ndarray:
    """The array with little-endian elements (`tensor_content`'s byte order); no copy when it has them."""
    return array.astype(array.dtype.newbyteorder("<")) if array.dtype.byteorder == ">" else array


class BuiltMessage:
    """What a `-build` stage returns: the message, built and not serialised.

    The harness takes a body from any output with `__bytes__` (serialbench/catalog/fidelity.py), and
    calls it outside the timed region: for `dump`, `payload_bytes` and the round-trip check.
    """

    __slots__ = ("message",)

    def __init__(self, message):
        self.message = message

    def __bytes__(self) -> bytes:
        return self.message.SerializeToString()


def decode_predict_request(wire: bytes, payload) -> list:
    """Independent decoder: the real PredictRequest class parses the body; each input in payload
    order is read from `tensor_content`, a typed field or `string_val`, as `tf.make_ndarray` does."""
    request = messages().PredictRequest.FromString(wire)
    decoded = []
    for tensor in payload.tensors:
        if tensor.name not in request.inputs:
            raise ValueError(f"input {tensor.name!r} missing from the request")
        decoded.append(tensor_value(request.inputs[tensor.name]))
    return decoded


def tensor_value(proto):
    """A TensorProto's value: an ndarray, a byte string (a string scalar) or an object array."""
    with_bfloat16()
    shape = [dim.size for dim in proto.tensor_shape.dim]
    size = int(np.prod(shape, dtype=np.int64))
    if proto.dtype == DT_STRING:
        if not shape:
            (value,) = proto.string_val
            return value
        batch = np.empty(size, dtype=object)
        batch[:] = list(proto.string_val)
        return batch.reshape(shape)
    dtype = NUMPY_DTYPE[proto.dtype]
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=dtype).reshape(shape)
    values = list(getattr(proto, TYPED_FIELD[proto.dtype]))
    if len(values) < size:  # make_tensor_proto writes one value for a constant tensor: pad with the last
        values += values[-1:] * (size - len(values))
    if proto.dtype in BIT_PATTERNS:
        return np.array(values, dtype=np.uint16).view(BIT_PATTERNS[proto.dtype]).reshape(shape)
    return np.array(values, dtype=dtype).reshape(shape)
