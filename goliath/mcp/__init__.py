"""Tools from Model Context Protocol servers, offered to a small model (the ``mcp`` extra).

Connect with ``async with connect_stdio(command, args)`` or ``async with connect_http(url,
headers=...)``, then pick at most five of the server's tools with ``connection.tools(select=[...])``
and give them to an ``Agent`` inside the same block. Each becomes an ordinary
:class:`goliath.Tool`: a flat pydantic model of its arguments (schemas too deep for a small
model are refused, with the reason), a write needing confirmation unless the server annotates
it read-only, and results compressed like any other tool's.
"""

from __future__ import annotations

try:
    import mcp as _mcp  # noqa: F401  (checked here so the error names the extra)
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "goliath.mcp needs the official MCP SDK. Install it with `pip install 'goliath-harness[mcp]'`."
    ) from exc

from .connection import MAX_TOOLS as MAX_TOOLS
from .connection import MCPConnection as MCPConnection
from .connection import MCPConnectionError as MCPConnectionError
from .connection import connect_http as connect_http
from .connection import connect_stdio as connect_stdio
from .convert import MCPToolError as MCPToolError
from .schema import MAX_SCHEMA_DEPTH as MAX_SCHEMA_DEPTH

__all__ = [
    "MAX_SCHEMA_DEPTH",
    "MAX_TOOLS",
    "MCPConnection",
    "MCPConnectionError",
    "MCPToolError",
    "connect_http",
    "connect_stdio",
]
