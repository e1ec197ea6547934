"""The daemon's HTTP front door: a JSON API with Server-Sent Events, served by Hypercorn on Trio.

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
from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import trio

from actors.messages import (
    Cancel,
    ConfirmAsk,
    ConfirmReply,
    DeleteMemory,
    EventMessage,
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
from actors.runtime import Access, RequestError, Runtime
from goliath.ids import URL_SAFE_ID, URL_SAFE_RULE
from goliath.snapshot import json_snapshot

from ._asgi import (
    ClientGone,
    HTTPError,
    Receive,
    Scope,
    Send,
    header,
    json_response,
    path_segments,
    query,
    read_body,
    send_error,
    send_status,
)
from .forward import Forwarder, Router, hops
from .openapi import openapi_document

if TYPE_CHECKING:
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


class HttpLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Request bounds of the HTTP front door, with units."""

    max_body_bytes: int = 64 * 1024
    max_ask_chars: int = 8_000


class RunBody(msgspec.Struct, forbid_unknown_fields=True):
    ask: str
    turn_id: str | None = None
    context: Any = None


class ConfirmBody(msgspec.Struct, forbid_unknown_fields=True):
    call_id: str
    approved: bool
    reason: str | None = None
    conversation_id: str | None = None
    fingerprint: str | None = None


class CancelBody(msgspec.Struct, forbid_unknown_fields=True):
    conversation_id: str | None = None
    reason: str = "client"


_encoder = msgspec.json.Encoder()
STATIC = Path(__file__).resolve().parent / "static"


def _checked_id(value: str, what: str) -> str:
    if not URL_SAFE_ID.match(value):
        raise HTTPError(400, "invalid", f"{what} {value[:40]!r} is not valid: {URL_SAFE_RULE}")
    return value


def _decode(body: bytes, kind: type[Any]) -> Any:
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


