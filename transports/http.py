"""The daemon's HTTP front door: a JSON API with Server-Sent Events, on Starlette.

Starlette routes the requests and sse-starlette writes the event streams (with heartbeats for
proxies); Hypercorn serves the application on Trio (its Trio worker), the runtime's own loop.
A run streams its trace events as they happen; a write waiting for approval sends a
``confirm_request`` event and waits for ``POST /v1/turns/{turn_id}/confirm`` — the person
decides, not a callback in the server. Every route but the health checks needs the bearer
token (a Unix socket relies on its 0600 file mode instead).
"""

from __future__ import annotations

import hmac
import math
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

import msgspec
import trio
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from actors.messages import (
    Cancel,
    ConfirmReply,
    DeleteMemory,
    Failure,
    GetMemory,
    GetTurn,
    Inbound,
    MemoryReply,
    Outbound,
    ResultMessage,
    Run,
    TurnStatus,
)
from actors.runtime import RequestError, Runtime, final_message
from goliath.ids import URL_SAFE_ID, URL_SAFE_RULE

from .feeds import Feeds, TurnFeed, sse_event, wire_event
from .forward import Forwarder, Router
from .openapi import openapi_document
from .wire import (
    CancelRequestBody,
    ConfirmRequestBody,
    Health,
    HTTPError,
    HttpLimits,
    RunRequest,
    TurnInfo,
)

__all__ = ["HttpLimits", "create_app", "serve_http"]

STATUS = {
    "busy": 429,
    "draining": 503,
    "invalid": 400,
    "conversation_failed": 503,
    "not_found": 404,
    "conflict": 409,
    "forbidden": 403,
    "too_large": 413,
    "unauthorized": 401,
}
HEARTBEAT_SECONDS = 15.0
"""Idle SSE streams get a comment line this often, so proxies keep them open."""
PUBLIC_PATHS = frozenset({"/healthz", "/readyz", "/openapi.json", "/", "/index.html"})
"""The routes that need no token: health checks, the API document and the chat page."""
REQUEST_TIMEOUT_SECONDS = 30.0
"""How long a non-run request waits for the runtime's reply."""
CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'"

_encoder = msgspec.json.Encoder()
STATIC = Path(__file__).resolve().parent / "static"
Body = TypeVar("Body", RunRequest, ConfirmRequestBody, CancelRequestBody)


class JSONResponse(Response):
    """A JSON answer encoded by msgspec (Structs, RunResult and all)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else _encoder.encode(content)


def _error_response(error: HTTPError) -> Response:
    headers = {"www-authenticate": "Bearer"} if error.status == 401 else None
    return JSONResponse(error.body(), status_code=error.status, headers=headers)


def _checked_id(value: str, what: str) -> str:
    if not URL_SAFE_ID.match(value):
        raise HTTPError(400, "invalid", f"{what} {value[:40]!r} is not valid: {URL_SAFE_RULE}")
    return value


def _decode(body: bytes, kind: type[Body]) -> Body:
    if not body.strip():
        body = b"{}"
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.ValidationError as exc:
        raise HTTPError(400, "invalid", f"invalid request body: {exc}") from None
    except msgspec.DecodeError as exc:
        raise HTTPError(400, "invalid", f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise HTTPError(400, "invalid", "the body's JSON is nested too deeply") from None


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it is known to exceed ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise HTTPError(400, "invalid", "content-length is not a number") from None
        if size > limit:
            raise HTTPError(
                413, "too_large", f"the body is {size} bytes; this server accepts at most {limit}"
            )
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPError(413, "too_large", f"the body exceeds {limit} bytes")
    return bytes(body)


class _SegmentedPath:
    """Route on the raw path's segments: an encoded slash (``%2F``) stays inside its segment.

    Servers hand applications the percent-decoded path, where ``a%2Fb`` and ``a/b`` look the
    same; an id carrying ``%2F`` must reach the route as one (refused) id, not as two segments.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path")
        if scope["type"] == "http" and raw and b"%2f" in bytes(raw).lower():
            path = bytes(raw).decode("latin-1").split("?", 1)[0]
            segments = [unquote(part).replace("/", "%2F") for part in path.split("/")]
            scope = {**scope, "path": "/".join(segments)}
        await self.app(scope, receive, send)


