"""Headless Chromium (Debian's chromium and chromium-driver, installed by `make test`) and a
running `veil serve` for the web app's browser tests."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SCREENSHOTS = Path(os.environ.get("VEIL_SCREENSHOTS", "/tmp/veil-screenshots"))


def chromium_driver():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    assert chromium and driver_path, "Debian's chromium and chromium-driver are needed: run `make test`."
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,1000"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=driver_path), options=options)


class Server:
    """A `veil serve --port 0` process: its start URL, its origin, its log and its workspace."""

    def __init__(self, workspace: Path | None, log: Path) -> None:
        command = [sys.executable, "-m", "veil", "serve", "--port", "0"]
        if workspace is not None:
            command += ["--workspace", str(workspace)]
        self.log_path = log
        self._log = open(log, "wb")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self._log)
        line = self.process.stdout.readline().decode().strip()
        assert line.startswith("veil serve: http://127.0.0.1:"), (line, log.read_text())
        self.url = line.split(" ", 2)[2]
        self.origin = self.url.split("/?")[0]

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=20)
        self._log.close()
        return code

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    server = Server(folder / "workspace", folder / "server.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def chrome():
    driver = chromium_driver()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def screenshot(chrome, request):
    """``screenshot(name)`` saves the page as PNG under $VEIL_SCREENSHOTS (default /tmp/veil-screenshots)."""
    def take(name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{request.node.name}-{name}.png"
        assert chrome.save_screenshot(str(path)), path
        return path

    return take
