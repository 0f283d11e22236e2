"""Bit-for-bit comparison of decoded tensors with the payload they came from."""

from __future__ import annotations

import numpy as np

from serialbench.inputs import Payload


def as_wire_bytes(output) -> bytes:
    """The body an encode op produced: bytes, or the concatenation of the buffers it returned."""
    if isinstance(output, bytes):
        return output
    if isinstance(output, (bytearray, memoryview)):
        return bytes(output)
    if isinstance(output, (list, tuple)):
        return b"".join(output)
    raise TypeError(f"an encode op must return bytes or a list of buffers, not {type(output).__name__}")


def differences(payload: Payload, decoded) -> list[str]:
    """What differs between the payload and the decoded tensors; empty when bit-identical."""
    decoded = list(decoded)
    if len(decoded) != len(payload.tensors):
        return [f"{len(payload.tensors)} tensors in, {len(decoded)} out"]
    found = []
    for tensor, value in zip(payload.tensors, decoded, strict=False):
        problem = _difference(tensor.value, value)
        if problem:
            found.append(f"{tensor.name}: {problem}")
    return found


def _difference(expected, actual) -> str | None:
    if isinstance(expected, bytes):
        if isinstance(actual, np.ndarray) and actual.dtype == object and actual.size == 1:
            actual = actual.reshape(-1)[0]
        if not isinstance(actual, (bytes, bytearray, memoryview)):
            return f"bytes became {type(actual).__name__}"
        actual = bytes(actual)
        if actual == expected:
            return None
        if len(actual) != len(expected):
            return f"{len(expected)} bytes became {len(actual)}"
        return "bytes changed"
    if expected.dtype == object:
        return _batch_difference(expected, actual)
    if not isinstance(actual, np.ndarray):
        return f"array became {type(actual).__name__}"
    if actual.dtype != expected.dtype:
        return f"{expected.dtype} became {actual.dtype}"
    if actual.shape != expected.shape:
        return f"shape {expected.shape} became {actual.shape}"
    if actual.tobytes() != expected.tobytes():
        changed = int(np.count_nonzero(_raw(actual) != _raw(expected)))
        return f"values changed ({changed} bytes differ)"
    return None


def _raw(array: np.ndarray) -> np.ndarray:
    return np.frombuffer(array.tobytes(), dtype=np.uint8)


def _batch_difference(expected: np.ndarray, actual) -> str | None:
    """A batch of byte strings: compared element by element, whatever container came back."""
    actual = list(np.asarray(actual, dtype=object).reshape(-1)) if not isinstance(actual, list) else actual
    if len(actual) != expected.size:
        return f"{expected.size} byte strings became {len(actual)}"
    for index, (want, got) in enumerate(zip(expected.reshape(-1), actual)):
        problem = _difference(want, got)
        if problem:
            return f"element {index}: {problem}"
    return None
