"""The front door's routes besides the API's turns: health, readiness, the API document, the
browser chat page (these need no token: :data:`~transports.http.door.PUBLIC_PATHS`) and
``/v1/me``, who a token belongs to."""

from __future__ import annotations

from pathlib import Path

import trio
from starlette.requests import Request
from starlette.responses import Response

from ..wire import Health, HTTPError, Me
from .api import api_of
from .door import JSONResponse, access_of

__all__ = ["CSP", "STATIC", "healthz", "index", "me", "openapi", "readyz"]

STATIC = Path(__file__).resolve().parent.parent / "static"
"""Where the chat page is installed (``transports/static/``)."""
CSP = (
    "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; "
    "frame-ancestors 'none'"
)
"""The chat page's policy: its own origin only, and never inside another page's frame."""


async def healthz(_request: Request) -> Response:
    """The process answers."""
    return JSONResponse(Health(status="ok"))


async def readyz(request: Request) -> Response:
    """The runtime takes runs and, in a fleet, this node has joined it (else 503)."""
    api = api_of(request)
    ready = getattr(api.router, "ready", None)
    joined = ready is None or ready.is_set()
    if not (api.runtime().accepting and joined):
        raise HTTPError(503, "draining", "the daemon is starting or shutting down")
    return JSONResponse(Health(status="ready"))


async def openapi(request: Request) -> Response:
    return JSONResponse(api_of(request).document)


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
    access = access_of(request)
    return JSONResponse(
        Me(
            user=access.name if access is not None else None,
            conversations=getattr(access, "conversations", ""),
        )
    )
