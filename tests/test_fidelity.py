"""fidelity: bit-for-bit equality of values, and words for what changed when they differ."""

import numpy as np
import pytest

from serialbench.catalog.edge_inputs import EDGE_INPUTS, edge_payload
from serialbench.catalog.fidelity import LOSSLESS, LOSSY, REJECTED, Fidelity, differences, fidelity, rejected
from serialbench.catalog.inputs import Payload, Tensor


def one(value) -> Payload:
    return Payload("test", "1K", (Tensor("input", value),))


def changes(value, decoded) -> str:
    return "; ".join(differences(one(value), [decoded]))


def edge(name):
    return edge_payload(name).tensors[0].value


@pytest.mark.parametrize("name", list(EDGE_INPUTS))
def test_every_edge_input_equals_a_copy_of_itself(name):
    value = edge(name)
    copy = value if isinstance(value, bytes) else value.copy()
    assert differences(edge_payload(name), [copy]) == []


@pytest.mark.parametrize("name", ["edge-strided", "edge-fortran", "edge-bigendian"])
def test_layout_is_not_a_value_a_native_c_order_copy_is_lossless(name):
    value = edge(name)
    native = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("="))
    assert changes(value, native) == ""


def test_json_null_for_nan_and_inf_is_named():
    value = edge("edge-nan")
    as_json = [[None if not np.isfinite(x) else float(x) for x in row] for row in value]
    assert changes(value, as_json) == (
        "input: array became list; NaN -> null (2 of 8 values); +Inf -> null (2 of 8 values); "
        "-Inf -> null (1 of 8 values)"
    )


def test_float32_widened_to_float64_with_the_values_kept():
    value = edge("edge-subnormal")
    assert changes(value, value.astype(np.float64)) == "input: float32 widened to float64"


def test_negative_zero_that_lost_its_sign():
    value = edge("edge-negzero")
    assert changes(value, value + np.float32(0.0)) == "input: -0.0 -> 0.0 (3 of 8 values)"


def test_nan_sign_and_payload_are_bits_too():
    value = edge("edge-nan-bits")
    canonical = np.where(np.isnan(value), np.float32(np.nan), value)
    assert changes(value, canonical) == "input: NaN sign/payload lost (3 of 4 values, e.g. -NaN -> NaN)"


def test_subnormals_flushed_to_zero():
    value = edge("edge-subnormal")
    flushed = np.where(np.abs(value) < np.finfo(np.float32).tiny, np.float32(0), value)
    assert changes(value, flushed) == "input: subnormal -> 0.0 (3 of 8 values, e.g. 1e-45 -> 0.0)"


def test_integers_past_2_to_the_53_through_float64():
    value = edge("edge-int64")
    assert changes(value, value.astype(np.float64)).startswith("input: int64 became float64; values changed (")


def test_a_0d_scalar_that_came_back_with_shape_1():
    value = edge("edge-scalar")
    assert changes(value, value.reshape(1)) == "input: shape () became (1,)"


def test_non_utf8_bytes_through_a_text_decoder():
    value = edge("edge-bytes")
    mangled = value.decode("utf-8", errors="replace").encode()
    assert changes(value, mangled) == "input: invalid UTF-8 replaced by U+FFFD"
    assert changes(value, value.decode("latin-1")) == "input: bytes became str"


def test_a_batch_of_byte_strings_names_the_element_that_changed():
    batch = edge("edge-batch")
    decoded = list(batch)
    decoded[3] = decoded[3][:-1]
    assert changes(batch, decoded) == "input: element 3: 1000 bytes became 999"


def test_a_missing_tensor():
    payload = Payload("test", "1K", (Tensor("a", b"x"), Tensor("b", b"y")))
    assert differences(payload, [b"x"]) == ["2 tensors in, 1 out"]


def test_verdicts_print_as_the_table_shows_them():
    assert str(fidelity(one(edge("edge-nan")), [edge("edge-nan").copy()])) == LOSSLESS
    lossy = fidelity(one(edge("edge-negzero")), [np.abs(edge("edge-negzero"))])
    assert lossy.status == LOSSY and str(lossy).startswith("lossy: input: -0.0 -> 0.0")
    refused = rejected(TypeError("Type is not JSON serializable:\n bytes"))
    assert refused.status == REJECTED
    assert str(refused) == "rejected: TypeError: Type is not JSON serializable: bytes"
    assert str(Fidelity(LOSSLESS, "a note")) == "lossless (a note)"
