"""The daemon's HTTP front door: a JSON API with Server-Sent Events, on Starlette.

Starlette routes the requests and sse-starlette writes the event streams (with heartbeats for
proxies); Hypercorn serves the application on Trio (its Trio worker), the runtime's own loop.
A run streams its trace events as they happen; a write waiting for approval sends a
``confirm_request`` event and waits for ``POST /v1/turns/{turn_id}/confirm`` — the person
decides, not a callback in the server. Every route but the health checks needs the bearer
token (a Unix socket relies on its 0600 file mode instead): the daemon's own, which reaches
everything, or a user's (``users``), which reaches only that user's conversations. On TCP only
requests whose ``Host`` the daemon serves are answered (a DNS-rebinding page is refused).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import math
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

import msgspec
import trio
from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.sse import SendTimeoutError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
from actors.runtime import (
    Access,
    RequestError,
    Runtime,
    final_message,
    scoped_turn_id,
    turn_scope,
    unscoped,
)
from goliath.durable import payload_fingerprint
from goliath.ids import URL_SAFE_ID, URL_SAFE_RULE

from .feeds import Feeds, TurnFeed, sse_event, wire_event
from .forward import Forwarder, Router, hops
from .openapi import openapi_document
from .wire import (
    MAX_EVENT_ID_DIGITS,
    MAX_NESTING,
    CancelRequestBody,
    ConfirmRequestBody,
    Health,
    HTTPError,
    HttpLimits,
    Me,
    RunRequest,
    TurnInfo,
    too_deep,
)

if TYPE_CHECKING:
    from actors.ticket import Ticket

    from .users import Authenticator

__all__ = ["HttpLimits", "create_app", "host_allowed", "serve_http"]

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
    "misdirected": 421,
}
logger = logging.getLogger("goliath.http")
"""Where the front door logs what it cannot answer (a 500) and Hypercorn's own errors."""
HEARTBEAT_SECONDS = 15.0
"""Idle SSE streams get a comment line this often, so proxies keep them open."""
PUBLIC_PATHS = frozenset({"/healthz", "/readyz", "/openapi.json", "/", "/index.html"})
"""The routes that need no token: health checks, the API document and the chat page."""
REQUEST_TIMEOUT_SECONDS = 30.0
"""How long a non-run request waits for the runtime's reply."""
CSP = (
    "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; "
    "frame-ancestors 'none'"
)
"""The chat page's policy: its own origin only, and never inside another page's frame."""
LAST_SEND_SECONDS = 10.0
"""How long the last send of an event stream may take once shielded from cancellation."""
DRAIN_SECONDS = 2.0
"""How long a refused request's unread body may take to drain (else its connection closes)."""
ACCESS = "goliath.access"
"""The scope key where the token check leaves who is asking (``None``: the operator)."""

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


def host_allowed(value: str | None, allowed: Collection[str]) -> bool:
    """Whether a request's ``Host`` header names this daemon.

    An IP literal and ``localhost`` always do (a page on another site cannot send them: its
    requests carry its own name, even once that name resolves to 127.0.0.1 — DNS rebinding);
    any other name only when it is in ``allowed`` (``"*"`` allows every name). A request without
    a ``Host`` (HTTP/1.0) is no browser's and is allowed.
    """
    if value is None:
        return True
    name = value.strip().lower()
    if name.startswith("["):  # [::1]:8765
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.rsplit(":", 1)[0]
    name = name.rstrip(".")
    if name == "localhost" or "*" in allowed or name in {host.lower() for host in allowed}:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _access(request: Request) -> Access | None:
    """Who is asking, as the token check found: ``None`` for the operator (everything)."""
    access: Access | None = request.scope.get(ACCESS)
    return access


def _allowed(access: Access | None, conversation_id: str) -> None:
    """Refuse a user's request for a conversation that is not theirs before anything else
    (before forwarding it, too)."""
    if access is not None and not access.allows(conversation_id):
        raise HTTPError(
            403, "forbidden", f"{access.name} may not use conversation {conversation_id!r}"
        )


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
        raise HTTPError(
            400,
            "invalid",
            f"the body's JSON is nested too deeply: the limit is {MAX_NESTING} levels",
        ) from None


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


