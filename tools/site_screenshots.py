"""Screenshots of the site of the committed results, taken with the test browser (tests/browser.py), for
the README and the HTML report's guide.

    python tools/site_screenshots.py [--results DIR] [-o OUT_DIR]   # default: docs/results/site-screenshots/

Builds the site of DIR (docs/results/) into a temporary folder with `python -m serialbench html`,
opens the index, the reference run, the compare, the tritonclient sweep, the sweep of msgpack's
commits (a step selected in each) and the history of the committed runs in headless Chromium, and
writes one PNG each, in 256 colours (a page's few colours lose nothing seen, and the files are a
third of the size). Needs Debian's chromium and chromium-driver, and selenium.
"""

from __future__ import annotations

import argparse
import base64
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import browser  # noqa: E402

SHOTS = [  # (file, page, hash, height in pixels)
    ("index.png", "index.html", "", 640),
    ("run.png", "run-REFERENCE.html", "#input=float32&direction=encode", 1250),
    ("compare.png", "compare-tritonclient_2.45.0-tritonclient_2.46.0.html",
     "#benchmark=triton-binary%2Ftritonclient%2Fint32x3%2F1M", 1900),
    ("sweep.png", "sweep-tritonclient.html", "#benchmark=triton-binary%2Ftritonclient%2Fint32x3%2F1M&step=2.46.0",
     1500),
    ("sweep-commits.png", "sweep-msgpack-commits.html",
     "#benchmark=msgpack%2Fpackb-buffer%2Ffloat32%2F100K&step=72e65feb", 1900),
    ("history.png", "history.html", "#benchmark=triton-binary%2Ftritonclient%2Fint32x3%2F1M", 1000),
]
WIDTH = 1280


def build(results: Path) -> Path:
    """The site of the compressed result files of `results` (the committed ones: a user's own runs
    beside them are plain .json), in a new temporary folder."""
    site = Path(tempfile.mkdtemp(prefix="serialbench-site-")) / "site"
    results = results.resolve()
    shown = [path.relative_to(ROOT) if path.is_relative_to(ROOT) else path  # the pages name their files
             for path in sorted(results.glob("*.json.gz"))]
    subprocess.run([sys.executable, "-m", "serialbench", "html", *map(str, shown), "-o", str(site)], check=True,
                   cwd=ROOT)
    return site


def missing_pages(site: Path) -> list[str]:
    return [page for _, page, _, _ in SHOTS if not (site / page).exists()]


def small_png(png: bytes) -> bytes:
    """The screenshot in 256 colours, compressed as far as PNG goes."""
    out = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256).save(out, "PNG", optimize=True)
    return out.getvalue()


def shoot(site: Path, out: Path) -> list[Path]:
    written = []
    with browser.chromium(WIDTH, 900) as driver:
        for name, page, hash_, height in SHOTS:
            driver.get((site / page).as_uri() + hash_)
            time.sleep(2)  # plotly draws after the page's script; a second chart after a frame
            shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1}})
            (out / name).write_bytes(small_png(base64.b64decode(shot["data"])))
            written.append(out / name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/site_screenshots.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=ROOT / "results",
                        help="the folder of result files whose site to take (default: results/)")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "results" / "site-screenshots",
                        help="where the PNGs go (default: docs/results/site-screenshots); files there are replaced")
    args = parser.parse_args(argv)
    why = browser.missing()
    if why:
        print(f"site_screenshots: error: {why}", file=sys.stderr)
        return 2
    site = build(args.results)
    missing = missing_pages(site)
    if missing:
        print(f"site_screenshots: error: the site of {args.results} has no {', '.join(missing)}", file=sys.stderr)
        return 2
    args.output.mkdir(parents=True, exist_ok=True)
    for path in shoot(site, args.output):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
