"""Property tests: hypothesis looks for an input that breaks what `verify` says is lossless.

For each case, the edge inputs it round-trips losslessly (serialbench/catalog/edge_inputs.py) define its
domain: the dtypes, shapes, memory layouts and special float values it claims to carry. Within
that domain hypothesis draws small arrays (and byte strings, for cases that carry them) and checks
decode(encode(x)) == x bit for bit, with the same check `verify` and the runner's guard use.
A case that is lossy on an edge input is not tested there: verify already reports it.

Few examples per case and arrays of at most 4x4x4 elements keep the run short; the examples are
derandomized so CI sees the same ones every time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays, from_dtype

from serialbench.catalog.edge_inputs import edge_payload, edges_for
from serialbench.catalog.fidelity import LOSSLESS
from serialbench.catalog.fidelity_check import check
from serialbench.catalog.inputs import INPUT_KINDS, Payload, Tensor
from serialbench.catalog.registry import select

CASES = select(inputs=",".join(INPUT_KINDS))[1]
DTYPE_EDGES = {
    "float32": "edge-single", "float16": "edge-float16", "float64": "edge-float64",
    "int64": "edge-int64", "uint8": "edge-uint8", "bool": "edge-bool",
}
SPECIALS = [float("nan"), float("inf"), float("-inf")]


@dataclass(frozen=True)
class Domain:
    """What a case carries losslessly, according to its verify verdicts on the edge inputs."""

    dtypes: tuple[str, ...]
    edges: frozenset[str]

    def has(self, edge: str) -> bool:
        return edge in self.edges

    @property
    def raw_float_bits(self) -> bool:
        """Every float bit pattern: NaN payloads, -0.0, subnormals, infinities."""
        return {"edge-nan", "edge-nan-bits", "edge-negzero", "edge-subnormal"} <= self.edges

    @property
    def layouts(self) -> list[str]:
        return ["C"] + [layout for layout, edge in (("F", "edge-fortran"), ("strided", "edge-strided"),
                                                    (">", "edge-bigendian")) if edge in self.edges]


def case_by_label(label: str):
    return next(c for c in CASES if c.label == label)


@cache
def domain(label: str) -> Domain:
    case = case_by_label(label)
    lossless = frozenset(name for name in edges_for(case.inputs)
                         if check(case, edge_payload(name), CASES).status == LOSSLESS)
    dtypes = tuple(dtype for dtype, edge in DTYPE_EDGES.items() if edge in lossless)
    return Domain(dtypes, lossless)


@st.composite
def array_values(draw, d: Domain) -> np.ndarray:
    dtype = np.dtype(draw(st.sampled_from(d.dtypes)))
    shape = draw(array_shapes(min_dims=0 if d.has("edge-scalar") else 1, max_dims=3,
                              min_side=0 if d.has("edge-empty") else 1, max_side=4))
    if dtype.kind == "f" and d.raw_float_bits:
        value = draw(arrays(np.dtype(f"u{dtype.itemsize}"), shape)).view(dtype)
    else:
        value = draw(arrays(dtype, shape, elements=element_values(dtype, d)))
    layout = draw(st.sampled_from(d.layouts))
    if layout == "F":
        value = np.asfortranarray(value)
    elif layout == "strided" and value.ndim:
        spaced = np.zeros(value.shape[:-1] + (2 * value.shape[-1],), dtype=value.dtype)
        spaced[..., ::2] = value
        value = spaced[..., ::2]
    elif layout == ">":
        value = value.astype(value.dtype.newbyteorder(">"))
    return value


def element_values(dtype: np.dtype, d: Domain):
    if dtype.kind != "f":
        return from_dtype(dtype)
    values = from_dtype(dtype, allow_nan=False, allow_infinity=False, allow_subnormal=d.has("edge-subnormal"))
    if d.has("edge-nan"):
        values = st.one_of(values, st.sampled_from(SPECIALS))
    if not d.has("edge-negzero"):
        values = values.map(lambda x: 0.0 if x == 0 else x)
    return values


def byte_batch(elements: list[bytes]) -> np.ndarray:
    batch = np.empty(len(elements), dtype=object)
    batch[:] = elements
    return batch


def tensor_values(d: Domain):
    options = []
    if d.dtypes:
        options.append(array_values(d).map(lambda v: Tensor("input", v)))
    if d.has("edge-bytes") and d.has("edge-bytes-empty"):
        options.append(st.binary(max_size=64).map(lambda v: Tensor("image", v)))
    if d.has("edge-batch"):
        options.append(st.lists(st.binary(max_size=32), min_size=1, max_size=4)
                       .map(lambda v: Tensor("images", byte_batch(v))))
    return st.one_of(options) if options else None


# TensorFlow raises the recursion limit when make-tensor-proto first imports it; hypothesis warns.
@pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")
@pytest.mark.parametrize("label", [case.label for case in CASES])
@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_decode_of_encode_is_the_input_bit_for_bit(label, data):
    tensors = tensor_values(domain(label))
    if tensors is None:
        pytest.skip(f"{label} is lossless on no edge input: verify reports what it does")
    tensor = data.draw(tensors)
    if isinstance(tensor.value, np.ndarray):
        tensor.value.setflags(write=False)  # as every payload: a case must not write into its input
    payload = Payload("hypothesis", "edge", (tensor,))
    result = check(case_by_label(label), payload, CASES)
    assert result.status == LOSSLESS, f"{label}: {result} for {tensor.value!r}"