def create_app(
    runtime: Runtime | Callable[[], Runtime],
    *,
    token: str | None,
    users: Authenticator | None = None,
    limits: HttpLimits | None = None,
    router: Router | None = None,
    allowed_hosts: Collection[str] = ("*",),
) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The ASGI application. ``token=None`` disables auth (for a 0600 Unix socket only).

    ``users`` knows the users' tokens: a request with one may touch only that user's
    conversations and turns (another's conversation is 403, another's turn 404). With
    ``token=None`` a request without a token reaches everything, and one with a user's token
    only that user's. ``allowed_hosts`` are the ``Host`` names answered besides IP literals and
    ``localhost`` (:func:`host_allowed`; ``serve_http`` sets it for TCP). With a ``router`` (a
    fleet membership), requests for conversations another node owns are forwarded to it.
    """
    bounds = limits or HttpLimits()
    forwarder = Forwarder(router, token) if router is not None else None
    document = _encoder.encode(openapi_document())
    get_runtime = runtime if callable(runtime) else (lambda: runtime)

    def authorize(scope: Scope) -> Access | None:
        """Who is asking: ``None`` for the operator (everything), else a user's access."""
        given = header(scope, "authorization")
        if given is None and token is None:
            return None  # the 0600 Unix socket
        scheme, _, value = (given or "").partition(" ")
        value = value.strip()
        if scheme.lower() == "bearer" and value:
            if token is not None and hmac.compare_digest(value.encode(), token.encode()):
                return None
            user = users.authenticate(value) if users is not None else None
            if user is not None:
                return user
        raise HTTPError(
            401, "unauthorized", "a valid `Authorization: Bearer <token>` header is required"
        )

    def allowed(access: Access | None, conversation_id: str) -> None:
        """Refuse a user's request for a conversation that is not theirs before anything else
        (before forwarding it, too)."""
        if access is not None and not access.allows(conversation_id):
            raise HTTPError(
                403, "forbidden", f"{access.name} may not use conversation {conversation_id!r}"
            )

    async def request(message: Inbound, access: Access | None, timeout: float = 30.0) -> Outbound:
        """Hand a non-run request to the runtime and return its single reply."""
        send, receive = trio.open_memory_channel[Outbound](math.inf)
        try:
            await get_runtime().handle(message, send.send_nowait, access)
        except RequestError as exc:
            raise HTTPError(STATUS.get(exc.code, 500), exc.code, exc.message) from None
        with trio.fail_after(timeout):
            return await receive.receive()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        started = False
        received = False  # the request's body was read to its end

        async def tracked(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        async def reading() -> Any:
            nonlocal received
            message = await receive()
            received = received or (
                message["type"] == "http.request" and not message.get("more_body", False)
            )
            return message

        try:
            await route(scope, reading, tracked)
        except HTTPError as error:
            # Refused before its body was read: drain a small body so the connection can carry
            # the client's next request; otherwise say that it closes, so no client reuses it.
            kept = received or (error.status != 413 and await _drained(scope, reading, bounds))
            await send_error(send, error, close=not kept)
        except ClientGone:
            return
        except Exception:  # a bug: logged with its traceback, answered 500, the daemon goes on
            logger.exception("%s %s failed", scope["method"], scope["path"][:200])
            if not started:
                await send_error(
                    send,
                    HTTPError(500, "error", "the daemon failed to answer; its log says why"),
                )

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        parts = path_segments(scope)
        if not host_allowed(header(scope, "host"), allowed_hosts):
            raise HTTPError(
                421,
                "misdirected",
                f"this daemon does not serve the host {(header(scope, 'host') or '')[:60]!r}; "
                "reach it by IP address or localhost, or start it with --allowed-host NAME",
            )
        match method, parts:
            case "GET", ["healthz"]:
                return await json_response(send, 200, {"status": "ok"})
            case "GET", ["readyz"]:
                live = get_runtime()
                ready = getattr(router, "ready", None)
                joined = ready is None or ready.is_set()
                if not (live.ready and live.supervisor.accepting and joined):
                    raise HTTPError(503, "draining", "the daemon is starting or shutting down")
                return await json_response(send, 200, {"status": "ready"})
            case "GET", ["openapi.json"]:
                return await json_response(send, 200, document)
            case "GET", [] | ["index.html"]:
                return await _static(send, "chat.html")
        access = authorize(scope)
        hops(scope)  # a malformed hop count is a 400 on every node, owner or not
        match method, parts:
            case "GET", ["v1", "me"]:
                return await json_response(
                    send,
                    200,
                    {
                        "user": access.name if access is not None else None,
                        "conversations": getattr(access, "conversations", ""),
                    },
                )
            case "POST", ["v1", "conversations", conversation_id, "runs"]:
                cid = _checked_id(conversation_id, "conversation id")
                allowed(access, cid)
                raw = await read_body(scope, receive, bounds.max_body_bytes)
                if forwarder is not None and (url := await forwarder.owner(scope, cid)):
                    return await forwarder.relay(scope, send, url, raw)
                await run(scope, receive, send, cid, raw, access)
            case "POST", ["v1", "turns", turn_id, ("confirm" | "cancel") as action]:
                turn = _checked_id(turn_id, "turn id")
                raw = await read_body(scope, receive, bounds.max_body_bytes)
                body = _decode(raw, ConfirmBody if action == "confirm" else CancelBody)
                conversation = body.conversation_id or query(scope).get("conversation_id")
                if forwarder is not None and (url := await turn_owner(scope, turn, conversation)):
                    return await forwarder.relay(scope, send, url, raw)
                message: Inbound
                if isinstance(body, ConfirmBody):
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
                await request(message, access)
                await send_status(send, 204 if action == "confirm" else 202)
            case "GET", ["v1", "turns", turn_id]:
                reply = await request(GetTurn(turn_id=_checked_id(turn_id, "turn id")), access)
                assert isinstance(reply, TurnStatus)
                payload: dict[str, Any] = {
                    "turn_id": reply.turn_id,
                    "conversation_id": reply.conversation_id,
                    "status": reply.status,
                }
                if reply.result is not None:
                    payload["result"] = reply.result
                if reply.pending is not None:
                    payload["pending"] = reply.pending
                if reply.steps:
                    payload["steps"] = reply.steps
                await json_response(send, 200, json_snapshot(payload))
            case "GET", ["v1", "conversations", conversation_id, "memory"]:
                cid = _checked_id(conversation_id, "conversation id")
                allowed(access, cid)
                reply = await request(
                    GetMemory(turn_id=uuid.uuid4().hex, conversation_id=cid), access
                )
                assert isinstance(reply, MemoryReply)
                await json_response(send, 200, reply.state)
            case "DELETE", ["v1", "conversations", conversation_id, "memory"]:
                cid = _checked_id(conversation_id, "conversation id")
                allowed(access, cid)
                if forwarder is not None and (url := await forwarder.owner(scope, cid)):
                    return await forwarder.relay(scope, send, url, b"")
                await request(DeleteMemory(turn_id=uuid.uuid4().hex, conversation_id=cid), access)
                await send_status(send, 204)
            case _:
                raise HTTPError(404, "not_found", f"no route for {method} {scope['path']}")

    async def turn_owner(scope: Scope, turn_id: str, conversation_id: str | None) -> str | None:
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
        return await forwarder.owner(scope, conversation_id)

    async def run(
        scope: Scope,
        receive: Receive,
        send: Send,
        conversation_id: str,
        raw: bytes,
        access: Access | None,
    ) -> None:
        body = _decode(raw, RunBody)
        if len(body.ask) > bounds.max_ask_chars:
            raise HTTPError(
                413,
                "too_large",
                f"the ask is {len(body.ask)} characters; the limit is {bounds.max_ask_chars}. "
                "Small models read short asks well: shorten it, or put long material in files.",
            )
        turn_id = uuid.uuid4().hex if body.turn_id is None else _checked_id(body.turn_id, "turn id")
        outbox, replies = trio.open_memory_channel[Outbound](math.inf)
        message = Run(
            turn_id=turn_id, ask=body.ask, conversation_id=conversation_id, context=body.context
        )
        live = get_runtime()
        try:
            await live.handle(message, outbox.send_nowait, access)
        except RequestError as exc:
            raise HTTPError(STATUS.get(exc.code, 500), exc.code, exc.message) from None
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-cache"),
                    (b"x-accel-buffering", b"no"),
                    (b"x-goliath-turn-id", turn_id.encode()),
                ],
            }
        )
        await _stream(send, receive, replies, turn_id, conversation_id)

    return app


