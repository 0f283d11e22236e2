"""Bit-for-bit comparison of decoded tensors with the payload they came from, and what changed.

Lossless means the same values, bit for bit: the decoded tensor has the input's dtype and shape
and every element has the input's bits (NaN payloads and the sign of zero included). Memory
layout is not a value: C or Fortran order, strides and byte order may differ, so a big-endian
input decoded into a native array is lossless.

`differences()` is the runner's guard (empty when lossless). Each difference says what changed in
words a user can act on: `NaN -> null`, `float32 widened to float64`, `-0.0 -> 0.0`. `Fidelity` is
what `verify` prints for one case and input: lossless, lossy, rejected or unchecked.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from serialbench.catalog.inputs import Payload

LOSSLESS, LOSSY, REJECTED, UNCHECKED = "lossless", "lossy", "rejected", "unchecked"
# Kinds of change named one by one in a difference; past that they are counted.
MAX_CHANGES_NAMED = 3


@dataclass(frozen=True)
class Fidelity:
    """What one case does to one input: `lossless`, `lossy: <what changes>`, `rejected: <error>`,
    or `unchecked: <why>` (a case with no reference decoder, such as a baseline that writes nothing)."""

    status: str
    detail: str = ""  # for lossless, a note (the body is valid but not strict JSON)

    def __str__(self) -> str:
        if not self.detail:
            return self.status
        return f"{self.status} ({self.detail})" if self.status == LOSSLESS else f"{self.status}: {self.detail}"


def fidelity(payload: Payload, decoded) -> Fidelity:
    problems = differences(payload, decoded)
    return Fidelity(LOSSY, "; ".join(problems)) if problems else Fidelity(LOSSLESS)


def rejected(exc: BaseException) -> Fidelity:
    return Fidelity(REJECTED, library_error(exc))


def library_error(exc: BaseException | str, limit: int = 160) -> str:
    """`TypeName: message` (or the text given), on one line and at most `limit` characters."""
    if isinstance(exc, str):
        text = " ".join(exc.split())
    else:
        message = " ".join(str(exc).split())
        text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_wire_bytes(output) -> bytes:
    """The body an encode op produced: bytes, or the concatenation of the buffers it returned.

    An op that times one stage before the body exists (e.g. building a message, not serialising
    it) returns an object whose `__bytes__` finishes the body; it is called here, untimed.
    """
    if isinstance(output, bytes):
        return output
    if isinstance(output, (bytearray, memoryview)):
        return bytes(output)
    if isinstance(output, (list, tuple)):
        return b"".join(output)
    if hasattr(type(output), "__bytes__"):
        return bytes(output)
    raise TypeError(f"an encode op must return bytes, a list of buffers or an object with __bytes__, "
                    f"not {type(output).__name__}")


def differences(payload: Payload, decoded) -> list[str]:
    """What differs between the payload and the decoded tensors; empty when bit-identical."""
    decoded = list(decoded)
    if len(decoded) != len(payload.tensors):
        return [f"{len(payload.tensors)} tensors in, {len(decoded)} out"]
    found = []
    for tensor, value in zip(payload.tensors, decoded, strict=False):
        with np.errstate(all="ignore"):
            problem = _difference(tensor.value, value)
        if problem:
            found.append(f"{tensor.name}: {problem}")
    return found


def _difference(expected, actual) -> str | None:
    if isinstance(expected, bytes):
        return _bytes_difference(expected, actual)
    if expected.dtype == object:
        return _batch_difference(expected, actual)
    return _array_difference(expected, actual)


# Byte strings ------------------------------------------------------------------------------------

def _bytes_difference(expected: bytes, actual) -> str | None:
    if isinstance(actual, np.ndarray) and actual.dtype == object and actual.size == 1:
        actual = actual.reshape(-1)[0]
    if isinstance(actual, str):
        return "bytes became str"
    if not isinstance(actual, (bytes, bytearray, memoryview)):
        return f"bytes became {type(actual).__name__}"
    actual = bytes(actual)
    if actual == expected:
        return None
    replacement = "\ufffd".encode()
    if replacement in actual and replacement not in expected:
        return "invalid UTF-8 replaced by U+FFFD"
    if len(actual) != len(expected):
        return f"{len(expected)} bytes became {len(actual)}"
    first = next(i for i, (a, b) in enumerate(zip(expected, actual)) if a != b)
    return f"bytes changed (first at offset {first})"


def _batch_difference(expected: np.ndarray, actual) -> str | None:
    """A batch of byte strings: compared element by element, whatever container came back."""
    if not isinstance(actual, list):
        actual = list(np.asarray(actual, dtype=object).reshape(-1))
    if len(actual) != expected.size:
        return f"{expected.size} byte strings became {len(actual)}"
    for index, (want, got) in enumerate(zip(expected.reshape(-1), actual)):
        problem = _bytes_difference(want, got)
        if problem:
            return f"element {index}: {problem}"
    return None


# Arrays ------------------------------------------------------------------------------------------

def _array_difference(expected: np.ndarray, actual) -> str | None:
    want = _native(expected)
    if isinstance(actual, (list, tuple)):
        # A decoder that stopped at Python objects (JSON's nulls survive there).
        prefix = [f"array became {type(actual).__name__}"]
        try:
            actual = _object_array(actual)
        except ValueError:
            return prefix[0]
    elif isinstance(actual, np.ndarray):
        prefix = []
    else:
        return f"array became {type(actual).__name__}"
    got = _native(actual)
    if got.shape != want.shape:
        if got.size != want.size:
            return "; ".join([*prefix, f"shape {want.shape} became {got.shape}"])
        prefix.append(f"shape {want.shape} became {got.shape}")
        got = got.reshape(want.shape)
    if got.dtype == object:
        return "; ".join([*prefix, *_object_changes(want, got)]) or None
    shown = got  # examples show what came back, not its cast
    if got.dtype != want.dtype:
        prefix.append(_dtype_change(want.dtype, got.dtype))
        try:
            got = got.astype(want.dtype)
        except (TypeError, ValueError):  # e.g. bfloat16 read back as raw 2-byte void: no values to compare
            return "; ".join(prefix)
    changes = _value_changes(want, got, shown=shown)
    return "; ".join([*prefix, *changes]) or None


def _native(array: np.ndarray) -> np.ndarray:
    """The same values in native byte order (byte order is layout, not value)."""
    if array.dtype.byteorder not in ("=", "|"):
        return array.astype(array.dtype.newbyteorder("="))
    return array


def _object_array(values) -> np.ndarray:
    """Nested lists as an object array of their leaves (numbers and None stay Python objects)."""
    shape, level = [], values
    while isinstance(level, (list, tuple)):
        shape.append(len(level))
        level = level[0] if level else None
    array = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        leaf = values
        for depth, i in enumerate(index):
            if not isinstance(leaf, (list, tuple)) or len(leaf) != shape[depth]:
                raise ValueError("ragged nested lists")
            leaf = leaf[i]
        if isinstance(leaf, (list, tuple)):
            raise ValueError("ragged nested lists")
        array[index] = leaf
    return array


def _dtype_change(want: np.dtype, got: np.dtype) -> str:
    if want.kind == got.kind == "f":
        verb = "widened to" if got.itemsize > want.itemsize else "narrowed to"
        return f"{want} {verb} {got}"
    return f"{want} became {got}"


def _object_changes(want: np.ndarray, got: np.ndarray) -> list[str]:
    """Python objects came back: nulls are named, numbers are compared in the input's dtype."""
    flat_want, flat_got = want.reshape(-1), got.reshape(-1)
    is_null = np.fromiter((v is None for v in flat_got), dtype=bool, count=flat_got.size)
    changes = Counter(f"{_name(x) if x.dtype.kind == 'f' and not np.isfinite(x) else 'number'} -> null"
                      for x in flat_want[is_null])
    kept = flat_got[~is_null]
    try:
        numbers = np.array(list(kept), dtype=want.dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        return [*_summarise(changes, want.size), f"values are not {want.dtype} ({type(exc).__name__})"]
    rest = _value_changes(flat_want[~is_null], numbers, total=want.size)
    return [*_summarise(changes, want.size), *rest]


def _value_changes(want: np.ndarray, got: np.ndarray, total: int | None = None, shown=None) -> list[str]:
    """Elements whose bits differ, grouped by what happened to them (`got` has want's dtype and
    shape; `shown` is what the decoder returned, for the examples)."""
    total = want.size if total is None else total
    if want.size == 0:
        return []
    unsigned = f"u{want.dtype.itemsize}"
    want_bits = np.ascontiguousarray(want).reshape(-1).view(unsigned)
    got_bits = np.ascontiguousarray(got).reshape(-1).view(unsigned)
    differ = np.flatnonzero(want_bits != got_bits)
    flat_want, flat_got = want.reshape(-1), got.reshape(-1)
    flat_shown = flat_got if shown is None else shown.reshape(-1)
    changes: Counter = Counter()
    examples: dict[str, str] = {}
    for i in differ:
        change, example = _change(flat_want[i], flat_got[i], flat_shown[i])
        changes[change] += 1
        examples.setdefault(change, example)
    return _summarise(changes, total, examples)


def _change(want, got, shown) -> tuple[str, str]:
    """(what kind of change, an example of it) for one element whose bits differ."""
    example = f"{_name(want)} -> {_name(shown)}"
    if want.dtype.kind != "f":
        return "values changed", example
    if np.isnan(want) and np.isnan(got):
        return "NaN sign/payload lost", example
    if (want == 0 and got == 0) or not np.isfinite(want) or not np.isfinite(got):
        return example, example
    if np.abs(want) < np.finfo(want.dtype).tiny and got == 0:
        return "subnormal -> 0.0", example
    return "values changed", example


def _name(value) -> str:
    """A float as a user reads it, with what bit-for-bit cares about: NaN sign and payload, -0.0."""
    if value is None:
        return "null"
    if isinstance(value, np.floating) and np.isnan(value):
        bits = int(np.array(value).view(f"u{value.dtype.itemsize}"))
        mantissa_bits = np.finfo(value.dtype).nmant
        quiet = 1 << (mantissa_bits - 1)
        payload = bits & (quiet - 1)
        sign = "-" if bits >> (value.dtype.itemsize * 8 - 1) else ""
        label = f"{sign}{'NaN' if bits & quiet else 'sNaN'}"
        return f"{label}(payload {payload:#x})" if payload else label
    if isinstance(value, np.floating) and np.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if isinstance(value, np.floating) and value == 0:
        return "-0.0" if np.signbit(value) else "0.0"
    return str(value)


def _summarise(changes: Counter, total: int, examples: dict[str, str] | None = None) -> list[str]:
    named = []
    for change, count in changes.most_common(MAX_CHANGES_NAMED):
        example = (examples or {}).get(change, change)
        named.append(f"{change} ({count} of {total} values" + (f", e.g. {example})" if example != change else ")"))
    others = len(changes) - len(named)
    if others > 0:
        named.append(f"{others} other kinds of change")
    return named
