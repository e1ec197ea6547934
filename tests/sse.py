"""Server-Sent Events as the daemon writes them, read back with httpx-sse as a client would.

These helpers turn a streamed response (or its whole text) into ``(name, data)`` pairs, with
``data`` decoded from JSON, so a test can act on an event while the turn is still running
(answer a confirmation, cancel, kill a node).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from httpx_sse import EventSource


async def iter_sse(response: httpx.Response) -> AsyncIterator[tuple[str, Any]]:
    """Yield each event of a streaming response as it arrives."""
    async for event in EventSource(response).aiter_sse():
        if event.data:  # an event without data is not dispatched (the SSE standard)
            yield event.event, json.loads(event.data)


async def sse_events(response: httpx.Response) -> list[tuple[str, Any]]:
    """Every event of a streaming response, once the stream ends."""
    return [event async for event in iter_sse(response)]


def parse_sse(text: str) -> list[tuple[str, Any]]:
    """The events in an already-read response body."""
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=text.encode()
    )
    return [
        (event.event, json.loads(event.data))
        for event in EventSource(response).iter_sse()
        if event.data
    ]
