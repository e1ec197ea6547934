"""What an asyncio server needs to run Goliath's Trio code for a request (``transports.asgi``).

One call: :func:`run_in_agent` runs an ASGI app for one request inside the agent's Trio run —
as a task of the loop's Trio guest run under asyncio (the server's ``receive``/``send`` run
back on the host loop), directly under Trio.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ._asyncio_host import on_host, running_library
from .errors import GoliathError

__all__ = ["run_in_agent"]


async def run_in_agent(
    agent: Any,
    app: Callable[[Any, Any, Any], Awaitable[None]],
    scope: Any,
    receive: Callable[[], Awaitable[Any]],
    send: Callable[[Any], Awaitable[None]],
) -> None:
    """``await app(scope, receive, send)`` where ``agent``'s runtime runs.

    Raises:
        GoliathError: the agent is not running (start it with ``async with agent:``).
    """
    if running_library() == "trio":
        await app(scope, receive, send)
        return
    host = agent._host
    if host is None:
        raise GoliathError(
            "The agent behind this app is not running: start it in the application's "
            "lifespan (`async with agent:`) before requests arrive."
        )
    loop = asyncio.get_running_loop()
    await host.call(app, scope, on_host(receive, loop), on_host(send, loop))