async def _drained(scope: Scope, receive: Receive, bounds: HttpLimits) -> bool:
    """Read and drop what is left of a request's body (within the body limit, briefly); whether
    it was all read, so that the connection can be kept alive."""
    declared = header(scope, "content-length")
    if declared is None and header(scope, "transfer-encoding") is None:
        return True  # no body
    if declared is not None and (
        not declared.strip().isdigit() or int(declared) > bounds.max_body_bytes
    ):
        return False
    size = 0
    with trio.move_on_after(2):
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


def _sse(event: str, payload: Any) -> bytes:
    data = payload if isinstance(payload, bytes) else _encoder.encode(payload)
    return b"event: " + event.encode() + b"\ndata: " + data + b"\n\n"


def _to_sse(message: Outbound) -> tuple[bytes, bool]:
    """The SSE frame for one runtime message, and whether it ends the stream."""
    match message:
        case EventMessage(event=event):
            return _sse(event.type, event), False
        case ConfirmAsk():
            payload = {
                "turn_id": message.turn_id,
                "call_id": message.call_id,
                "tool": message.tool,
                "input": message.input,
                "brief": message.brief,
                "after_tool": message.after_tool,
                "fingerprint": message.fingerprint,
            }
            return _sse("confirm_request", payload), False
        case ResultMessage(result=result):
            return _sse("result", json_snapshot(result)), True
        case Failure(code=code, message=text):
            return _sse("error", {"code": code, "message": text}), True
    return b"", False


async def _stream(
    send: Send,
    receive: Receive,
    replies: trio.MemoryReceiveChannel[Outbound],
    turn_id: str,
    conversation_id: str,
) -> None:
    """Forward a turn's messages as SSE until its end or the client's departure.

    A client that leaves does not cancel the turn: it keeps running and its result can be read
    with ``GET /v1/turns/{turn_id}`` (cancel explicitly to stop it).
    """
    async with trio.open_nursery() as nursery:

        async def watch_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            nursery.cancel_scope.cancel()

        nursery.start_soon(watch_disconnect)
        await send(
            {
                "type": "http.response.body",
                "body": _sse("turn", {"turn_id": turn_id, "conversation_id": conversation_id}),
                "more_body": True,
            }
        )
        while True:
            with trio.move_on_after(HEARTBEAT_SECONDS) as idle:
                message = await replies.receive()
            if idle.cancelled_caught:
                await send(
                    {"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True}
                )
                continue
            frame, last = _to_sse(message)
            if last:
                break
            if frame:
                await send({"type": "http.response.body", "body": frame, "more_body": True})
        # The last frame ends the response, and Hypercorn closes or recycles the connection
        # inside this very send: it wakes the disconnect watcher, whose cancel must not cut the
        # send short (the connection would stay open forever, its keep-alive timer unset).
        with trio.CancelScope(shield=True):
            await send({"type": "http.response.body", "body": frame, "more_body": False})
        nursery.cancel_scope.cancel()


async def _static(send: Send, name: str) -> None:
    path = STATIC / name
    try:
        body = await trio.Path(path).read_bytes()
    except FileNotFoundError:
        raise HTTPError(404, "not_found", f"{name} is not installed") from None
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (
                    b"content-security-policy",
                    b"default-src 'self'; style-src 'self' 'unsafe-inline'; "
                    b"script-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
                ),
                (b"x-frame-options", b"DENY"),  # for browsers that ignore frame-ancestors
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


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
    app = create_app(
        runtime,
        token=token,
        users=users,
        limits=limits,
        router=router,
        allowed_hosts=("*",) if unix_socket is not None else tuple(allowed_hosts),
    )
    await serve(app, config, shutdown_trigger=shutdown_trigger, task_status=task_status)  # type: ignore[arg-type]
