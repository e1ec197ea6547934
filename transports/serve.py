"""The daemon: one agent served to many users until a signal, then drained.

:func:`serve_agent` serves the HTTP API on TCP (bearer token) or a Unix socket (mode 0600),
optionally the MessagePack stream protocol and a fleet's membership, and on SIGTERM/SIGINT
drains: new runs get 503, running turns may finish within the grace period, the rest are
cancelled and their clients receive a final ``error`` event saying so. What ``goliath serve``'s
flags name — the agent, its model and store, the token, the users — is resolved by
:mod:`transports.serve_command`.
"""

from __future__ import annotations

import functools
import logging
import signal
import urllib.parse
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

import trio

from goliath.agent import Agent
from goliath.errors import ConfigError

from .stream import serve_stream

if TYPE_CHECKING:
    from actors.cluster import Cluster
    from actors.runtime import Runtime

    from .users import Authenticator

__all__ = ["SERVER_EXTRA_HINT", "serve_agent", "server_stack"]

logger = logging.getLogger("goliath.serve")
SERVER_EXTRA_HINT = (
    "goliath serve needs the daemon's HTTP stack (Starlette, sse-starlette, Hypercorn), which "
    "the library alone does not install: pip install 'goliath-harness[server]'"
)
SHUTDOWN_NOTICE_SECONDS = 2.0
"""After cancelling the last turns on shutdown, how long their clients get to hear about it."""


async def serve_agent(
    agent: Agent,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    socket: str | None = None,
    stream_socket: str | None = None,
    token: str | None,
    users: Authenticator | None = None,
    allowed_hosts: Sequence[str] = (),
    grace: float = 10.0,
    stop: trio.Event | None = None,
    cluster: Cluster | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run the daemon until SIGTERM/SIGINT (or ``stop``), then drain and exit.

    Every listener — HTTP, the frame socket, the fleet membership — lives in this call's
    nursery and is closed before it returns. Shutdown: new runs are refused (``draining``),
    running turns may finish for ``grace`` seconds (a second signal cuts the grace short), the
    rest are cancelled and their clients told why, then the listeners close.

    With a ``cluster`` the daemon joins the fleet once its HTTP front door is up (other nodes
    forward requests there), and on shutdown hands its shards over before it closes.

    ``users`` are answered on HTTP and on the frame socket alike; ``allowed_hosts`` are the
    ``Host`` names HTTP answers besides IP addresses and ``localhost`` (the fleet's advertised
    name is added).
    """
    serve_http = server_stack()
    hosts = list(allowed_hosts)
    if cluster is not None and cluster.url:
        advertised = urllib.parse.urlsplit(cluster.url).hostname
        if advertised:
            hosts.append(advertised)
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with agent:
            runtime = agent.runtime
            assert runtime is not None  # started by `async with agent`
            http_closed = trio.Event()
            membership = trio.CancelScope()
            frames = trio.CancelScope()
            async with trio.open_nursery() as nursery:
                binds: list[str] = await nursery.start(
                    functools.partial(
                        serve_http,
                        runtime,
                        host=host,
                        port=port,
                        unix_socket=socket,
                        token=None if socket else token,
                        users=users,
                        allowed_hosts=hosts,
                        router=cluster,
                        shutdown_trigger=http_closed.wait,
                    )
                )
                if cluster is not None:
                    cluster.url = cluster.url or binds[0]
                    cluster.on_claim = runtime.claimed
                    cluster.on_release = functools.partial(runtime.release, shard_of=cluster.shard)

                    async def member(
                        task_status: trio.TaskStatus[Cluster] = trio.TASK_STATUS_IGNORED,
                    ) -> None:
                        with membership:
                            await cluster.serve(task_status=task_status)

                    await nursery.start(member)
                if stream_socket:

                    async def frame_socket(
                        task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
                    ) -> None:
                        with frames:
                            await serve_stream(
                                runtime,
                                path=stream_socket,
                                token=token,
                                users=users,
                                require_hello=False,  # the socket is 0600, as HTTP's is
                                task_status=task_status,
                            )

                    await nursery.start(frame_socket)
                    binds.append(f"stream+unix://{stream_socket}")
                task_status.started(binds)
                await _first(signals, stop)
                await _drain(runtime, grace, signals)
                membership.cancel()  # hand the shards over (the cluster leaves in its finally)
                frames.cancel()
                http_closed.set()


def server_stack() -> Any:
    """``transports.http.serve_http``, or a ConfigError saying which extra to install."""
    try:
        from .http import serve_http
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in ("starlette", "sse_starlette", "hypercorn"):
            raise ConfigError(SERVER_EXTRA_HINT) from exc
        raise
    return serve_http


async def _first(signals: AsyncIterator[int], stop: trio.Event | None) -> None:
    """Wait for a signal or for ``stop``, whichever comes first."""
    async with trio.open_nursery() as nursery:

        async def on_signal() -> None:
            async for _ in signals:
                break
            nursery.cancel_scope.cancel()

        async def on_event() -> None:
            if stop is not None:
                await stop.wait()
                nursery.cancel_scope.cancel()

        nursery.start_soon(on_signal)
        nursery.start_soon(on_event)


async def _drain(runtime: Runtime, grace: float, signals: AsyncIterator[int]) -> None:
    """Refuse new runs, let running ones finish within ``grace``, then cancel and tell the rest.

    A second signal during the grace period cancels the remaining turns at once.
    """
    async with trio.open_nursery() as nursery:

        async def hurry() -> None:
            async for _ in signals:
                break
            nursery.cancel_scope.cancel()

        nursery.start_soon(hurry)
        logger.info("draining: running turns may finish within %g s", grace)
        await runtime.drain(grace)
        nursery.cancel_scope.cancel()
    runtime.stop_accepting()
    runtime.stop_turns("the daemon is shutting down")
    with trio.move_on_after(SHUTDOWN_NOTICE_SECONDS):
        for ticket in runtime.running():
            await ticket.done.wait()
        await trio.sleep(0.05)  # let the last SSE frames and frames leave
