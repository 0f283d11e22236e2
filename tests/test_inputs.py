"""The payloads are the same bytes on every run, every machine and every commit."""

import hashlib
import io

import numpy as np
import pytest
from PIL import Image

from serialbench.catalog.inputs import INPUT_KINDS, TIERS, default_inputs, make_payload

# sha256 (first 16 hex digits) of each payload's bytes, tensors concatenated in input order.
# A change here changes what every benchmark measures: it needs a reason in the changelog, not a test update.
PINNED = {
    ("float32", "1K"): "8e5a7107d71fab54", ("float32", "10K"): "3296a7cafde6c732",
    ("float32", "100K"): "8ce666b0c6c4a7ed", ("float32", "1M"): "7b7413c1ad3b82d7",
    ("png", "1K"): "9d5600e38912d4fc", ("png", "10K"): "83c838465d1eb833",
    ("png", "100K"): "e2a4dbba4b76a387", ("png", "1M"): "5cd6f550d7b3735e",
    ("int32x3", "1K"): "00a7df14834b1c5d", ("int32x3", "10K"): "f3451fcb81778f0e",
    ("int32x3", "100K"): "66f642b9345ce964", ("int32x3", "1M"): "3614674f91fb5a41",
    ("float64", "1K"): "6caac04731e53342", ("float64", "10K"): "d592723597692237",
    ("float64", "100K"): "93058d4b995fd99f", ("float64", "1M"): "011ab1f9f45e5c25",
    ("uint8", "1K"): "1ef8eb77e767690f", ("uint8", "10K"): "c5b9b6a142aa710d",
    ("uint8", "100K"): "8d41d7b10ea9856c", ("uint8", "1M"): "5597d162e9999f22",
    ("bytes-batch", "1K"): "864fb92d8cba47c9", ("bytes-batch", "10K"): "cdbe930aadfb95df",
    ("bytes-batch", "100K"): "672244131bd8e865", ("bytes-batch", "1M"): "995b63ecc1bc514c",
}


def payload_digest(payload) -> str:
    digest = hashlib.sha256()
    for tensor in payload.tensors:
        value = tensor.value
        if isinstance(value, bytes):
            digest.update(value)
        elif value.dtype == object:
            for element in value:
                digest.update(element)
        else:
            digest.update(value.tobytes())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("kind,tier", sorted(PINNED))
def test_payload_bytes_are_pinned(kind, tier):
    # PNG bytes also depend on Pillow's zlib: a mismatch on png only after a Pillow upgrade
    # means the encoder changed, not serialbench.
    assert payload_digest(make_payload(kind, tier)) == PINNED[kind, tier]


def test_every_kind_and_tier_is_pinned():
    assert set(PINNED) == {(kind, tier) for kind in INPUT_KINDS for tier in TIERS}


def test_default_run_covers_the_three_first_kinds():
    assert default_inputs() == ["float32", "png", "int32x3"]


@pytest.mark.parametrize("tier", list(TIERS))
def test_float32_has_n_elements_in_rows_of_1000(tier):
    (tensor,) = make_payload("float32", tier).tensors
    assert tensor.value.dtype == np.float32
    assert tensor.value.shape == (TIERS[tier] // 1000, 1000)
    assert np.isfinite(tensor.value).all()


@pytest.mark.parametrize("tier", list(TIERS))
def test_png_is_a_real_png_within_5_percent_of_the_tier(tier):
    (tensor,) = make_payload("png", tier).tensors
    assert abs(len(tensor.value) - TIERS[tier]) <= 0.05 * TIERS[tier]
    image = Image.open(io.BytesIO(tensor.value))
    assert image.format == "PNG"
    image.load()  # decodes every pixel: the file is complete and valid


def test_png_content_is_incompressible():
    # Random pixels: deflate cannot shrink them, so the byte count is the honest payload size.
    import zlib

    (tensor,) = make_payload("png", "100K").tensors
    assert len(zlib.compress(tensor.value, 9)) > 0.99 * len(tensor.value)


@pytest.mark.parametrize("tier", list(TIERS))
def test_int32x3_is_three_named_int32_tensors(tier):
    tensors = make_payload("int32x3", tier).tensors
    assert [t.name for t in tensors] == ["input_0", "input_1", "input_2"]
    assert all(t.value.dtype == np.int32 and t.value.size == TIERS[tier] for t in tensors)
    assert not np.array_equal(tensors[0].value, tensors[1].value)


def test_payload_arrays_are_read_only():
    (tensor,) = make_payload("float32", "1K").tensors
    with pytest.raises(ValueError):
        tensor.value[0, 0] = 1.0
