"""TensorFlow Serving gRPC: `PredictRequest.SerializeToString()`, the body of `Predict`.

Every encode case fills the same message: `model_spec.name` and `signature_name`, and one
TensorProto per input in `inputs` (the map), each as `tf.make_tensor_proto` would fill it
(`tensor_content` for numbers, `string_val` for byte strings). They differ in how they get there:

- `make-tensor-proto`: the canonical client, `request.inputs[name].CopyFrom(tf.make_tensor_proto(x))`
  with the real TensorFlow (the blog's path).
- `direct`: protobuf only, the TensorProto filled where it sits in the map entry.
- `copy-from`: a standalone `TensorProto(...)` copied in with `CopyFrom`, which is what
  `make-tensor-proto` does minus TensorFlow's own Python work.
- `constructor`: the whole request from keyword arguments, `PredictRequest(inputs={name: TensorProto(...)})`.
- `typed-val`: the numbers as the typed repeated field (`float_val`, `int_val`, ...), the path
  `make_tensor_proto` takes for bool, uint16 and one-element tensors; another message, same values.
- `wire`: no message object: the field tags and lengths written by hand, the tensor bytes joined
  once; byte-identical to `direct` (tests/test_tfserving_grpc.py).

Each message-building case has a `-build` twin that stops before `SerializeToString()`, so the
time splits into building and serialising. Decode cases (`decode-...`) are a server reading a
request: parse, then `tf.make_ndarray`, `np.frombuffer` on `tensor_content`, or the typed field.

Only `make-tensor-proto` and `decode-make-ndarray` run TensorFlow code: `tf.make_tensor_proto` and
`tf.make_ndarray`, loaded from their own module without the eager runtime (0.5 s instead of 4-5 s
per worker). The others load the generated message classes alone (cases/_tfserving.py).
"""

from __future__ import annotations

import numpy as np

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS, ARRAY_INPUTS, BYTES_INPUTS

from . import _tfserving
from ._tfserving import (
    BIT_PATTERNS,
    DATATYPE,
    DT_STRING,
    MODEL_NAME,
    NUMPY_DTYPE,
    SIGNATURE_NAME,
    TYPED_FIELD,
    BuiltMessage,
    little_endian,
)

FORMAT = "tfserving-grpc"
NO_TYPED_FIELD = "a byte string has no typed field but string_val, which is what direct fills"
TYPED_UNSUPPORTED = dict.fromkeys(BYTES_INPUTS, NO_TYPED_FIELD)

# Every case here imports tensorflow-serving-api's messages, which import modules under `tensorflow.`
# (cases/_tfserving.py): without TensorFlow the catalog leaves them out and names the extra that brings it.
REQUIRES = ("google.protobuf", "tensorflow_serving", "tensorflow")  # tensorflow: only located, never imported
INSTALL = "pip install 'serialbench[tfserving]'"
PROTOBUF_LIBRARIES = ("protobuf", "tensorflow-serving-api")
TENSORFLOW_LIBRARIES = ("tensorflow", *PROTOBUF_LIBRARIES)


def _names(payload):
    _tfserving.with_bfloat16()  # a decoder's setup
    return [t.name for t in payload.tensors]


def _inputs(payload):
    _tfserving.with_bfloat16()  # every setup comes here, before its op
    return [(t.name, t.value) for t in payload.tensors]


# Ways to fill a TensorProto ------------------------------------------------------------------

def _fill_in_place(tensor, value) -> None:
    """Fill an empty TensorProto (a map entry's value) with what make_tensor_proto would put in it."""
    if isinstance(value, bytes):
        tensor.dtype = DT_STRING
        tensor.tensor_shape.SetInParent()  # a string scalar: an empty shape, present
        tensor.string_val.append(value)
        return
    dims = tensor.tensor_shape.dim
    for size in value.shape:
        dims.add(size=size)
    if not value.shape:
        tensor.tensor_shape.SetInParent()
    if value.dtype == object:
        tensor.dtype = DT_STRING
        tensor.string_val.extend(value.reshape(-1).tolist())
        return
    value = little_endian(value)
    tensor.dtype = DATATYPE[value.dtype]
    tensor.tensor_content = value.tobytes()


