"""Deterministic payloads: the same bytes on every run, every machine and every commit.

Randomness comes from SHAKE-256 of a fixed label, not from numpy's generators, whose streams
are allowed to change between numpy releases. `tests/test_inputs.py` pins every payload's
checksum.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

TIERS = {"1K": 1_000, "10K": 10_000, "100K": 100_000, "1M": 1_000_000}  # in size order

# Refuse a payload before allocating it when it would not fit comfortably. A machine with little
# memory lowers the limit with SERIALBENCH_MAX_INPUT_BYTES (pyperf workers need --inherit-environ).
MAX_INPUT_BYTES = int(os.environ.get("SERIALBENCH_MAX_INPUT_BYTES", 2**31))


# The form of a tensor's value, which decides what a wire format can carry: an ndarray of numbers,
# one byte string (a BYTES element, a TF string scalar), or a batch of byte strings (an object array).
ARRAY, BYTES, BATCH = "array", "bytes", "batch"


@dataclass(frozen=True)
class Tensor:
    """One named input of a request.

    value: an ndarray of numbers; a byte string (one BYTES element, a TF string scalar); or a
    1-d object ndarray of byte strings (a batch of BYTES elements, `bytes-batch`).
    """

    name: str
    value: np.ndarray | bytes

    @property
    def nbytes(self) -> int:
        value = self.value
        if isinstance(value, bytes):
            return len(value)
        if value.dtype == object:
            return sum(len(element) for element in value)
        return value.nbytes

    @property
    def form(self) -> str:
        """ARRAY (numbers), BYTES (one byte string) or BATCH (an object array of byte strings)."""
        if isinstance(self.value, bytes):
            return BYTES
        return BATCH if self.value.dtype == object else ARRAY


@dataclass(frozen=True)
class Payload:
    """The inputs of one request, in input order."""

    kind: str
    tier: str
    tensors: tuple[Tensor, ...]

    @property
    def input_bytes(self) -> int:
        return sum(t.nbytes for t in self.tensors)


def random_bytes(label: str, size: int) -> bytes:
    return hashlib.shake_256(label.encode()).digest(size)


def float32_array(n: int, label: str = "float32") -> np.ndarray:
    """N float32 values uniform in [-1, 1), each exactly representable, shaped (N/1000, 1000)."""
    words = np.frombuffer(random_bytes(label, 4 * n), dtype="<u4")
    values = (words >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-23) - np.float32(1.0)
    return values.reshape(_rows(n), -1)


def int32_array(n: int, label: str) -> np.ndarray:
    """N int32 values over the whole int32 range, shaped (N/1000, 1000)."""
    return np.frombuffer(random_bytes(label, 4 * n), dtype="<i4").astype(np.int32).reshape(_rows(n), -1)


def _rows(n: int) -> int:
    return max(n // 1000, 1)


def png_bytes(n: int, label: str = "") -> bytes:
    """A real RGB PNG made by Pillow of about N bytes (within 5%).

    Its pixels are random, so deflate cannot shrink it and the byte count is an honest size.
    """
    from PIL import Image

    pixels_needed = max(n - 100, 12) // 3  # PNG signature, IHDR, IDAT framing and IEND: ~100 bytes
    width = max(int(pixels_needed**0.5), 2)
    height = max(pixels_needed // width, 1)
    pixels = random_bytes(label or f"png-{n}", width * height * 3)
    image = Image.frombytes("RGB", (width, height), pixels)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=9)
    return out.getvalue()


def float64_array(n: int) -> np.ndarray:
    """N float64 values uniform in [-1, 1) with 53 random bits each, shaped (N/1000, 1000)."""
    words = np.frombuffer(random_bytes("float64", 8 * n), dtype="<u8")
    values = (words >> np.uint64(11)).astype(np.float64) * 2.0**-52 - 1.0
    return values.reshape(_rows(n), -1)


def uint8_images(n: int) -> np.ndarray:
    """N random bytes as a batch of 8-bit RGB images, shaped (batch, side, side, 3).

    1K is one 18x18 image; larger tiers are batches of 32x32 images (CIFAR-sized).
    """
    side = 18 if n < 3072 else 32
    batch = max(n // (side * side * 3), 1)
    return np.frombuffer(random_bytes("uint8", batch * side * side * 3), dtype=np.uint8).reshape(batch, side, side, 3)


def png_batch(n: int, count: int = 4) -> np.ndarray:
    """A batch of `count` different PNG strings of about N/count bytes each (an object array)."""
    batch = np.empty(count, dtype=object)
    for i in range(count):
        batch[i] = png_bytes(n // count, label=f"png-batch-{i}")
    return batch


def _float32(n: int) -> tuple[Tensor, ...]:
    return (Tensor("input", float32_array(n)),)


def _png(n: int) -> tuple[Tensor, ...]:
    return (Tensor("image", png_bytes(n)),)


def _int32x3(n: int) -> tuple[Tensor, ...]:
    return tuple(Tensor(f"input_{i}", int32_array(n, f"int32x3-{i}")) for i in range(3))


@dataclass(frozen=True)
class InputKind:
    name: str
    build: Callable[[int], tuple[Tensor, ...]]
    bytes_per_unit: int  # raw input bytes per element (or byte), to refuse oversize tiers early
    default: bool = True  # part of the default run
    form: str = ARRAY  # ARRAY, BYTES or BATCH: the form of its tensors


INPUT_KINDS: dict[str, InputKind] = {
    kind.name: kind
    for kind in (
        InputKind("float32", _float32, 4),
        InputKind("png", _png, 1, form=BYTES),
        InputKind("int32x3", _int32x3, 12),
        # Not in the default run; chosen with --input.
        InputKind("float64", lambda n: (Tensor("input", float64_array(n)),), 8, default=False),
        InputKind("uint8", lambda n: (Tensor("images", uint8_images(n)),), 1, default=False),
        InputKind("bytes-batch", lambda n: (Tensor("images", png_batch(n)),), 1, default=False, form=BATCH),
    )
}

# What a case declares it accepts (Case.inputs), by form, so that no case module keeps its own list
# and a kind added here reaches every case that carries its form.
ALL_INPUTS = tuple(INPUT_KINDS)
ARRAY_INPUTS = tuple(name for name, kind in INPUT_KINDS.items() if kind.form == ARRAY)
BYTES_INPUTS = tuple(name for name, kind in INPUT_KINDS.items() if kind.form in (BYTES, BATCH))


def default_inputs() -> list[str]:
    return [name for name, kind in INPUT_KINDS.items() if kind.default]


@cache
def make_payload(kind: str, tier: str) -> Payload:
    """The payload of one input kind at one tier (cached: prepare steps share it)."""
    input_kind = INPUT_KINDS[kind]
    n = TIERS[tier]
    needed = n * input_kind.bytes_per_unit
    if needed > MAX_INPUT_BYTES:
        raise MemoryError(f"{kind}/{tier} needs {needed:,} bytes of input, over the limit of {MAX_INPUT_BYTES:,} "
                          "(SERIALBENCH_MAX_INPUT_BYTES); nothing was allocated: choose a smaller --tier")
    tensors = input_kind.build(n)
    for tensor in tensors:
        if isinstance(tensor.value, np.ndarray):
            tensor.value.setflags(write=False)  # a case that mutates its input would corrupt the next op
    return Payload(kind, tier, tensors)


def tier_size(tier: str) -> int:
    """Elements (or bytes) of a tier: 1K -> 1000; an unknown tier from a newer file parsed as N[KMG]."""
    if tier in TIERS:
        return TIERS[tier]
    scale = {"K": 10**3, "M": 10**6, "G": 10**9}
    try:
        return int(float(tier[:-1]) * scale[tier[-1]]) if tier[-1:] in scale else int(tier)
    except ValueError:
        return 0


def tier_order(tiers) -> list[str]:
    """The distinct tiers, smallest first."""
    return sorted(set(tiers), key=lambda tier: (tier_size(tier), tier))