class _BearerToken:
    """Every route but :data:`PUBLIC_PATHS` needs ``Authorization: Bearer <token>`` — checked
    before routing, so an unknown route or method without the token is a 401 too."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.token is None or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        given = Request(scope).headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode(), self.token.encode()
        ):
            await self.app(scope, receive, send)
            return
        refusal = HTTPError(
            401, "unauthorized", "a valid `Authorization: Bearer <token>` header is required"
        )
        await _error_response(refusal)(scope, receive, send)


async def _on_http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPError)
    return _error_response(exc)


async def _on_starlette_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route, wrong method) in the API's error shape."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        error = HTTPError(405, "method_not_allowed", f"{request.method} is not allowed here")
        response = _error_response(error)
        response.headers.update(exc.headers or {})
        return response
    code = "not_found" if exc.status_code == 404 else "invalid"
    message = (
        f"no route for {request.method} {request.url.path}"
        if exc.status_code == 404
        else str(exc.detail)
    )
    return _error_response(HTTPError(exc.status_code, code, message))


async def _on_client_gone(_request: Request, _exc: Exception) -> Response:
    return Response(status_code=400)  # the client left before its request was read


def create_app(
    runtime: Runtime | Callable[[], Runtime],
    *,
    token: str | None,
    limits: HttpLimits | None = None,
    router: Router | None = None,
) -> Starlette:
    """The ASGI application. ``token=None`` disables auth (for a 0600 Unix socket only).

    With a ``router`` (a fleet membership), requests for conversations another node owns are
    forwarded to it.
    """
    bounds = limits or HttpLimits()
    forwarder = Forwarder(router, token) if router is not None else None
    feeds = Feeds()
    document = _encoder.encode(openapi_document(bounds))
    get_runtime = runtime if callable(runtime) else (lambda: runtime)

    async def request_reply(message: Inbound) -> Outbound:
        """Hand a non-run request to the runtime and return its single reply."""
        send, receive = trio.open_memory_channel[Outbound](math.inf)
        try:
            await get_runtime().handle(message, send.send_nowait)
        except RequestError as exc:
            raise HTTPError(STATUS.get(exc.code, 500), exc.code, exc.message) from None
        with trio.fail_after(REQUEST_TIMEOUT_SECONDS):
            return await receive.receive()

    async def healthz(_request: Request) -> Response:
        return JSONResponse(Health(status="ok"))

    async def readyz(_request: Request) -> Response:
        live = get_runtime()
        ready = getattr(router, "ready", None)
        joined = ready is None or ready.is_set()
        if not (live.ready and live.supervisor.accepting and joined):
            raise HTTPError(503, "draining", "the daemon is starting or shutting down")
        return JSONResponse(Health(status="ready"))

    async def openapi(_request: Request) -> Response:
        return JSONResponse(document)

    async def index(_request: Request) -> Response:
        try:
            page = await trio.Path(STATIC / "chat.html").read_bytes()
        except FileNotFoundError:
            raise HTTPError(404, "not_found", "chat.html is not installed") from None
        return Response(
            page,
            media_type="text/html; charset=utf-8",
            headers={"content-security-policy": CSP},
        )

    async def start_run(request: Request) -> Response:
        cid = _checked_id(request.path_params["conversation_id"], "conversation id")
        raw = await _read_body(request, bounds.max_body_bytes)
        if forwarder is not None and (url := await forwarder.owner(request, cid)):
            return forwarder.relay(request, url, raw)
        body = _decode(raw, RunRequest)
        after = _last_event_id(request)
        resumed = feeds.get(body.turn_id) if body.turn_id is not None else None
        if resumed is not None and resumed.conversation_id == cid:
            return _event_stream(resumed, after)  # the same turn again: resume its stream
        if len(body.ask) > bounds.max_ask_chars:
            raise HTTPError(
                413,
                "too_large",
                f"the ask is {len(body.ask)} characters; the limit is {bounds.max_ask_chars}. "
                "Small models read short asks well: shorten it, or put long material in files.",
            )
        turn_id = uuid.uuid4().hex if body.turn_id is None else _checked_id(body.turn_id, "turn id")
        feed = feeds.open(turn_id, cid)
        message = Run(turn_id=turn_id, ask=body.ask, conversation_id=cid, context=body.context)
        try:
            await get_runtime().handle(message, feed.outbox)
        except RequestError as exc:
            feeds.discard(turn_id)
            raise HTTPError(STATUS.get(exc.code, 500), exc.code, exc.message) from None
        return _event_stream(feed, 0)

    async def turn_events(request: Request) -> Response:
        """A turn's stream from the event after ``Last-Event-ID`` (a reconnecting client)."""
        turn = _checked_id(request.path_params["turn_id"], "turn id")
        after = _last_event_id(request)
        feed = feeds.get(turn)
        if feed is not None:
            return _event_stream(feed, after)
        conversation = request.query_params.get("conversation_id")
        if forwarder is not None and (url := await turn_owner(request, turn, conversation)):
            return forwarder.relay(request, url, b"")
        reply = await request_reply(GetTurn(turn_id=turn))  # 404 for an unknown turn
        assert isinstance(reply, TurnStatus)
        return _event_stream(_final_feed(get_runtime(), turn, reply), after)

    async def answer_turn(request: Request) -> Response:
        turn = _checked_id(request.path_params["turn_id"], "turn id")
        action = request.url.path.rsplit("/", 1)[-1]
        raw = await _read_body(request, bounds.max_body_bytes)
        body: ConfirmRequestBody | CancelRequestBody = (
            _decode(raw, ConfirmRequestBody)
            if action == "confirm"
            else _decode(raw, CancelRequestBody)
        )
        conversation = body.conversation_id or request.query_params.get("conversation_id")
        if forwarder is not None and (url := await turn_owner(request, turn, conversation)):
            return forwarder.relay(request, url, raw)
        message: Inbound
        if isinstance(body, ConfirmRequestBody):
            message = ConfirmReply(
                turn_id=turn,
                call_id=body.call_id,
                approved=body.approved,
                reason=body.reason,
                conversation_id=conversation,
            )
        else:
            message = Cancel(turn_id=turn, reason=body.reason, conversation_id=conversation)
        await request_reply(message)
        return Response(status_code=204 if action == "confirm" else 202)

    async def get_turn(request: Request) -> Response:
        turn = _checked_id(request.path_params["turn_id"], "turn id")
        reply = await request_reply(GetTurn(turn_id=turn))
        assert isinstance(reply, TurnStatus)
        info = TurnInfo(
            turn_id=reply.turn_id,
            conversation_id=reply.conversation_id,
            status=reply.status,
            result=reply.result,
        )
        return JSONResponse(info)

    async def memory(request: Request) -> Response:
        cid = _checked_id(request.path_params["conversation_id"], "conversation id")
        if request.method == "DELETE":
            if forwarder is not None and (url := await forwarder.owner(request, cid)):
                return forwarder.relay(request, url, b"")
            await request_reply(DeleteMemory(turn_id=uuid.uuid4().hex, conversation_id=cid))
            return Response(status_code=204)
        reply = await request_reply(GetMemory(turn_id=uuid.uuid4().hex, conversation_id=cid))
        assert isinstance(reply, MemoryReply)
        return JSONResponse(reply.state)

    async def turn_owner(request: Request, turn_id: str, conversation_id: str | None) -> str | None:
        """Where a turn's confirmation or cancel must go (``None``: here)."""
        assert forwarder is not None
        live = get_runtime()
        if live.supervisor.ticket(turn_id) is not None:
            return None
        if conversation_id is None and live.journal is not None:
            record = await live.journal.get(turn_id)
            if record is None:
                return None
            conversation_id = record.conversation_id
        return await forwarder.owner(request, conversation_id)

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/", index, methods=["GET"]),
        Route("/index.html", index, methods=["GET"]),
        Route("/v1/conversations/{conversation_id}/runs", start_run, methods=["POST"]),
        Route("/v1/conversations/{conversation_id}/memory", memory, methods=["GET", "DELETE"]),
        Route("/v1/turns/{turn_id}/confirm", answer_turn, methods=["POST"]),
        Route("/v1/turns/{turn_id}/cancel", answer_turn, methods=["POST"]),
        Route("/v1/turns/{turn_id}/events", turn_events, methods=["GET"]),
        Route("/v1/turns/{turn_id}", get_turn, methods=["GET"]),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(_SegmentedPath), Middleware(_BearerToken, token=token)],
        exception_handlers={
            HTTPError: _on_http_error,
            HTTPException: _on_starlette_error,
            ClientDisconnect: _on_client_gone,
        },
    )


