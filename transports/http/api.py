"""What every route of the front door shares, and how a route reads its request.

One :class:`Api` per application (``request.app.state.api``): the runtime (or how to reach
it), the request bounds, the turns' kept event feeds, the fleet's forwarder and the nursery
that runs event-stream writes. Reading a body, decoding it and reading ``Last-Event-ID`` are
written once here, each refusal in the API's error shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import attrs
import msgspec
import trio
from starlette.requests import Request

from actors.messages import Inbound, Outbound, nested_too_deeply
from actors.runtime import Access, Runtime

from ..feeds import Feeds
from ..forward import Forwarder, Router
from ..wire import (
    MAX_EVENT_ID_DIGITS,
    CancelRequestBody,
    ConfirmAnswerBody,
    HTTPError,
    HttpLimits,
    RunRequest,
)

__all__ = ["REQUEST_TIMEOUT_SECONDS", "Api", "api_of", "decode", "last_event_id", "read_body"]

REQUEST_TIMEOUT_SECONDS = 30.0
"""How long a non-run request waits for the runtime's reply."""

Body = TypeVar("Body", RunRequest, ConfirmAnswerBody, CancelRequestBody)


@attrs.define(eq=False)
class Api:
    """The state of one front door, which its routes share."""

    runtime: Callable[[], Runtime]
    """The runtime to hand requests to (a function: an ASGI app finds it once it started)."""
    bounds: HttpLimits
    feeds: Feeds
    document: bytes
    """The OpenAPI document, encoded once."""
    router: Router | None = None
    forwarder: Forwarder | None = None
    writers: trio.Nursery | None = None
    """Where event-stream writes run, each bounded in time (``None``: unbounded)."""

    async def request_reply(self, message: Inbound, access: Access | None) -> Outbound:
        """Hand a non-run request to the runtime and return its single reply (a refusal is
        raised as the runtime's :class:`~actors.runtime.RequestError`)."""
        send, receive = trio.open_memory_channel[Outbound](math.inf)
        await self.runtime().handle(message, send.send_nowait, access)
        with trio.fail_after(REQUEST_TIMEOUT_SECONDS):
            return await receive.receive()


def api_of(request: Request) -> Api:
    """The front door a request came through."""
    api: Api = request.app.state.api
    return api


def decode(body: bytes, kind: type[Body]) -> Body:
    """A request body as its wire Struct (an empty body is ``{}``); a 400 saying what is wrong."""
    if not body.strip():
        body = b"{}"
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.ValidationError as exc:
        raise HTTPError(400, "invalid", f"invalid request body: {exc}") from None
    except msgspec.DecodeError as exc:
        raise HTTPError(400, "invalid", f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise HTTPError(400, "invalid", nested_too_deeply("the body's JSON")) from None


async def read_body(request: Request, limit: int) -> bytes:
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


def last_event_id(request: Request) -> int:
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