def _fill_typed(tensor, value) -> None:
    """Fill an empty TensorProto with the values in the dtype's typed repeated field."""
    if isinstance(value, bytes) or value.dtype == object:
        raise TypeError(f"typed-val: {NO_TYPED_FIELD}")
    value = little_endian(value)
    datatype = DATATYPE[value.dtype]
    tensor.dtype = datatype
    dims = tensor.tensor_shape.dim
    for size in value.shape:
        dims.add(size=size)
    if not value.shape:
        tensor.tensor_shape.SetInParent()
    flat = value.reshape(-1)
    if datatype in BIT_PATTERNS:
        flat = flat.view(np.uint16)  # half_val holds the bit patterns
    getattr(tensor, TYPED_FIELD[datatype]).extend(flat.tolist())


def _tensor_proto_builder(messages):
    """value -> a standalone TensorProto built from keyword arguments."""
    TensorProto, TensorShapeProto = messages.TensorProto, messages.TensorShapeProto
    Dim = TensorShapeProto.Dim

    def tensor_proto(value):
        if isinstance(value, bytes):
            return TensorProto(dtype=DT_STRING, tensor_shape=TensorShapeProto(), string_val=[value])
        shape = TensorShapeProto(dim=[Dim(size=size) for size in value.shape])
        if value.dtype == object:
            return TensorProto(dtype=DT_STRING, tensor_shape=shape, string_val=value.reshape(-1).tolist())
        value = little_endian(value)
        return TensorProto(dtype=DATATYPE[value.dtype], tensor_shape=shape, tensor_content=value.tobytes())

    return tensor_proto


# Encode cases: each setup returns build() -> PredictRequest ------------------------------------

def _request_filler(messages, fill, inputs):
    PredictRequest = messages.PredictRequest

    def build():
        request = PredictRequest()
        spec = request.model_spec
        spec.name = MODEL_NAME
        spec.signature_name = SIGNATURE_NAME
        entries = request.inputs
        for name, value in inputs:
            fill(entries[name], value)
        return request

    return build


def build_direct(payload):
    return _request_filler(_tfserving.messages(), _fill_in_place, _inputs(payload))


def build_typed_val(payload):
    return _request_filler(_tfserving.messages(), _fill_typed, _inputs(payload))


def build_copy_from(payload):
    messages = _tfserving.messages()
    tensor_proto = _tensor_proto_builder(messages)
    return _request_filler(messages, lambda tensor, value: tensor.CopyFrom(tensor_proto(value)), _inputs(payload))


def build_make_tensor_proto(payload):
    messages = _tfserving.messages()
    make_tensor_proto = _tfserving.tensor_util().make_tensor_proto
    return _request_filler(messages, lambda tensor, value: tensor.CopyFrom(make_tensor_proto(value)),
                           _inputs(payload))


def build_constructor(payload):
    messages = _tfserving.messages()
    PredictRequest, ModelSpec = messages.PredictRequest, messages.ModelSpec
    tensor_proto = _tensor_proto_builder(messages)
    inputs = _inputs(payload)

    def build():
        return PredictRequest(
            model_spec=ModelSpec(name=MODEL_NAME, signature_name=SIGNATURE_NAME),
            inputs={name: tensor_proto(value) for name, value in inputs},
        )

    return build


def serialised(make_builder):
    """The full encode case: build, then SerializeToString()."""

    def setup(payload):
        build = make_builder(payload)
        return lambda: build().SerializeToString()

    return setup


def build_stage(make_builder):
    """The `-build` case: the same build, stopping before serialisation."""

    def setup(payload):
        build = make_builder(payload)
        return lambda: BuiltMessage(build())

    return setup


# wire: the PredictRequest written by hand ----------------------------------------------------

_ONE_BYTE = [bytes((n,)) for n in range(0x80)]


