"""Edge inputs: the small payloads that `verify` runs beside the timing inputs, never timed.

Each one isolates one thing a serializer can get wrong: special float values, shapes and memory
layouts, dtypes other than the timing ones, byte strings that are not UTF-8. Values are fixed or
come from SHAKE-256 (serialbench.inputs.random_bytes), so every run checks the same bits.

Which cases see an edge input: an edge input stands for the timing kinds whose form it shares,
and runs on every case that declares one of them.
- array edges (any dtype, shape or layout of one ndarray) stand for the array kinds: a case that
  carries float32, float64, uint8 or int32x3 arrays gets every array edge. A case that cannot
  carry, say, big-endian or bool arrays then shows `rejected: <its error>`, which is the answer a
  user needs before sending such data.
- byte-string edges stand for `png` (one BYTES element);
- batch edges stand for `bytes-batch` (a batch of byte strings).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from serialbench.catalog.inputs import ARRAY_INPUTS, BATCH, BYTES, INPUT_KINDS, Payload, Tensor, random_bytes

ARRAY_KINDS = ARRAY_INPUTS
BYTES_KINDS = tuple(name for name, kind in INPUT_KINDS.items() if kind.form == BYTES)
BATCH_KINDS = tuple(name for name, kind in INPUT_KINDS.items() if kind.form == BATCH)
EDGE_TIER = "edge"  # the Payload.tier of every edge input: they have one small size


@dataclass(frozen=True)
class EdgeInput:
    name: str
    description: str
    stands_for: tuple[str, ...]
    build: Callable[[], np.ndarray | bytes]

    def applies_to(self, accepted: Sequence[str]) -> bool:
        """Whether a case declaring these input kinds runs this edge input."""
        return any(kind in accepted for kind in self.stands_for)


def _f32(values) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def _nan_and_inf() -> np.ndarray:
    return _f32([[np.nan, np.inf, -np.inf, 1.0], [-1.0, np.nan, 0.5, np.inf]])


def _nan_bits() -> np.ndarray:
    # x86 computes inf - inf as the negative quiet NaN 0xffc00000: real data carries it. Also a
    # NaN with a payload and a signalling NaN, which a float32 -> float64 conversion quiets.
    return np.array([0xFFC00000, 0x7FC00001, 0x7FA00000, 0x3F800000], dtype="<u4").view("<f4").astype(np.float32)


def _negative_zero() -> np.ndarray:
    return _f32([[-0.0, 0.0, -0.0, 1.0], [-1.0, -0.0, 2.0, 0.0]])


def _subnormal_and_extremes() -> np.ndarray:
    info = np.finfo(np.float32)
    smallest = np.float32(info.smallest_subnormal)
    return _f32([smallest, -smallest, info.tiny - smallest, info.tiny, info.max, info.min, info.eps, 0.1])


def _random_finite(dtype: str, count: int, label: str) -> np.ndarray:
    """Random bit patterns of a float dtype, every exponent and mantissa, NaN and Inf left out."""
    dtype = np.dtype(dtype)
    raw = np.frombuffer(random_bytes(label, dtype.itemsize * count), dtype=f"<u{dtype.itemsize}")
    values = raw.view(dtype.newbyteorder("<")).astype(dtype)
    return values[np.isfinite(values)].reshape(-1)


def _float16() -> np.ndarray:
    return _random_finite("float16", 64, "edge-float16")[:48].reshape(6, 8)


def _float64() -> np.ndarray:
    return _random_finite("float64", 64, "edge-float64")[:48].reshape(6, 8)


def _int64() -> np.ndarray:
    info = np.iinfo(np.int64)
    return np.array([info.min, info.max, 2**53 + 1, -(2**53) - 1, -1, 0, 1, 2**31], dtype=np.int64).reshape(2, 4)


def _uint8() -> np.ndarray:
    return np.arange(256, dtype=np.uint8)[::-1].reshape(4, 8, 8).copy()


def _bool() -> np.ndarray:
    return np.array([[True, False, False, True], [False, True, True, False]])


def _strided() -> np.ndarray:
    base = np.arange(32, dtype=np.float32).reshape(4, 8) / np.float32(3)
    return base[:, ::2]  # a view every other column: not contiguous


def _fortran() -> np.ndarray:
    return np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4) / np.float32(7))


def _big_endian() -> np.ndarray:
    return (np.arange(8, dtype=np.float32).reshape(2, 4) / np.float32(3)).astype(">f4")


def _non_utf8() -> bytes:
    # Every byte value, NUL and lone continuation bytes included: not UTF-8, not text.
    return bytes(range(256)) + bytes(range(255, -1, -1))


def _mixed_batch() -> np.ndarray:
    from serialbench.catalog.inputs import png_bytes

    elements = [b"", b"a", _non_utf8(), b"\x00" * 1000, png_bytes(300, label="edge-batch")]
    batch = np.empty(len(elements), dtype=object)
    batch[:] = elements
    return batch


EDGE_INPUTS: dict[str, EdgeInput] = {
    edge.name: edge
    for edge in (
        EdgeInput("edge-nan", "float32 with NaN, +Inf and -Inf", ARRAY_KINDS, _nan_and_inf),
        EdgeInput("edge-nan-bits", "float32 NaNs other than the default one: -NaN, a payload, signalling",
                  ARRAY_KINDS, _nan_bits),
        EdgeInput("edge-negzero", "float32 with -0.0 beside 0.0", ARRAY_KINDS, _negative_zero),
        EdgeInput("edge-subnormal", "float32 subnormals, the smallest normal, max, min, eps",
                  ARRAY_KINDS, _subnormal_and_extremes),
        EdgeInput("edge-empty", "float32 of shape (0, 4)", ARRAY_KINDS, lambda: np.zeros((0, 4), dtype=np.float32)),
        EdgeInput("edge-scalar", "a 0-d float32 array (shape ())", ARRAY_KINDS, lambda: _f32(1.5)),
        EdgeInput("edge-single", "one float32 element, shape (1,)", ARRAY_KINDS, lambda: _f32([0.1])),
        EdgeInput("edge-strided", "a non-contiguous float32 view (every other column)", ARRAY_KINDS, _strided),
        EdgeInput("edge-fortran", "a float32 array in Fortran (column-major) order", ARRAY_KINDS, _fortran),
        EdgeInput("edge-bigendian", "big-endian float32 ('>f4')", ARRAY_KINDS, _big_endian),
        EdgeInput("edge-float16", "float16, random finite bit patterns", ARRAY_KINDS, _float16),
        EdgeInput("edge-float64", "float64, random finite bit patterns", ARRAY_KINDS, _float64),
        EdgeInput("edge-int64", "int64 extremes and integers past 2**53", ARRAY_KINDS, _int64),
        EdgeInput("edge-uint8", "uint8, every value 0..255", ARRAY_KINDS, _uint8),
        EdgeInput("edge-bool", "bool", ARRAY_KINDS, _bool),
        EdgeInput("edge-bytes", "one byte string of every byte value: not UTF-8", BYTES_KINDS, _non_utf8),
        EdgeInput("edge-bytes-empty", "one empty byte string", BYTES_KINDS, lambda: b""),
        EdgeInput("edge-batch", "byte strings of mixed lengths: empty, 1, 512, 1000 NULs, a PNG",
                  BATCH_KINDS, _mixed_batch),
    )
}


@cache
def edge_payload(name: str) -> Payload:
    """The payload of one edge input (read-only, like every payload: a case must not mutate it)."""
    value = EDGE_INPUTS[name].build()
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    if isinstance(value, bytes):
        tensor_name = "image"  # the names the timing kinds use: png, bytes-batch, arrays
    else:
        tensor_name = "images" if value.dtype == object else "input"
    return Payload(name, EDGE_TIER, (Tensor(tensor_name, value),))


def edges_for(accepted: Sequence[str]) -> list[str]:
    """The edge inputs a case declaring these input kinds runs, in table order."""
    return [name for name, edge in EDGE_INPUTS.items() if edge.applies_to(accepted)]
