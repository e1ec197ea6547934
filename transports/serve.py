"""``goliath serve``: the long-running daemon for many users.

Loads an ``Agent`` (or a factory of one) from ``MODULE:ATTR``, serves the HTTP API on TCP
(bearer token) or a Unix socket (mode 0600), optionally the MessagePack stream protocol, and on
SIGTERM/SIGINT drains: new runs get 503, running turns may finish within the grace period, the
rest are cancelled and their clients receive a final ``error`` event saying so.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import os
import secrets
import signal
import socket as socket_module
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import trio

from goliath.agent import Agent
from goliath.errors import ConfigError
from goliath.resolve import resolve_object

from .http import serve_http
from .stream import serve_stream

if TYPE_CHECKING:
    from actors.cluster import Cluster
    from actors.runtime import Runtime

__all__ = ["load_agent", "serve_agent", "serve_command"]

SHUTDOWN_NOTICE_SECONDS = 2.0
"""After cancelling the last turns on shutdown, how long their clients get to hear about it."""


async def load_agent(target: str) -> Agent:
    """``MODULE:ATTR`` → an Agent; a callable is called (sync or async) to make one."""
    value = resolve_object(target)
    if not isinstance(value, Agent) and callable(value):
        value = value()
        if inspect.isawaitable(value):
            value = await value
    if not isinstance(value, Agent):
        raise ConfigError(f"{target} is {value!r}, not a goliath.Agent or a factory returning one.")
    return value


def _with_store(agent: Agent, args: argparse.Namespace) -> tuple[Agent, Cluster | None]:
    """Keep memory and turn records in the store (turns survive a crash as `interrupted`);
    a PostgreSQL store joins this daemon to the fleet sharing it."""
    store = args.store
    if store is None:
        return agent, None
    if store.startswith("sqlite:"):
        from actors.store_sqlite import SQLiteStore

        return agent.with_options(
            memory=None, store=SQLiteStore(store.removeprefix("sqlite:"))
        ), None
    if store.startswith(("postgres://", "postgresql://")):
        from actors.cluster import Cluster
        from actors.store_postgres import PostgresStore

        postgres = PostgresStore(store, shards=args.shards)
        node_id = args.node_id or f"{socket_module.gethostname()}-{os.getpid()}"
        cluster = Cluster(
            postgres, node_id=node_id, url=args.advertise or "", interval=args.interval
        )
        return agent.with_options(memory=None, store=postgres, cluster=cluster), cluster
    raise ConfigError(f"--store {store!r}: expected sqlite:PATH or postgres://...")


async def serve_agent(
    agent: Agent,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    socket: str | None = None,
    stream_socket: str | None = None,
    token: str | None,
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
    """
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
                            await serve_stream(runtime, path=stream_socket, task_status=task_status)

                    await nursery.start(frame_socket)
                    binds.append(f"stream+unix://{stream_socket}")
                task_status.started(binds)
                await _first(signals, stop)
                await _drain(runtime, grace, signals)
                membership.cancel()  # hand the shards over (the cluster leaves in its finally)
                frames.cancel()
                http_closed.set()


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
        await runtime.drain(grace)
        nursery.cancel_scope.cancel()
    runtime.supervisor.accepting = False
    runtime.stop_turns("the daemon is shutting down")
    with trio.move_on_after(SHUTDOWN_NOTICE_SECONDS):
        for ticket in runtime.supervisor.running():
            await ticket.done.wait()
        await trio.sleep(0.05)  # let the last SSE frames and frames leave


def serve_command(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("GOLIATH_TOKEN")
    if token is None and not args.socket:
        token = secrets.token_urlsafe(24)
        print(f"goliath: no token configured; this run's token is {token}", file=sys.stderr)

    async def main() -> None:
        agent, cluster = _with_store(await load_agent(args.target), args)
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(
                functools.partial(
                    serve_agent,
                    agent,
                    host=args.host,
                    port=args.port,
                    socket=args.socket,
                    stream_socket=args.stream_socket,
                    token=token,
                    grace=args.grace,
                    cluster=cluster,
                )
            )
            print(f"goliath: serving on {', '.join(binds)}", file=sys.stderr, flush=True)

    trio.run(main)
    return 0
