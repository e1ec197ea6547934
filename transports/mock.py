"""A transport whose replies come from a function: for testing clients without a runtime."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

from actors.messages import Inbound, Outbound

from .base import Transport

__all__ = ["MockTransport"]

Handler = Callable[[Inbound], "Iterable[Outbound] | Awaitable[Iterable[Outbound]]"]


class MockTransport(Transport):
    """``MockTransport(handler)``: ``handler(message)`` returns the replies (sync or async)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.sent: list[Inbound] = []

    async def send(self, message: Inbound) -> AsyncIterator[Outbound]:
        self.sent.append(message)
        result = self.handler(message)
        if inspect.isawaitable(result):
            result = await result
        for reply in result:
            yield reply
