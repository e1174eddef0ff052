"""The HTML report rendered by a real browser (headless Chromium, Debian package `chromium`): it loads
offline, draws, and the screenshot is kept for a person to look at (set REPORT_SCREENSHOT_DIR to keep
it). Skipped where Chromium is not installed; CI does not install it."""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from conformance.report.outputs import write_outputs
from oracle.spec import default_rulebook

from tests.reports.test_reports import run_of

BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
WIDTH, HEIGHT = 1400, 2400


@pytest.mark.skipif(BROWSER is None, reason="no Chromium on this machine (apt-get install chromium to run it)")
def test_report_renders_in_a_browser(tmp_path):
    page = write_outputs(run_of("stray"), tmp_path, default_rulebook())["html"][0]
    shot = Path(os.environ.get("REPORT_SCREENSHOT_DIR") or tmp_path) / "report-buggy.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    # --no-sandbox: CI and containers run as root; no network is needed (the page fetches nothing).
    subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (WIDTH, HEIGHT)
    # a blank page of that size compresses to a few KB; the report's tables, text and maps do not
    assert len(data) > 60_000, len(data)