class _FrontDoor:
    """The edge of every request, outside the routes.

    - A failure nobody answered (a bug) is logged with its traceback on ``goliath.http`` and
      answered with a JSON 500; the daemon goes on.
    - A request refused before its body was read has a small body drained, so a kept-alive
      client's next request finds the connection usable; a large or endless one is answered
      with ``Connection: close`` instead.
    """

    def __init__(self, app: ASGIApp, limits: HttpLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        received = False  # the request's body was read to its end

        async def reading() -> Message:
            nonlocal received
            message = await receive()
            received = received or (
                message["type"] == "http.request" and not message.get("more_body", False)
            )
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if message["status"] >= 400 and not received:
                    kept = message["status"] != 413 and await _drained(scope, reading, self.limits)
                    if not kept:
                        headers = [*message.get("headers", []), (b"connection", b"close")]
                        message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, reading, sending)
        except Exception as exc:
            if started and isinstance(exc, SendTimeoutError):
                # a client that stopped reading its event stream: dropped, as the frame socket
                # drops one (its turn goes on, and its stream can be resumed)
                logger.info(
                    "%s %s: dropped a client that read nothing for %g s",
                    scope.get("method"),
                    _path(scope),
                    self.limits.send_seconds,
                )
                return
            if started and isinstance(exc, _CLIENT_LEFT):
                # The client left while its answer was sent (Hypercorn closes the socket as it
                # sees the client's end, racing the answer's last send): nobody to answer.
                logger.info("%s %s: the client left mid-answer", scope.get("method"), _path(scope))
                return
            # a bug: logged with its traceback, answered 500, the daemon goes on
            logger.exception("%s %s failed", scope.get("method"), _path(scope))
            if not started:
                error = HTTPError(500, "error", "the daemon failed to answer; its log says why")
                await _error_response(error)(scope, reading, sending)


_CLIENT_LEFT = (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError)


def _path(scope: Scope) -> str:
    return str(scope.get("path"))[:200]


async def _drained(scope: Scope, receive: Receive, bounds: HttpLimits) -> bool:
    """Read and drop what is left of a request's body (within the body limit, briefly); whether
    it was all read, so that the connection can be kept alive."""
    headers = Request(scope).headers
    declared = headers.get("content-length")
    if declared is None and headers.get("transfer-encoding") is None:
        return True  # no body
    if declared is not None and (
        not declared.strip().isdigit() or int(declared) > bounds.max_body_bytes
    ):
        return False
    size = 0
    with trio.move_on_after(DRAIN_SECONDS):
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return False
            size += len(message.get("body", b""))
            if size > bounds.max_body_bytes:
                return False
            if not message.get("more_body", False):
                return True
    return False


