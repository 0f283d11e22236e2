"""Headless Chromium for the site's tests and screenshots: Debian's chromium and chromium-driver
(.ci/run installs them with apt), driven by selenium with /usr/bin/chromedriver named explicitly, so
that selenium-manager never looks for a browser to download.

Run as root, Chromium needs --no-sandbox; without the background-networking flags it reaches for the
network on its own (component updates, field trials). Each browser gets a fresh profile folder. The
performance log is on, so that a test can list every request a page made."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
         "--allow-file-access-from-files")


def missing() -> str | None:
    """Why no browser test can run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    absent = [package for package, path in (("chromium", CHROMIUM), ("chromium-driver", CHROMEDRIVER))
              if not Path(path).exists()]
    if absent:
        return (f"Debian's {' and '.join(absent)} {'is' if len(absent) == 1 else 'are'} not installed "
                f"(apt-get install {' '.join(absent)})")
    return None


@contextlib.contextmanager
def chromium(width: int = 1280, height: int = 900):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="serialbench-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@contextlib.contextmanager
def chromium_or_skip():
    """A browser at about:blank for a module's tests, or the tests skipped with what is missing."""
    import pytest

    why = missing()
    if why:
        pytest.skip(why)
    with chromium() as driver:
        driver.get("about:blank")
        yield driver


def requests(driver) -> list[str]:
    """Every URL the browser asked for since the last call (the performance log's requests)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
