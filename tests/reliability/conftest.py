"""Fixtures of the reliability suites: the daemon in-process or as a real process."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from goliath import Agent
from tests.processes import start_goliath
from transports.http import HttpLimits, serve_http

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "reliability-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}


@asynccontextmanager
async def serving(
    agent: Agent, *, limits: HttpLimits | None = None, **options: Any
) -> AsyncIterator[str]:
    """``agent`` and its HTTP front door on 127.0.0.1 (port 0); yields the base URL.

    ``options`` go to ``serve_http`` (``users``, ``allowed_hosts``, ``unix_socket``...).
    """
    async with agent, trio.open_nursery() as nursery:
        binds = await nursery.start(
            functools.partial(
                serve_http, agent.runtime, port=0, token=TOKEN, limits=limits, **options
            )
        )
        yield binds[0]
        for ticket in agent.runtime.supervisor.running():
            agent.runtime.cancel(ticket.turn_id, "test over")
        nursery.cancel_scope.cancel()


async def start_daemon_process(
    target: str = "tests.reliability.app:make_agent", *extra: str, env: dict[str, str] | None = None
) -> tuple[trio.Process, str]:
    """``goliath serve TARGET`` as a real process on 127.0.0.1; returns it and its URL."""
    process, url, _ = await start_goliath(target, "--port", "0", "--token", TOKEN, *extra, env=env)
    return process, url