def _last_event_id(request: Request) -> int:
    """The ``Last-Event-ID`` a reconnecting client sends (0: from the start)."""
    raw = request.headers.get("last-event-id", "").strip(" \t")
    if not raw:
        return 0
    if not (raw.isascii() and raw.isdigit()):
        raise HTTPError(400, "invalid", f"Last-Event-ID {raw[:40]!r} is not an event id")
    return int(raw)


def _event_stream(feed: TurnFeed | _WaitingFeed, after: int) -> Response:
    return EventSourceResponse(
        feed.follow(after),
        headers={"cache-control": "no-cache", "x-goliath-turn-id": feed.turn_id},
        ping=HEARTBEAT_SECONDS,
        ping_message_factory=lambda: ServerSentEvent(comment="keep-alive", sep="\n"),
        sep="\n",
    )


def _final_feed(runtime: Runtime, turn_id: str, status: TurnStatus) -> _WaitingFeed:
    """A turn whose events were not kept here: its end, once it has one."""
    return _WaitingFeed(runtime, turn_id, status)


class _WaitingFeed:
    """Just a turn's last event (``result`` or ``error``), waiting for it when it still runs."""

    def __init__(self, runtime: Runtime, turn_id: str, status: TurnStatus) -> None:
        self.runtime = runtime
        self.turn_id = turn_id
        self.status = status

    async def follow(self, after: int = 0) -> AsyncIterator[ServerSentEvent]:
        ticket = self.runtime.supervisor.ticket(self.turn_id)
        if ticket is not None:
            await ticket.done.wait()
            message: Outbound = final_message(ticket)
        elif self.status.result is not None:
            message = ResultMessage(turn_id=self.turn_id, result=self.status.result)
        else:
            message = Failure(
                turn_id=self.turn_id,
                code="interrupted" if self.status.status == "interrupted" else "error",
                message=f"the turn is {self.status.status}; its events were not kept",
            )
        wired = wire_event(message)
        assert wired is not None
        name, payload, _ = wired
        yield sse_event(name, payload)


async def serve_http(
    runtime: Runtime | Callable[[], Runtime],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    unix_socket: str | os.PathLike[str] | None = None,
    token: str | None,
    limits: HttpLimits | None = None,
    router: Router | None = None,
    shutdown_trigger: Callable[[], Awaitable[None]] | None = None,
    graceful_timeout: float = 5.0,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the HTTP API until ``shutdown_trigger`` returns or the caller is cancelled.

    ``await nursery.start(serve_http, runtime, port=0, token=...)`` returns the bound
    addresses (e.g. ``["http://127.0.0.1:54321"]``). With ``unix_socket`` the socket file is
    created with mode 0600 and no token is required unless one is given.
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
    config.errorlog = None
    config.keep_alive_timeout = 30
    app = create_app(runtime, token=token, limits=limits, router=router)
    await serve(app, config, shutdown_trigger=shutdown_trigger, task_status=task_status)  # type: ignore[arg-type]
