"""Server-Sent Events as the daemon writes them, read back the way a client would.

The daemon sends one ``event:`` line and one ``data:`` line (JSON) per event; these helpers
turn a streamed response (or its whole text) into ``(name, data)`` pairs, so a test can act
on an event while the turn is still running (answer a confirmation, cancel, kill a node).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx


async def iter_sse(response: httpx.Response) -> AsyncIterator[tuple[str, Any]]:
    """Yield each event of a streaming response as it arrives."""
    name = ""
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            yield name, json.loads(line[5:])


async def sse_events(response: httpx.Response) -> list[tuple[str, Any]]:
    """Every event of a streaming response, once the stream ends."""
    return [event async for event in iter_sse(response)]


def parse_sse(text: str) -> list[tuple[str, Any]]:
    """The events in an already-read response body."""
    events: list[tuple[str, Any]] = []
    name = ""
    for line in text.splitlines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            events.append((name, json.loads(line[5:])))
    return events
