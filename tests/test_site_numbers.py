"""The site's numbers read as the terminal's: site.js's formats of times, bytes, changes and multiples,
run in the real browser (tests/browser.py), give core/formatting.py's text on the same values."""

from __future__ import annotations

import math
import random
import re

import pytest

from serialbench.core.formatting import format_bytes, format_change, format_ratio, format_time
from serialbench.views import site
from tests import browser

SITE_JS = (site.ASSETS / "site.js").read_text()
PAIRS = {"fmtTime": format_time, "fmtBytes": format_bytes, "fmtChange": format_change, "fmtRatio": format_ratio}


def js_function(name: str) -> str:
    """One function of site.js's closure, as its source (two spaces in, to its closing brace)."""
    found = re.search(rf"^  function {name}\(.*?^  \}}$", SITE_JS, re.S | re.M)
    assert found, f"site.js has no function {name}"
    return found.group(0)


def values() -> dict[str, list[float]]:
    """Values as result files hold them (log-uniform over each format's range, seeded) and the unit
    boundaries either side of where a format changes its unit or its digits."""
    rng = random.Random(53)
    spread = lambda low, high, n: [10 ** rng.uniform(low, high) for _ in range(n)]  # noqa: E731
    edges = [scale * factor for scale in (1e-9, 1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9)
             for factor in (0.9994, 0.9996, 1.0, 9.994, 9.996, 10.0, 99.94, 99.96, 100.0, 999.4, 999.6)]
    return {
        "fmtTime": [0.0, *spread(-9, 1, 500), *[edge for edge in edges if 1e-10 < edge < 20]],
        "fmtBytes": [0.0, 1.0, 999.0, *[round(v) for v in spread(0, 9, 500)], *spread(0, 7, 200),  # B/op: averages
                     *[-v for v in spread(0, 5, 100)], *[edge for edge in edges if edge >= 1]],  # less the harness's
        "fmtChange": [-1.0, -2.0, 0.0, *[rng.uniform(-0.99, 3.0) for _ in range(500)],
                      *[rng.uniform(-0.01, 0.01) for _ in range(200)]],
        "fmtRatio": [0.001, 0.0099, 0.01, *spread(-2, 5, 500), 9.94, 9.96, 10.0, 999.4, 1000.6, 12345.4],
    }


@pytest.fixture(scope="module")
def chromium():
    with browser.chromium_or_skip() as driver:
        yield driver


@pytest.mark.slow  # a browser
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_site_formats_a_number_as_the_terminal_does(chromium, name):
    given = values()[name]
    script = "\n".join(js_function(f) for f in ("three", "significant3", name))
    shown = chromium.execute_script(f"{script}\nreturn arguments[0].map(v => {name}(v));", given)
    expected = [PAIRS[name](value) for value in given]
    differ = [(value, js, py) for value, js, py in zip(given, shown, expected) if js != py]
    assert not differ, f"{name} and {PAIRS[name].__name__} part on {len(differ)} of {len(given)}: {differ[:5]}"
    assert all(not math.isnan(value) for value in given)