def _varint(number: int) -> bytes:
    if number < 0x80:
        return _ONE_BYTE[number]
    if number < 0x4000:
        return bytes((number & 0x7F | 0x80, number >> 7))
    out = bytearray()
    while number > 0x7F:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _field(tag: bytes, payload: bytes) -> bytes:
    """A length-delimited field: tag, varint length, bytes."""
    return tag + _varint(len(payload)) + payload


# Tags (field number << 3 | wire type); length-delimited fields are wire type 2, varints 0.
SPEC_NAME, SPEC_SIGNATURE = b"\x0a", b"\x1a"  # ModelSpec.name = 1, signature_name = 3
REQUEST_MODEL_SPEC, REQUEST_INPUTS = b"\x0a", b"\x12"  # PredictRequest.model_spec = 1, inputs = 2
ENTRY_KEY, ENTRY_VALUE = b"\x0a", b"\x12"  # map entry key = 1, value = 2
TENSOR_DTYPE, TENSOR_SHAPE = b"\x08", b"\x12"  # TensorProto.dtype = 1, tensor_shape = 2
TENSOR_CONTENT, TENSOR_STRING_VAL = b"\x22", b"\x42"  # tensor_content = 4, string_val = 8
SHAPE_DIM, DIM_SIZE = b"\x12", b"\x08"  # TensorShapeProto.dim = 2, Dim.size = 1
STRING_SCALAR_HEAD = TENSOR_DTYPE + _varint(DT_STRING) + TENSOR_SHAPE + b"\x00"  # dtype, an empty shape


def _shape_field(shape) -> bytes:
    # Each Dim is {size}; a dimension of size 0 is an empty Dim (proto3 leaves out a zero).
    dims = [DIM_SIZE + _varint(size) if size else b"" for size in shape]
    return _field(TENSOR_SHAPE, b"".join([SHAPE_DIM + _ONE_BYTE[len(dim)] + dim for dim in dims]))


def _tensor_parts(value) -> tuple[bytes, list, int]:
    """One TensorProto: the fields before the values, the value buffers in order, its size."""
    if isinstance(value, bytes):
        head = STRING_SCALAR_HEAD + TENSOR_STRING_VAL + _varint(len(value))
        return head, [value], len(head) + len(value)
    if value.dtype == object:
        strings = b"".join([TENSOR_STRING_VAL + _varint(len(s)) + s for s in value.reshape(-1).tolist()])
        head = TENSOR_DTYPE + _varint(DT_STRING) + _shape_field(value.shape)
        return head, [strings], len(head) + len(strings)
    head = TENSOR_DTYPE + _varint(DATATYPE[value.dtype.newbyteorder("=")]) + _shape_field(value.shape)
    size = value.nbytes
    if not size:  # an empty bytes field is not written (proto3)
        return head, [], len(head)
    if not value.flags.c_contiguous or value.dtype.byteorder == ">":
        value = np.ascontiguousarray(little_endian(value))
    head += TENSOR_CONTENT + _varint(size)
    return head, [value], len(head) + size


def wire(payload):
    """A hand-written PredictRequest: map entries in key order, as SerializeToString(deterministic=True).

    The model spec and each input's key are the model's constants, written once; the dtype,
    shape and lengths come from each array on every call, and each array's bytes are copied once,
    by the final join.
    """
    spec = _field(SPEC_NAME, MODEL_NAME.encode()) + _field(SPEC_SIGNATURE, SIGNATURE_NAME.encode())
    head = _field(REQUEST_MODEL_SPEC, spec)
    by_key = sorted(_inputs(payload), key=lambda item: item[0])
    inputs = [(_field(ENTRY_KEY, name.encode()), value) for name, value in by_key]

    def encode():
        parts = [head]
        for key, value in inputs:
            tensor_head, buffers, tensor_size = _tensor_parts(value)
            value_field = ENTRY_VALUE + _varint(tensor_size)
            parts.append(REQUEST_INPUTS + _varint(len(key) + len(value_field) + tensor_size) + key + value_field
                         + tensor_head)
            parts.extend(buffers)
        return b"".join(parts)

    return encode


# Decode cases: a server reading the request ----------------------------------------------------

def _shape(proto) -> list[int]:
    return [dim.size for dim in proto.tensor_shape.dim]


