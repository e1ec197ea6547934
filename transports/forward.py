"""Forwarding in a fleet: a request for a conversation another node owns goes to that node.

Runs, confirmations and cancels all take the same route, so a client may talk to any node. A
forwarded request carries ``x-goliath-hops``; a request that has already hopped twice (the
fleet is moving shards) is refused with 503 rather than bounced around. When no node owns the
conversation at this instant (a shard being handed over or claimed after a failure), the node
waits a moment for an owner before giving up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import httpx
import trio
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .wire import HTTPError

__all__ = ["Forwarder", "Router", "hops"]

MAX_HOPS = 2
OWNER_WAIT_SECONDS = 10.0
_HOP_HEADER = "x-goliath-hops"
_PASSED_HEADERS = ("content-type", "cache-control", "x-goliath-turn-id", "www-authenticate")
_LOST_OWNER = (
    b"\nevent: error\ndata: "
    b'{"code":"interrupted","message":"the node running this turn went away; '
    b'ask for the turn by id: its new owner reports it as interrupted"}\n\n'
)


def hops(headers: Mapping[str, str]) -> int:
    """How many times a request was forwarded already (``x-goliath-hops``; 0 when absent).

    Anything but a small non-negative integer is refused with 400: a malformed value must not
    crash the request, and a negative one must not buy extra hops past :data:`MAX_HOPS`.
    """
    value = headers.get(_HOP_HEADER)
    if value is None:
        return 0
    text = value.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 3):
        raise HTTPError(
            400,
            "invalid",
            f"{_HOP_HEADER} must be a small non-negative integer (the number of times the "
            f"request was forwarded); got {value[:20]!r}",
        )
    return int(text)


class Router(Protocol):
    """What the HTTP front door needs from a fleet membership (see actors.cluster.Cluster)."""

    node_id: str

    def is_local(self, conversation_id: str | None) -> bool: ...

    def owner_url(self, conversation_id: str | None) -> str | None: ...


class Forwarder:
    """Relays requests to the owning node over HTTP, streaming the reply back unchanged."""

    def __init__(self, router: Router, token: str | None) -> None:
        self.router = router
        self.token = token
        self._client: httpx.AsyncClient | None = None

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(None, connect=5.0), limits=limits
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def owner(self, request: Request, conversation_id: str | None) -> str | None:
        """``None`` when this node should serve it; else the owner's base URL."""
        deadline = trio.current_time() + OWNER_WAIT_SECONDS
        while True:
            if self.router.is_local(conversation_id):
                return None
            url = self.router.owner_url(conversation_id)
            if url is not None:
                if hops(request.headers) >= MAX_HOPS:
                    raise HTTPError(
                        503, "draining", "the fleet is moving this conversation; retry shortly"
                    )
                return url
            if trio.current_time() >= deadline:
                raise HTTPError(
                    503, "draining", "no node owns this conversation right now; retry shortly"
                )
            await trio.sleep(0.1)

    def relay(self, request: Request, url: str, body: bytes) -> Response:
        """The same request sent to ``url``, its answer streamed back to our client."""
        return _Relay(self, url, body)

    async def _relay(self, scope: Scope, send: Send, url: str, body: bytes) -> None:
        request = Request(scope)
        headers: dict[str, Any] = {
            _HOP_HEADER: str(hops(request.headers) + 1),
            "x-goliath-forwarded-by": self.router.node_id,
        }
        for name in ("content-type", "authorization"):
            value = request.headers.get(name)
            if value is not None:
                headers[name] = value
        if "authorization" not in headers and self.token is not None:
            headers["authorization"] = f"Bearer {self.token}"
        target = url + scope.get("raw_path", scope["path"].encode()).decode("latin-1")
        query = scope.get("query_string", b"")
        if query:
            target += "?" + query.decode("latin-1")
        started = False
        streaming = False
        try:
            async with self.client().stream(
                scope["method"], target, content=body, headers=headers
            ) as response:
                passed = [
                    (name.encode(), value.encode())
                    for name, value in response.headers.items()
                    if name.lower() in _PASSED_HEADERS
                ]
                content_type = response.headers.get("content-type", "")
                streaming = content_type.startswith("text/event-stream")
                start = {"type": "http.response.start", "status": response.status_code}
                await send({**start, "headers": passed})
                started = True
                async for chunk in response.aiter_raw():
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body", "body": b""})
        except httpx.HTTPError as exc:
            if not started:
                raise HTTPError(503, "draining", f"the owning node did not answer: {exc}") from None
            # the owner died mid-stream: end our client's stream with a reason it can act on
            await send({"type": "http.response.body", "body": _LOST_OWNER if streaming else b""})


class _Relay(Response):
    """A response that is another node's answer, passed through as it streams."""

    def __init__(self, forwarder: Forwarder, url: str, body: bytes) -> None:
        super().__init__()
        self._forwarder = forwarder
        self._url = url
        self._body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._forwarder._relay(scope, send, self._url, self._body)
