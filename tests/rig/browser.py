"""The browser rig: Debian's `chromium` and `chromium-driver` (installed by .ci/run), driven by
selenium against the stack on a loopback port (`live_server`, tests/conftest.py).

- `browser`: one headless Chromium per test module, started with the flags this closed network
  needs (no background networking, component updates, sync or QUIC: Chromium otherwise stalls
  on refused connections) and a fresh profile; without chromium, chromedriver or selenium the
  tests that name it skip, saying what to install.
- `web`: a `Visit` of the live stack for one test: `open(path, name)` loads a page and keeps a
  full-page screenshot of it as a test artefact (`.artefacts/web/<test>-<n>-<name>.png`,
  git-ignored; `STRATUS_ARTEFACTS` moves it), `serious_violations()` runs axe-core on it,
  `phone()` gives the window a phone's 375 CSS pixels and `overflow()` measures any horizontal
  scroll.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = Path(os.environ.get("STRATUS_ARTEFACTS") or ROOT / ".artefacts") / "web"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,900")
PHONE_WIDTH = 375
BAD_IMPACTS = ("serious", "critical")
MAX_SHOT_HEIGHT = 6000


def _executables() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)
    if not chromium or not driver:
        pytest.skip("browser tests need Debian's chromium and chromium-driver "
                    "(apt-get install chromium chromium-driver; .ci/run installs them)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip("browser tests need selenium (requirements-dev.txt)")
    return chromium, driver


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = _executables()
    profile = tempfile.mkdtemp(prefix="stratus-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class Visit:
    """One test's visit of the live stack in the browser (see the module's docstring)."""

    def __init__(self, driver, base_url: str, test_name: str) -> None:
        self.driver = driver
        self.base_url = base_url
        self.prefix = re.sub(r"[^A-Za-z0-9_.-]+", "-", test_name)
        self.shots = 0
        self.screenshots: list[Path] = []
        self.desktop()

    def url(self, path: str) -> str:
        return path if path.startswith("http") else self.base_url + path

    def open(self, path: str, name: str):
        self.driver.get(self.url(path))
        self.screenshot(name)
        return self.driver

    def screenshot(self, name: str) -> Path:
        """The whole page (not only the window) as a PNG artefact."""
        import base64

        self.shots += 1
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        target = ARTEFACTS / f"{self.prefix}-{self.shots:02d}-{name}.png"
        width, height = self.driver.execute_script(
            "const e = document.documentElement;"
            "return [Math.max(e.scrollWidth, e.clientWidth, 1),"
            "        Math.max(e.scrollHeight, e.clientHeight, 1)]")
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": min(height, MAX_SHOT_HEIGHT),
                     "scale": 1}})
        target.write_bytes(base64.b64decode(shot["data"]))
        self.screenshots.append(target)
        return target

    def serious_violations(self) -> list[str]:
        """axe-core's serious and critical violations on the current page, described."""
        from axe_selenium_python import Axe

        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        return [f"{v['id']} ({v['impact']}): {v['help']} at "
                f"{[n['target'] for n in v['nodes']][:3]}"
                for v in results["violations"] if v.get("impact") in BAD_IMPACTS]

    def phone(self) -> None:
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": PHONE_WIDTH, "height": 812, "deviceScaleFactor": 1, "mobile": True})

    def desktop(self) -> None:
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def overflow(self) -> int:
        """CSS pixels the page is wider than its window (0: no horizontal scroll)."""
        return int(self.driver.execute_script(
            "return document.documentElement.scrollWidth - "
            "document.documentElement.clientWidth"))


@pytest.fixture
def web(browser, live_server, request) -> Visit:
    visit = Visit(browser, live_server.base_url, request.node.name)
    yield visit
    visit.desktop()