def _strings(proto, shape):
    if not shape:
        return proto.string_val[0]
    batch = np.empty(len(proto.string_val), dtype=object)
    batch[:] = list(proto.string_val)
    return batch.reshape(shape)


def decode_frombuffer(wire_bytes, payload):
    parse = _tfserving.messages().PredictRequest.FromString
    names = _names(payload)
    frombuffer = np.frombuffer

    def decode():
        inputs = parse(wire_bytes).inputs
        out = []
        for name in names:
            proto = inputs[name]
            shape = _shape(proto)
            if proto.dtype == DT_STRING:
                out.append(_strings(proto, shape))
            else:
                out.append(frombuffer(proto.tensor_content, dtype=NUMPY_DTYPE[proto.dtype]).reshape(shape))
        return out

    return decode


def decode_typed_val(wire_bytes, payload):
    parse = _tfserving.messages().PredictRequest.FromString
    names = _names(payload)

    def decode():
        inputs = parse(wire_bytes).inputs
        out = []
        for name in names:
            proto = inputs[name]
            values = getattr(proto, TYPED_FIELD[proto.dtype])
            if proto.dtype in BIT_PATTERNS:
                array = np.fromiter(values, dtype=np.uint16, count=len(values)).view(BIT_PATTERNS[proto.dtype])
            else:
                array = np.fromiter(values, dtype=NUMPY_DTYPE[proto.dtype], count=len(values))
            out.append(array.reshape(_shape(proto)))
        return out

    return decode


def decode_make_ndarray(wire_bytes, payload):
    parse = _tfserving.messages().PredictRequest.FromString
    make_ndarray = _tfserving.tensor_util().MakeNdarray
    names = _names(payload)

    def decode():
        inputs = parse(wire_bytes).inputs
        return [make_ndarray(inputs[name]) for name in names]

    return decode


# Declarations ----------------------------------------------------------------------------------

def _encode(impl, setup, inputs=ALL_INPUTS, tensorflow=False, unsupported=None, roundtrip=""):
    return Case(FORMAT, impl, inputs, setup, reference_decoder=_tfserving.decode_predict_request,
                requires=REQUIRES, install=INSTALL,
                libraries=TENSORFLOW_LIBRARIES if tensorflow else PROTOBUF_LIBRARIES, unsupported=unsupported or {},
                roundtrip=roundtrip)


def _decode(impl, source, setup, inputs=ALL_INPUTS, tensorflow=False, unsupported=None, roundtrip=""):
    return Case(FORMAT, impl, inputs, setup, source=source, requires=REQUIRES, install=INSTALL,
                libraries=TENSORFLOW_LIBRARIES if tensorflow else PROTOBUF_LIBRARIES, unsupported=unsupported or {},
                roundtrip=roundtrip)


BUILDERS = [  # (impl, build(payload) -> build() -> PredictRequest, inputs, needs TensorFlow)
    ("make-tensor-proto", build_make_tensor_proto, ALL_INPUTS, True),
    ("direct", build_direct, ALL_INPUTS, False),
    ("copy-from", build_copy_from, ALL_INPUTS, False),
    ("constructor", build_constructor, ALL_INPUTS, False),
    ("typed-val", build_typed_val, ARRAY_INPUTS, False),
]

CASES = [
    *(
        _encode(impl + suffix, stage(builder), inputs, tensorflow,
                unsupported=TYPED_UNSUPPORTED if inputs == ARRAY_INPUTS else None,
                roundtrip=FORMAT if impl + suffix == "make-tensor-proto" else "")
        for impl, builder, inputs, tensorflow in BUILDERS
        for suffix, stage in (("", serialised), ("-build", build_stage))
    ),
    _encode("wire", wire),
    _decode("decode-make-ndarray", "direct", decode_make_ndarray, tensorflow=True, roundtrip=FORMAT),
    _decode("decode-frombuffer", "direct", decode_frombuffer),
    _decode("decode-typed-val", "typed-val", decode_typed_val, ARRAY_INPUTS, unsupported=TYPED_UNSUPPORTED),
]
