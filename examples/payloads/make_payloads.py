"""Write the example payloads of docs/guides/payloads.md into this directory, from code, nothing downloaded.

    python examples/payloads/make_payloads.py

- text-request.npz: a text model's request, input_ids, attention_mask and token_type_ids, int64
  [32, 512] (the values of the spec `input_ids:int64[32,512],attention_mask:int64[32,512],
  token_type_ids:int64[32,512]`: token ids within BERT's vocabulary, masks of ones then zeros);
- images-uint8-nhwc.npy: an image batch, uint8 [8, 224, 224, 3];
- images-float16-nchw.npy: the same images normalised, float16 [8, 3, 224, 224];
- jpegs/: the same eight images as JPEG files made with Pillow (a batch of BYTES);
- embeddings.npy: an embeddings response, float32 [64, 768].

The images are drawn, not noise: a gradient, a few discs and a little grain each, so that their
JPEGs are the size a photo of that size is (tens of KB), and everything is the same on every run.
The repository keeps the small files (text-request.npz, jpegs/); the others are a second away.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from serialbench.catalog.inputs import random_bytes
from serialbench.catalog.payloads import build, parse_payload

HERE = Path(__file__).resolve().parent
TEXT_SPEC = "input_ids:int64[32,512],attention_mask:int64[32,512],token_type_ids:int64[32,512]"
EMBEDDINGS_SPEC = "embeddings:float32[64,768]"
BATCH, SIDE = 8, 224
MEAN, STD = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])  # ImageNet's, as most models use


def text_request() -> dict[str, np.ndarray]:
    return {t.name: np.asarray(t.value) for t in build(parse_payload(TEXT_SPEC)).tensors}


def images() -> np.ndarray:
    """BATCH drawn RGB images, uint8 NHWC: each a gradient, three discs and a little grain."""
    y, x = np.mgrid[0:SIDE, 0:SIDE] / (SIDE - 1)
    out = np.empty((BATCH, SIDE, SIDE, 3), dtype=np.uint8)
    for index in range(BATCH):
        seed = np.frombuffer(random_bytes(f"example-image-{index}", 64), dtype=np.uint8) / 255.0
        picture = np.stack([seed[0] * x + seed[1] * y, seed[2] * (1 - x), seed[3] * y * x], axis=-1)
        for disc in range(3):
            cx, cy, radius = seed[4 + 3 * disc], seed[5 + 3 * disc], 0.1 + 0.2 * seed[6 + 3 * disc]
            inside = (x - cx) ** 2 + (y - cy) ** 2 < radius**2
            picture[inside] = seed[20 + 3 * disc : 23 + 3 * disc]
        grain = np.frombuffer(random_bytes(f"example-grain-{index}", SIDE * SIDE * 3), dtype=np.uint8)
        picture = picture * 235 + grain.reshape(SIDE, SIDE, 3) % 20
        out[index] = np.clip(picture, 0, 255).astype(np.uint8)
    return out


def normalised(batch: np.ndarray) -> np.ndarray:
    """The float16 NCHW input a vision model takes: scaled to [0, 1], normalised, channels first."""
    scaled = (batch / 255.0 - MEAN) / STD
    return scaled.transpose(0, 3, 1, 2).astype(np.float16)


def jpeg(image: np.ndarray) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(image).save(out, format="JPEG", quality=90)
    return out.getvalue()


def main() -> None:
    np.savez_compressed(HERE / "text-request.npz", **text_request())
    batch = images()
    np.save(HERE / "images-uint8-nhwc.npy", batch)
    np.save(HERE / "images-float16-nchw.npy", normalised(batch))
    jpegs = HERE / "jpegs"
    jpegs.mkdir(exist_ok=True)
    for index, image in enumerate(batch):
        (jpegs / f"image-{index}.jpg").write_bytes(jpeg(image))
    embeddings = build(parse_payload(EMBEDDINGS_SPEC)).tensors[0].value
    np.save(HERE / "embeddings.npy", np.asarray(embeddings))
    for path in sorted(HERE.glob("*.np[yz]")) + sorted(jpegs.iterdir()):
        print(f"{path.relative_to(HERE)}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
