"""The edge of every HTTP request, outside the routes: its host, its token, its errors.

Requests pass, outermost first: :class:`_FrontDoor` (a bug is a logged JSON 500; a refused
request's small body is drained), :class:`_SegmentedPath` (an encoded slash stays in its
segment), :class:`_AllowedHost` (a DNS-rebinding page is refused) and :class:`_BearerToken`
(who is asking). A refusal of the runtime's door (:class:`~actors.runtime.RequestError`) and
one of the front door's own (:class:`~transports.wire.HTTPError`) are answered in the one error
shape, ``{"error": {"code", "message"}}``, with the status :data:`STATUS` gives its code.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Collection
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import msgspec
import trio
from sse_starlette.sse import SendTimeoutError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from actors.runtime import Access, RequestError

from ..forward import hops
from ..users import UnknownToken, holder_of
from ..wire import HTTPError, HttpLimits

if TYPE_CHECKING:
    from ..users import Authenticator

__all__ = [
    "ACCESS",
    "PUBLIC_PATHS",
    "STATUS",
    "JSONResponse",
    "access_of",
    "error_response",
    "host_allowed",
    "refusal",
]

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
"""The HTTP status of each refusal code (another code is a 500)."""
logger = logging.getLogger("goliath.http")
"""Where the front door logs what it cannot answer (a 500) and Hypercorn's own errors."""
PUBLIC_PATHS = frozenset({"/healthz", "/readyz", "/openapi.json", "/", "/index.html"})
"""The routes that need no token: health checks, the API document and the chat page."""
DRAIN_SECONDS = 2.0
"""How long a refused request's unread body may take to drain (else its connection closes)."""
ACCESS = "goliath.access"
"""The scope key where the token check leaves who is asking (``None``: the operator)."""

_encoder = msgspec.json.Encoder()


class JSONResponse(Response):
    """A JSON answer encoded by msgspec (Structs, RunResult and all)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else _encoder.encode(content)


def error_response(error: HTTPError) -> Response:
    headers = {"www-authenticate": "Bearer"} if error.status == 401 else None
    return JSONResponse(error.body(), status_code=error.status, headers=headers)


def refusal(exc: RequestError) -> HTTPError:
    """The runtime's refusal as an HTTP error: its code and words, the code's status."""
    return HTTPError(STATUS.get(exc.code, 500), exc.code, exc.message)


def access_of(request: Request) -> Access | None:
    """Who is asking, as the token check found: ``None`` for the operator (everything)."""
    access: Access | None = request.scope.get(ACCESS)
    return access


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
                await error_response(error)(scope, reading, sending)


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
                refused = HTTPError(
                    421,
                    "misdirected",
                    f"this daemon does not serve the host {(host or '')[:60]!r}; reach it by IP "
                    "address or localhost, or start it with --allowed-host NAME",
                )
                await error_response(refused)(scope, receive, send)
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
        except HTTPError as refused:
            await error_response(refused)(scope, receive, send)
            return
        await self.app({**scope, ACCESS: access}, receive, send)

    def authorize(self, given: str | None) -> Access | None:
        """Who is asking: ``None`` for the operator (everything), else a user's access."""
        if given is None and self.token is None:
            return None  # the 0600 Unix socket
        scheme, _, value = (given or "").partition(" ")
        value = value.strip()
        if scheme.lower() == "bearer" and value:
            try:
                return holder_of(value, self.token, self.users)
            except UnknownToken:
                pass
        raise HTTPError(
            401, "unauthorized", "a valid `Authorization: Bearer <token>` header is required"
        )


async def on_http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPError)
    return error_response(exc)


async def on_request_error(_request: Request, exc: Exception) -> Response:
    """A refusal of the runtime's door (:mod:`actors.admission`), raised in a route."""
    assert isinstance(exc, RequestError)
    return error_response(refusal(exc))


async def on_starlette_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route, wrong method) in the API's error shape."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        error = HTTPError(405, "method_not_allowed", f"{request.method} is not allowed here")
        response = error_response(error)
        response.headers.update(exc.headers or {})
        return response
    code = "not_found" if exc.status_code == 404 else "invalid"
    message = (
        f"no route for {request.method} {request.url.path}"
        if exc.status_code == 404
        else str(exc.detail)
    )
    return error_response(HTTPError(exc.status_code, code, message))


async def on_client_gone(_request: Request, _exc: Exception) -> Response:
    return Response(status_code=400)  # the client left before its request was read