class _AllowedHost:
    """Only requests whose ``Host`` names this daemon are answered (:func:`host_allowed`): a
    DNS-rebinding page is refused with 421 before anything else, health checks included."""

    def __init__(self, app: ASGIApp, allowed_hosts: Collection[str]) -> None:
        self.app = app
        self.allowed_hosts = tuple(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = Request(scope).headers.get("host")
            if not host_allowed(host, self.allowed_hosts):
                refusal = HTTPError(
                    421,
                    "misdirected",
                    f"this daemon does not serve the host {(host or '')[:60]!r}; reach it by IP "
                    "address or localhost, or start it with --allowed-host NAME",
                )
                await _error_response(refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class _BearerToken:
    """Every route but :data:`PUBLIC_PATHS` needs ``Authorization: Bearer <token>`` — checked
    before routing, so an unknown route or method without the token is a 401 too.

    The daemon's own token reaches everything; a user's (``users``) only that user's
    conversations (who is asking is left in the scope, :data:`ACCESS`). With ``token=None`` (the
    0600 Unix socket) a request without a token reaches everything, one with a user's token
    only that user's, and one with any other token is refused. A malformed ``x-goliath-hops``
    is a 400 here, on every node, owner or not.
    """

    def __init__(self, app: ASGIApp, token: str | None, users: Authenticator | None) -> None:
        self.app = app
        self.token = token
        self.users = users

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        headers = Request(scope).headers
        try:
            access = self.authorize(headers.get("authorization"))
            hops(headers)
        except HTTPError as refusal:
            await _error_response(refusal)(scope, receive, send)
            return
        await self.app({**scope, ACCESS: access}, receive, send)

    def authorize(self, given: str | None) -> Access | None:
        """Who is asking: ``None`` for the operator (everything), else a user's access."""
        if given is None and self.token is None:
            return None  # the 0600 Unix socket
        scheme, _, value = (given or "").partition(" ")
        value = value.strip()
        if scheme.lower() == "bearer" and value:
            if self.token is not None and hmac.compare_digest(value.encode(), self.token.encode()):
                return None
            user = self.users.authenticate(value) if self.users is not None else None
            if user is not None:
                return user
        raise HTTPError(
            401, "unauthorized", "a valid `Authorization: Bearer <token>` header is required"
        )


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
    ``localhost`` (:func:`host_allowed`; ``serve_http`` sets it for TCP). With a ``router`` (a
    fleet membership), requests for conversations another node owns are forwarded to it.
    """
    bounds = limits or HttpLimits()
    forwarder = Forwarder(router, token) if router is not None else None
    feeds = Feeds()
    document = _encoder.encode(openapi_document(bounds))
    get_runtime = runtime if callable(runtime) else (lambda: runtime)

    async def request_reply(message: Inbound, access: Access | None) -> Outbound:
        """Hand a non-run request to the runtime and return its single reply."""
        send, receive = trio.open_memory_channel[Outbound](math.inf)
        try:
            await get_runtime().handle(message, send.send_nowait, access)
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
            headers={
                "content-security-policy": CSP,
                "x-frame-options": "DENY",  # for browsers that ignore frame-ancestors
            },
        )

    async def me(request: Request) -> Response:
        access = _access(request)
        return JSONResponse(
            Me(
                user=access.name if access is not None else None,
                conversations=getattr(access, "conversations", ""),
            )
        )

    async def start_run(request: Request) -> Response:
        cid = _checked_id(request.path_params["conversation_id"], "conversation id")
        access = _access(request)
        _allowed(access, cid)
        raw = await _read_body(request, bounds.max_body_bytes)
        if forwarder is not None and (url := await forwarder.owner(request, cid)):
            return forwarder.relay(request, url, raw)
        body = _decode(raw, RunRequest)
        if (deep := too_deep(body.context)) is not None:
            raise HTTPError(400, "invalid", deep)
        after = _last_event_id(request)
        payload = payload_fingerprint(body.ask, body.context)
        resumed = (
            feeds.get(scoped_turn_id(access, body.turn_id)) if body.turn_id is not None else None
        )
        if resumed is None and body.turn_id is not None:  # after a restart: its kept events
            live = live_turn(scoped_turn_id(access, body.turn_id), access)
            if live is not None and live.conversation_id == cid and live.payload == payload:
                resumed = rejoined(live, body.turn_id, access)
        if resumed is not None:  # the same turn again: resume its stream
            if resumed.conversation_id != cid:
                raise HTTPError(
                    409, "conflict", f"turn id {body.turn_id!r} belongs to another conversation"
                )
            if resumed.payload and resumed.payload != payload:
                raise HTTPError(
                    409,
                    "conflict",
                    f"turn id {body.turn_id!r} was used for another request (a different ask or "
                    "context); a turn id names one request — use a new id for a new ask",
                )
            return _event_stream(resumed, after, bounds.send_seconds, writers)
        if len(body.ask) > bounds.max_ask_chars:
            raise HTTPError(
                413,
                "too_large",
                f"the ask is {len(body.ask)} characters; the limit is {bounds.max_ask_chars}. "
                "Small models read short asks well: shorten it, or put long material in files.",
            )
        turn_id = uuid.uuid4().hex if body.turn_id is None else _checked_id(body.turn_id, "turn id")
        key = scoped_turn_id(access, turn_id)
        feed = feeds.open(turn_id, cid, payload, key=key)
        message = Run(turn_id=turn_id, ask=body.ask, conversation_id=cid, context=body.context)
        try:
            await get_runtime().handle(message, feed.outbox, access)
        except RequestError as exc:
            feeds.discard(key)
            raise HTTPError(STATUS.get(exc.code, 500), exc.code, exc.message) from None
        return _event_stream(feed, 0, bounds.send_seconds, writers)

    async def turn_events(request: Request) -> Response:
        """A turn's stream from the event after ``Last-Event-ID`` (a reconnecting client)."""
        turn = _checked_id(request.path_params["turn_id"], "turn id")
        after = _last_event_id(request)
        access = _access(request)
        key = scoped_turn_id(access, turn)
        feed = feeds.get(key)
        if feed is None and (live := live_turn(key, access)) is not None:
            feed = rejoined(live, turn, access)  # after a restart: its kept events, then on
        if feed is not None:
            if access is not None and not access.allows(feed.conversation_id):
                raise HTTPError(404, "not_found", f"no turn {turn!r}")  # nothing leaks
            return _event_stream(feed, after, bounds.send_seconds, writers)
        conversation = request.query_params.get("conversation_id")
        if forwarder is not None and (url := await turn_owner(request, key, conversation)):
            return forwarder.relay(request, url, b"")
        reply = await request_reply(GetTurn(turn_id=turn), access)  # 404 for an unknown turn
        assert isinstance(reply, TurnStatus)
        return _event_stream(
            _final_feed(get_runtime(), key, reply, turn_scope(access)),
            after,
            bounds.send_seconds,
            writers,
        )

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
        key = scoped_turn_id(_access(request), turn)
        if forwarder is not None and (url := await turn_owner(request, key, conversation)):
            return forwarder.relay(request, url, raw)
        message: Inbound
        if isinstance(body, ConfirmRequestBody):
            message = ConfirmReply(
                turn_id=turn,
                call_id=body.call_id,
                approved=body.approved,
                reason=body.reason,
                conversation_id=conversation,
                fingerprint=body.fingerprint,
            )
        else:
            message = Cancel(turn_id=turn, reason=body.reason, conversation_id=conversation)
        await request_reply(message, _access(request))
        return Response(status_code=204 if action == "confirm" else 202)

    async def get_turn(request: Request) -> Response:
        turn = _checked_id(request.path_params["turn_id"], "turn id")
        reply = await request_reply(GetTurn(turn_id=turn), _access(request))
        assert isinstance(reply, TurnStatus)
        info = TurnInfo(
            turn_id=reply.turn_id,
            conversation_id=reply.conversation_id,
            status=reply.status,
            result=reply.result,
            pending=reply.pending,
            steps=list(reply.steps) if reply.result is None else [],
        )
        return JSONResponse(info)

    async def memory(request: Request) -> Response:
        cid = _checked_id(request.path_params["conversation_id"], "conversation id")
        access = _access(request)
        _allowed(access, cid)
        if request.method == "DELETE":
            if forwarder is not None and (url := await forwarder.owner(request, cid)):
                return forwarder.relay(request, url, b"")
            await request_reply(DeleteMemory(turn_id=uuid.uuid4().hex, conversation_id=cid), access)
            return Response(status_code=204)
        reply = await request_reply(
            GetMemory(turn_id=uuid.uuid4().hex, conversation_id=cid), access
        )
        assert isinstance(reply, MemoryReply)
        return JSONResponse(reply.state)

    def live_turn(key: str, access: Access | None) -> Ticket | None:
        """A remote turn running (or paused) here that this front door keeps no feed for: one
        resumed after a restart, whose events so far are in its journalled log."""
        ticket = get_runtime().supervisor.ticket(key)
        if ticket is None or not ticket.is_remote or ticket.done.is_set():
            return None
        if ticket.conversation_id is None:
            return None
        if access is not None and not access.allows(ticket.conversation_id):
            return None
        return ticket

    def rejoined(ticket: Ticket, turn_id: str, access: Access | None) -> TurnFeed:
        """A feed for ``ticket`` numbered as its first one was: its ``turn`` event, the events
        and asks it sent so far (from its log, kept in the store across a restart), then what
        comes next — so a client resuming with ``Last-Event-ID`` sees the pending question."""
        assert ticket.conversation_id is not None
        scope = turn_scope(access)
        feed = feeds.open(turn_id, ticket.conversation_id, ticket.payload, key=ticket.turn_id)

        def forward(message: Outbound) -> None:
            feed.outbox(unscoped(message, scope))

        for message in ticket.follow(forward):
            forward(message)
        return feed

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
        Route("/v1/me", me, methods=["GET"]),
    ]
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(_FrontDoor, limits=bounds),
            Middleware(_SegmentedPath),
            Middleware(_AllowedHost, allowed_hosts=allowed_hosts),
            Middleware(_BearerToken, token=token, users=users),
        ],
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
    if not (raw.isascii() and raw.isdigit()) or len(raw) > MAX_EVENT_ID_DIGITS:
        raise HTTPError(
            400,
            "invalid",
            f"Last-Event-ID {raw[:40]!r} is not an event id (at most {MAX_EVENT_ID_DIGITS} digits)",
        )
    return int(raw)


