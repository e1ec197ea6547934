"""Headless Chromium for browser tests: Debian's chromium, driven by Playwright's Python API.

Playwright never downloads a browser here: it launches the system binary. Its sync API runs an
asyncio loop of its own, so a test drives the page in one worker thread (``in_browser``) while
Trio serves the daemon in the test's thread.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
import trio

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # else chromium dials out, and this network refuses it
    "--disable-component-update",
    "--disable-sync",
]
T = TypeVar("T")


def require_chromium() -> None:
    """Skip on a developer machine without chromium; in CI a missing browser is a failure."""
    if Path(CHROMIUM).exists():
        return
    message = f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def browser_page(**context: Any) -> Iterator[Any]:
    """A fresh page in a fresh headless Chromium; page errors fail the test."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(
                viewport={"width": 1200, "height": 900}, **context
            ).new_page()
            page.set_default_timeout(30_000)  # generous: CI machines are shared and slow
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            yield page
            assert not errors, f"the page raised: {errors}"
        finally:
            browser.close()


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/ (gitignored) and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


async def in_browser(script: Callable[[], T]) -> T:
    """Run a synchronous Playwright script in a worker thread while Trio keeps serving.

    The thread is never abandoned: Playwright's own timeouts (30 s per action) bound it.
    """
    return await trio.to_thread.run_sync(script)
