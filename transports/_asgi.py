"""Small ASGI helpers: bounded body reading, JSON and error responses, path parsing.

Hand-written on purpose: the daemon has a dozen routes, and owning the edge lets it refuse an
oversized body before reading it whole and stream Server-Sent Events without a framework.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs, unquote

import msgspec

__all__ = [
    "HTTPError",
    "Receive",
    "Scope",
    "Send",
    "header",
    "json_response",
    "path_segments",
    "query",
    "read_body",
    "send_error",
    "send_status",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_encoder = msgspec.json.Encoder()


class HTTPError(Exception):
    """An error answered as ``{"error": {"code", "message"}}`` with ``status``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class ClientGone(Exception):
    """The client disconnected before its request was read."""


def header(scope: Scope, name: str) -> str | None:
    wanted = name.lower().encode()
    for key, value in scope.get("headers", []):
        if key.lower() == wanted:
            return bytes(value).decode("latin-1")
    return None


def query(scope: Scope) -> dict[str, str]:
    raw = scope.get("query_string", b"").decode("latin-1")
    return {key: values[-1] for key, values in parse_qs(raw).items()}


def path_segments(scope: Scope) -> list[str]:
    """The path split on raw slashes, each segment percent-decoded (``%2F`` stays inside)."""
    raw = scope.get("raw_path") or scope["path"].encode()
    path = bytes(raw).decode("latin-1").split("?", 1)[0]
    return [unquote(segment) for segment in path.strip("/").split("/")] if path.strip("/") else []


async def read_body(scope: Scope, receive: Receive, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it is known to exceed ``limit`` bytes."""
    declared = header(scope, "content-length")
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
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone()
        body += message.get("body", b"")
        if len(body) > limit:
            raise HTTPError(413, "too_large", f"the body exceeds {limit} bytes")
        if not message.get("more_body", False):
            return bytes(body)


async def json_response(
    send: Send, status: int, payload: Any, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = payload if isinstance(payload, bytes) else _encoder.encode(payload)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def send_error(send: Send, error: HTTPError, *, close: bool = False) -> None:
    """Answer ``error`` as JSON; ``close`` says the connection ends after it (an unread body)."""
    extra = [(b"www-authenticate", b"Bearer")] if error.status == 401 else []
    if close:
        extra.append((b"connection", b"close"))
    await json_response(
        send, error.status, {"error": {"code": error.code, "message": error.message}}, extra
    )


async def send_status(send: Send, status: int) -> None:
    await send(
        {"type": "http.response.start", "status": status, "headers": [(b"content-length", b"0")]}
    )
    await send({"type": "http.response.body", "body": b""})
