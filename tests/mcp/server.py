"""A small notes server speaking MCP, for goliath.mcp's tests and docs (the official mcp package).

Run it as ``python -m tests.mcp.server`` (stdio) or ``python -m tests.mcp.server http`` (streamable
HTTP on a free 127.0.0.1 port; prints ``listening on URL`` on stdout, then serves). Over HTTP every
request must carry ``Authorization: Bearer notes-token``.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from typing import Annotated, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

TOKEN = "notes-token"
READ = ToolAnnotations(read_only_hint=True)
ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False)
DESTROYS = ToolAnnotations(read_only_hint=False, destructive_hint=True)

server = MCPServer("notes")
notes: dict[str, str] = {"garden": "Tomatoes need sun.", "shopping": "Milk, eggs."}


@server.tool(annotations=READ)
def list_notes() -> list[dict[str, str]]:
    """List the notes by title.

    The rest of this description is long on purpose: small models only need the first line.
    """
    return [{"title": title, "words": str(len(body.split()))} for title, body in notes.items()]


@server.tool(annotations=READ)
def read_note(
    title: Annotated[str, Field(description="The note's title, e.g. garden.")],
    max_chars: Annotated[int, Field(ge=1, le=2000)] = 200,
) -> str:
    """Read one note."""
    if title not in notes:
        raise ToolError(f"no note called {title!r}")
    return notes[title][:max_chars]


@server.tool(annotations=ADDS)
def add_note(title: str, body: str, tags: list[str] | None = None) -> dict[str, object]:
    """Add a note."""
    notes[title] = body
    return {"ok": True, "title": title, "tags": tags or []}


@server.tool(annotations=DESTROYS)
def delete_note(title: str) -> str:
    """Delete a note."""
    notes.pop(title, None)
    return f"deleted {title}"


@server.tool()
def word_count(text: str, unit: Literal["words", "characters"] = "words") -> int:
    """Count the words or characters of a text (no annotations: treated as a write)."""
    return len(text.split()) if unit == "words" else len(text)


@server.tool(annotations=READ)
async def wait_for_ever() -> str:
    """Wait until the call is cancelled."""
    await anyio.sleep_forever()
    return "never"


@server.tool(annotations=READ)
def trace_parent(ctx: Context) -> str:
    """The W3C traceparent the client sent with this call (empty when none)."""
    meta = ctx.request_context.meta or {}
    return str(meta.get("traceparent", ""))


class Style(BaseModel):
    font: str
    size: int


@server.tool(annotations=READ)
def render_note(title: str, style: Style) -> str:
    """Render a note with a style (a nested object: too deep for a small model)."""
    return f"{title} in {style.font}"


async def serve_http() -> None:
    import uvicorn
    from starlette.middleware.base import BaseHTTPMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response

    async def require_token(request: Request, call_next: object) -> Response:
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        return await call_next(request)  # type: ignore[operator, no-any-return]

    app = server.streamable_http_app()
    app.add_middleware(BaseHTTPMiddleware, dispatch=require_token)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    await uvicorn.Server(config).serve(sockets=[listener])


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        asyncio.run(serve_http())
    else:
        server.run("stdio")
