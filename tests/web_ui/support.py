"""Helpers of the browser tests: screenshots for people to look at, and bounded waits."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def screenshot(page: Page, name: str, *, settled: bool = True) -> None:
    """Save what the page shows as artifacts/screenshots/<name>.png (not committed).

    ``settled`` finishes the page's entrance animations first; pass False to catch one
    (an agent's edit flashing)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(SCREENSHOTS / f"{name}.png"), animations="disabled" if settled else "allow"
    )


def eventually(check: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    """Poll ``check`` until it holds, failing with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)