class _ClosingEventSourceResponse(EventSourceResponse):
    """sse-starlette's response, with its last send shielded so finished connections close.

    The last send (``more_body: False``) ends the response, and Hypercorn closes the
    connection — or recycles it with its keep-alive timer — inside that very send. Doing so
    wakes the response's disconnect watcher, whose cancellation of the response's task group
    would cut the send short: the connection then stayed open forever, its keep-alive timer
    never set (200 finished runs held 200 descriptors).
    """

    writers: trio.Nursery | None = None
    send_seconds: float = math.inf

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        writers, limit = self.writers, self.send_seconds

        async def bounded(message: Message) -> None:
            """One write, given up after ``send_seconds`` (a client that does not read).

            Hypercorn shields its socket writes from cancellation, so a write to a client
            that never reads would wait forever; it runs in the front door's ``writers``
            nursery instead, and when it is given up the response ends with
            ``SendTimeoutError``: Hypercorn then closes the connection, which ends the write.
            """
            if writers is None or not math.isfinite(limit):
                await send(message)
                return
            written = trio.Event()
            failed: list[Exception] = []

            async def write() -> None:
                try:
                    await send(message)
                except Exception as exc:  # handed to the response, which raises it
                    failed.append(exc)
                finally:
                    written.set()

            writers.start_soon(write)
            with trio.move_on_after(limit):
                await written.wait()
            if not written.is_set():
                raise SendTimeoutError()
            if failed:
                raise failed[0]

        async def send_last_whole(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                with trio.move_on_after(LAST_SEND_SECONDS, shield=True):
                    await bounded(message)
                return
            await bounded(message)

        await super().__call__(scope, receive, send_last_whole)


def _event_stream(
    feed: TurnFeed | _WaitingFeed,
    after: int,
    send_seconds: float,
    writers: trio.Nursery | None = None,
) -> Response:
    """A turn's events as SSE; a client that does not read for ``send_seconds`` is dropped
    (its turn goes on; its stream can be resumed)."""
    response = _ClosingEventSourceResponse(
        feed.follow(after),
        headers={"cache-control": "no-cache", "x-goliath-turn-id": feed.turn_id},
        ping=HEARTBEAT_SECONDS,
        ping_message_factory=lambda: ServerSentEvent(comment="keep-alive", sep="\n"),
        sep="\n",
    )
    response.writers = writers
    response.send_seconds = send_seconds
    return response


def _final_feed(runtime: Runtime, key: str, status: TurnStatus, scope: str) -> _WaitingFeed:
    """A turn whose events were not kept here: its end, once it has one."""
    return _WaitingFeed(runtime, key, status, scope)


class _WaitingFeed:
    """Just a turn's last event (``result`` or ``error``), waiting for it when it still runs.

    ``key`` is the runtime's id of the turn; ``status`` (and :attr:`turn_id`) are as its
    caller sees them (``scope`` taken off: :func:`actors.runtime.turn_scope`).
    """

    def __init__(self, runtime: Runtime, key: str, status: TurnStatus, scope: str = "") -> None:
        self.runtime = runtime
        self.key = key
        self.scope = scope
        self.turn_id = status.turn_id
        self.status = status

    async def follow(self, after: int = 0) -> AsyncIterator[ServerSentEvent]:
        ticket = self.runtime.supervisor.ticket(self.key)
        if ticket is not None and not (ticket.compact and self.runtime.journal is not None):
            await ticket.done.wait()  # (a compact one: the status read from the store instead)
            message: Outbound = unscoped(final_message(ticket), self.scope)
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
