"""Debian's Chromium under Playwright for the browser tests: one launch recipe, skipped or failed with the fix."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("VERIGROUND_CHROMIUM", "/usr/bin/chromium"))
# Without the background-networking flags Chromium keeps dialling Google on a closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@contextmanager
def launch_chromium() -> Iterator[object]:
    """A headless Chromium browser; skips with VERIGROUND_SKIP_BROWSER=1, fails naming the fix when it is missing."""
    if os.environ.get("VERIGROUND_SKIP_BROWSER") == "1":
        pytest.skip("VERIGROUND_SKIP_BROWSER=1")
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} is missing; `make test` installs Debian's chromium (scripts/install-chromium), or point "
            "VERIGROUND_CHROMIUM at a Chromium binary, or set VERIGROUND_SKIP_BROWSER=1 to skip the browser tests"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()
