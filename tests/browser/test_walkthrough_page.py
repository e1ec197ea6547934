"""The harness walkthrough opens from a file URL with the network blocked and shows all six paths."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ROOT, browser_page, require_chromium, screenshot

pytestmark = pytest.mark.slow
PAGE = ROOT / "docs" / "walkthrough.html"

EXPECTED = {
    "normal": ["Conductor — plans step 1", "Tool — list_tasks ran", "Answer — composes the reply"],
    "approval": [
        "Arguments — fills one tool's arguments",
        "Confirmation — create_task waits for a person",
        "Tool — create_task ran",
    ],
    "repeat": [
        "Tool — list_tasks served from the earlier step",
        "The judge escalates: repeated-tool-call",
        "Fallback — the cloud gets the structured record",
    ],
    "decline": ["Confirmation — create_task waits for a person", "Tool — create_task skipped"],
    "malformed": ["Conductor — a malformed plan", "Conductor — plans step 1"],
    "files": ["Tool — grep ran", "Tool — read_file ran"],
}
HANDLED_BY = {"repeat": "cloud"}


def test_the_walkthrough_steps_through_six_scenarios_offline() -> None:
    """Every scenario tab steps from its ask to its result with Next; the page asks for
    nothing from any network (every non-file request would be aborted and is recorded)."""
    require_chromium()
    attempted: list[str] = []
    seen: dict[str, list[str]] = {}
    results: dict[str, str | None] = {}

    def only_files(route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            attempted.append(route.request.url)
            route.abort()

    def note(request: Any) -> None:
        if not request.url.startswith("file:"):
            attempted.append(request.url)

    with browser_page(offline=True) as page:
        page.route("**/*", only_files)
        page.on("request", note)
        page.goto(PAGE.as_uri())
        for key in EXPECTED:
            page.click(f"#tab-{key}")
            assert page.get_attribute("body", "data-scenario") == key
            titles = [page.locator("#frame h3 .title").inner_text()]
            while page.locator("#next").is_enabled():
                page.click("#next")
                titles.append(page.locator("#frame h3 .title").inner_text())
            seen[key] = titles
            results[key] = page.get_by_test_id("handled-by").text_content()
            if key == "approval":
                page.locator("#frames button").nth(3).click()  # an earlier step, from the list
                assert "Confirmation" in page.locator("#frame h3 .title").inner_text()
                screenshot(page, "walkthrough-approval.png")
    assert not attempted, f"the page tried the network: {attempted}"
    for key, expected in EXPECTED.items():
        titles = seen[key]
        assert titles[0] == "The ask arrives" and titles[-1] == "The result", key
        for title in expected:
            assert title in titles, f"{key}: no step {title!r} in {titles}"
        assert results[key] == HANDLED_BY.get(key, "device"), key
