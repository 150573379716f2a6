"""Headless Chromium for the website and JupyterLab tests: find it, start it, serve a folder.

Chromium is the Debian ``chromium`` package (``scripts/ensure-chromium`` installs it where it can);
selenium drives it through the system's ``chromedriver``, so nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aurora_course.quickref import find_chromium as find_browser

#: Flags from the project brief: no GPU, no sandbox (containers), nothing that reaches out.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)


def need_browser(found: object, message: str) -> None:
    """Skip the test when ``found`` is falsy (the browser it needs is missing), or fail it when
    ``$AURORA_REQUIRE_BROWSER`` is set (CI sets it: there a missing browser is an error)."""
    if found:
        return
    if os.environ.get("AURORA_REQUIRE_BROWSER"):
        pytest.fail(message)
    pytest.skip(message)


def find_chromium() -> tuple[str, str] | None:
    """``(chromium, chromedriver)`` paths, or ``None`` when either is missing."""
    browser = find_browser()
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A selenium ``webdriver.Chrome`` on headless Chromium, with a fresh profile; quits after."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    found = find_chromium()
    if found is None:
        raise RuntimeError(
            "chromium and chromedriver are not installed: run scripts/ensure-chromium"
        )
    browser, driver_path = found
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium must not look for drivers online
    with tempfile.TemporaryDirectory(prefix="aurora-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = browser
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
        driver.set_page_load_timeout(60)
        try:
            yield driver
        finally:
            driver.quit()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` over HTTP on a free local port; yields the base URL (ending in ``/``)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def console_errors(driver: Any) -> list[str]:
    """SEVERE browser console entries since the last call (failed requests included)."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def foreign_requests(driver: Any, origin: str) -> list[str]:
    """Resources the page loaded from anywhere but ``origin`` (the site must work offline)."""
    names = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    return [n for n in names if not n.startswith(origin) and not n.startswith("data:")]
