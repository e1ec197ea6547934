"""The front door as one Starlette application, and the Hypercorn server that serves it."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING

import msgspec
import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect
from starlette.routing import Route

from actors.runtime import RequestError, Runtime

from ..feeds import Feeds
from ..forward import Forwarder, Router
from ..openapi import openapi_document
from ..wire import HTTPError, HttpLimits
from . import ops, turns
from .api import Api
from .door import (
    _AllowedHost,
    _BearerToken,
    _FrontDoor,
    _SegmentedPath,
    logger,
    on_client_gone,
    on_http_error,
    on_request_error,
    on_starlette_error,
)

if TYPE_CHECKING:
    from ..users import Authenticator

__all__ = ["ROUTES", "create_app", "serve_http"]

ROUTES = [
    Route("/healthz", ops.healthz, methods=["GET"]),
    Route("/readyz", ops.readyz, methods=["GET"]),
    Route("/openapi.json", ops.openapi, methods=["GET"]),
    Route("/", ops.index, methods=["GET"]),
    Route("/index.html", ops.index, methods=["GET"]),
    Route("/v1/conversations/{conversation_id}/runs", turns.start_run, methods=["POST"]),
    Route("/v1/conversations/{conversation_id}/memory", turns.memory, methods=["GET", "DELETE"]),
    Route("/v1/turns/{turn_id}/confirm", turns.answer_turn, methods=["POST"]),
    Route("/v1/turns/{turn_id}/cancel", turns.answer_turn, methods=["POST"]),
    Route("/v1/turns/{turn_id}/events", turns.turn_events, methods=["GET"]),
    Route("/v1/turns/{turn_id}", turns.get_turn, methods=["GET"]),
    Route("/v1/me", ops.me, methods=["GET"]),
]
"""Every route of the API (``docs/openapi.json`` documents them)."""


def create_app(
    runtime: Runtime | Callable[[], Runtime],
    *,
    token: str | None,
    users: Authenticator | None = None,
    limits: HttpLimits | None = None,
    router: Router | None = None,
    allowed_hosts: Collection[str] = ("*",),
    writers: trio.Nursery | None = None,
) -> Starlette:
    """The ASGI application. ``token=None`` disables auth (for a 0600 Unix socket only).

    ``writers`` (the caller's nursery) runs the event streams' writes, so that one waiting on a
    client that stopped reading is given up after ``limits.send_seconds`` and the client
    dropped; without it a write waits as long as the server lets it.

    ``users`` knows the users' tokens: a request with one may touch only that user's
    conversations and turns (another's conversation is 403, another's turn 404). With
    ``token=None`` a request without a token reaches everything, and one with a user's token
    only that user's. ``allowed_hosts`` are the ``Host`` names answered besides IP literals and
    ``localhost`` (:func:`~transports.http.host_allowed`; ``serve_http`` sets it for TCP). With
    a ``router`` (a fleet membership), requests for conversations another node owns are
    forwarded to it.
    """
    bounds = limits or HttpLimits()
    app = Starlette(
        routes=ROUTES,
        middleware=[
            Middleware(_FrontDoor, limits=bounds),
            Middleware(_SegmentedPath),
            Middleware(_AllowedHost, allowed_hosts=allowed_hosts),
            Middleware(_BearerToken, token=token, users=users),
        ],
        exception_handlers={
            HTTPError: on_http_error,
            RequestError: on_request_error,
            HTTPException: on_starlette_error,
            ClientDisconnect: on_client_gone,
        },
    )
    app.state.api = Api(
        runtime=runtime if callable(runtime) else (lambda: runtime),
        bounds=bounds,
        feeds=Feeds(),
        document=msgspec.json.encode(openapi_document()),
        router=router,
        forwarder=Forwarder(router, token) if router is not None else None,
        writers=writers,
    )
    return app


async def serve_http(
    runtime: Runtime | Callable[[], Runtime],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    unix_socket: str | os.PathLike[str] | None = None,
    token: str | None,
    users: Authenticator | None = None,
    allowed_hosts: Collection[str] = (),
    limits: HttpLimits | None = None,
    router: Router | None = None,
    shutdown_trigger: Callable[[], Awaitable[None]] | None = None,
    graceful_timeout: float = 5.0,
    keep_alive_timeout: float = 30.0,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the HTTP API until ``shutdown_trigger`` returns or the caller is cancelled.

    ``await nursery.start(serve_http, runtime, port=0, token=...)`` returns the bound
    addresses (e.g. ``["http://127.0.0.1:54321"]``). With ``unix_socket`` the socket file is
    created with mode 0600 and no token is required unless one is given. An idle kept-alive
    connection is closed after ``keep_alive_timeout`` seconds.

    On TCP a request is answered only when its ``Host`` is an IP address, ``localhost`` or one
    of ``allowed_hosts`` (a web page that rebinds its own name to this address is refused with
    421); on a Unix socket, which no browser reaches, any ``Host`` is. ``users``: see
    :func:`create_app`.
    """
    from hypercorn.config import Config
    from hypercorn.trio import serve

    config = Config()
    if unix_socket is not None:
        config.bind = [f"unix:{os.fspath(unix_socket)}"]
        config.umask = 0o177
    else:
        config.bind = [f"{host}:{port}"]
    config.graceful_timeout = graceful_timeout
    config.accesslog = None
    config.errorlog = logger
    config.keep_alive_timeout = keep_alive_timeout
    async with trio.open_nursery() as writers:  # event-stream writes, each bounded in time
        app = create_app(
            runtime,
            token=token,
            users=users,
            limits=limits,
            router=router,
            allowed_hosts=("*",) if unix_socket is not None else tuple(allowed_hosts),
            writers=writers,
        )
        await serve(app, config, shutdown_trigger=shutdown_trigger, task_status=task_status)  # type: ignore[arg-type]
        writers.cancel_scope.cancel()
