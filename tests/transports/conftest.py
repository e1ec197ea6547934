from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from goliath import Agent
from transports.http import serve_http

TOKEN = "test-token-123"


@asynccontextmanager
async def running_daemon(agent: Agent, **options: object) -> AsyncIterator[str]:
    """Start ``agent`` and its HTTP front door on 127.0.0.1 (port 0); yield the base URL."""
    async with agent, trio.open_nursery() as nursery:
        binds = await nursery.start(
            functools.partial(serve_http, agent.runtime, port=0, token=TOKEN, **options)  # type: ignore[arg-type]
        )
        yield binds[0]
        for ticket in agent.runtime.supervisor.running():
            agent.runtime.cancel(ticket.turn_id, "test over")
        nursery.cancel_scope.cancel()
