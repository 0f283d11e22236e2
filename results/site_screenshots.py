"""Screenshots of the site of this folder, taken with the test browser (tests/browser.py), for the README.

    python results/site_screenshots.py [OUT_DIR]      # default: results/site-screenshots/

Builds the site of results/ into a temporary folder with `python -m serialbench html`, opens the
index, the reference run, the compare and the tritonclient sweep (a step selected) in headless
Chromium, and writes one PNG each. Needs Debian's chromium and chromium-driver, and selenium.
"""

import base64
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
]


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "results" / "site-screenshots"
    why = browser.missing()
    if why:
        print(why, file=sys.stderr)
        return 1
    out.mkdir(exist_ok=True)
    site = Path(tempfile.mkdtemp(prefix="serialbench-site-")) / "site"
    subprocess.run([sys.executable, "-m", "serialbench", "html", str(ROOT / "results"), "-o", str(site)],
                   check=True, cwd=ROOT)
    with browser.chromium(1280, 900) as driver:
        for name, page, hash_, height in SHOTS:
            driver.get((site / page).as_uri() + hash_)
            time.sleep(2)  # plotly draws after the page's script; a second chart after a frame
            shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1}})
            (out / name).write_bytes(base64.b64decode(shot["data"]))
            print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
