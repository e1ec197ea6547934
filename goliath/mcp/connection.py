"""A live connection to one MCP server, owned by an ``async with`` block.

The MCP client runs in task groups opened by :func:`connect_stdio` / :func:`connect_http`
(Trio nurseries: the ``mcp`` package is built on anyio), so the session lives exactly as long as
the block. Tools taken from it call the server from the conversation actor's task while the
block is open, and fail with a clear message once it has closed.
"""

from __future__ import annotations

import math
import sys
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import attrs
import trio

from .._util import message_of
from ..errors import ConfigError, GoliathError
from ..tools import Tool, ToolContext
from .convert import Listed, MCPToolError, describe, tool_output

__all__ = [
    "MAX_TOOLS",
    "MCPConnection",
    "MCPConnectionError",
    "connect_http",
    "connect_stdio",
]

MAX_TOOLS = 5
"""Tools per agent from one server: a small model chooses well among a few, not among dozens."""
CONNECT_SECONDS = 30.0
"""Default time to start (or reach) a server, hand-shake and list its tools."""
CALL_SECONDS = 60.0
"""Default time one tool call may take before it fails."""
MAX_LIST_PAGES = 50
"""Pages of ``tools/list`` read at most (a server that pages for ever is cut off)."""


class MCPConnectionError(GoliathError):
    """An MCP server could not be reached, did not answer the hand-shake in time, or the
    connection broke. The message names the server and what to check."""


class MCPConnection:
    """One connected MCP server: its tools as listed, and Goliath tools built from them.

    Get one from ``async with connect_stdio(...)`` or ``async with connect_http(...)``. The
    tool listing is read once, at connect time.
    """

    def __init__(
        self, name: str, client: Any, listed: Sequence[Listed], call_timeout: float | None
    ) -> None:
        self.name = name
        self._client: Any = client
        self._listed = {tool.remote: tool for tool in listed}
        self._call_timeout = call_timeout

    @property
    def names(self) -> list[str]:
        """Every tool the server lists, by the server's names."""
        return list(self._listed)

    @property
    def refused(self) -> dict[str, str]:
        """Tools Goliath cannot offer a small model, with the reason for each."""
        return {name: tool.refused for name, tool in self._listed.items() if tool.refused}

    @property
    def closed(self) -> bool:
        return self._client is None

    def tools(
        self,
        select: Iterable[str] | None = None,
        *,
        prefix: str = "",
        read_only: Iterable[str] = (),
        content: Iterable[str] = (),
        descriptions: Mapping[str, str] | None = None,
    ) -> list[Tool]:
        """Goliath tools for at most :data:`MAX_TOOLS` of the server's tools.

        Args:
            select: the server's names of the tools to offer; ``None`` means every tool, which
                is allowed only when there are at most five and none is refused.
            prefix: prepended to each tool's name (e.g. ``"notes_"``, to tell servers apart).
            read_only: tools to treat as reads although their annotations do not say so
                (only for servers you trust). A tool annotated read-only is always a read.
            content: tools whose results are documents: ``output_mode="content"`` (excerpts
                under token budgets) instead of a 600-character summary.
            descriptions: one-sentence descriptions replacing the server's, by name.

        Every tool that is not annotated ``readOnlyHint: true`` is a write that needs
        confirmation (``writes=True, requires_confirmation=True``): the MCP specification says
        an unannotated tool may change and destroy things.

        Raises:
            ConfigError: more than five tools, an unknown or refused name, or ``select=None``
                on a server with refused tools or more than five.
            MCPConnectionError: the connection has closed.
        """
        if self.closed:
            raise MCPConnectionError(
                f"The connection to MCP server {self.name!r} is closed; call tools() inside "
                "its `async with` block."
            )
        chosen = self._choose(select)
        trusted = self._names(read_only, "read_only")
        documents = self._names(content, "content")
        described = dict(descriptions or {})
        self._names(described, "descriptions")
        built = []
        for listed in chosen:
            assert listed.parameters is not None
            writes = listed.writes and listed.remote not in trusted
            built.append(
                Tool(
                    prefix + listed.name,
                    described.get(listed.remote, listed.description),
                    listed.parameters.model,
                    _Call(self, listed),
                    writes=writes,
                    requires_confirmation=writes,
                    output_mode="content" if listed.remote in documents else "summary",
                )
            )
        return built

    def _choose(self, select: Iterable[str] | None) -> list[Listed]:
        if select is None:
            refused = self.refused
            if refused or len(self._listed) > MAX_TOOLS:
                usable = [name for name in self._listed if name not in refused]
                raise ConfigError(
                    f"MCP server {self.name!r} lists {len(self._listed)} tools; pick at most "
                    f"{MAX_TOOLS} with tools(select=[...]) from: {', '.join(usable) or '(none)'}."
                    + _refusals(refused)
                )
            return list(self._listed.values())
        if isinstance(select, str):
            raise ConfigError(f"select must be a list of tool names, not the string {select!r}.")
        names = list(select)
        if len(names) > MAX_TOOLS:
            raise ConfigError(
                f"Pick at most {MAX_TOOLS} tools per agent (a small model chooses well among a "
                f"few); got {len(names)}: {', '.join(names)}."
            )
        if len(set(names)) != len(names):
            raise ConfigError(f"select names a tool twice: {', '.join(names)}.")
        chosen = []
        for name in self._names(names, "select"):
            listed = self._listed[name]
            if listed.refused:
                raise ConfigError(
                    f"MCP tool {name!r} of server {self.name!r} cannot be offered to a small "
                    f"model: {listed.refused}."
                )
            chosen.append(listed)
        return chosen

    def _names(self, names: Iterable[str], option: str) -> list[str]:
        found = list(names)
        unknown = [name for name in found if name not in self._listed]
        if unknown:
            raise ConfigError(
                f"{option}: MCP server {self.name!r} has no tool {unknown[0]!r}; it has: "
                f"{', '.join(self._listed) or '(none)'}."
            )
        return found

    async def call(self, listed: Listed, args: dict[str, Any]) -> Any:
        """Call one tool with validated arguments; returns what the harness compresses."""
        client = self._client
        if client is None:
            raise MCPConnectionError(
                f"The connection to MCP server {self.name!r} is closed, so {listed.remote!r} "
                "cannot run. Tools from connect_stdio()/connect_http() work only inside its "
                "`async with` block: run the agent there."
            )
        assert listed.parameters is not None
        names, nullable = listed.parameters.names, listed.parameters.nullable
        arguments = {}
        for key, value in args.items():
            remote = names.get(key, key)
            if value is not None or remote in nullable:
                arguments[remote] = value
        timeout = self._call_timeout if self._call_timeout is not None else math.inf
        with trio.move_on_after(timeout) as scope:
            try:
                result = await client.call_tool(listed.remote, arguments)
            except Exception as exc:
                raise MCPToolError(f"{listed.remote}: {message_of(exc)}") from exc
        if scope.cancelled_caught:
            raise MCPToolError(f"{listed.remote} did not answer within {timeout:g} s")
        return tool_output(result, wrapped=listed.wrapped_output)

    def _close(self) -> None:
        self._client = None


class _Call:
    """A tool's ``execute``: an async callable object (so the harness awaits it in-task)."""

    def __init__(self, connection: MCPConnection, listed: Listed) -> None:
        self.connection = connection
        self.listed = listed

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        return await self.connection.call(self.listed, args)


def connect_stdio(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    name: str | None = None,
    connect_timeout: float = CONNECT_SECONDS,
    call_timeout: float | None = CALL_SECONDS,
    errlog: TextIO | None = None,
) -> AbstractAsyncContextManager[MCPConnection]:
    """Start an MCP server as a subprocess and talk to it over its stdin/stdout.

    Args:
        command, args: the program and its arguments (``sys.executable, ["-m", "my_server"]``).
        env: extra environment variables for the server (merged over a safe default set).
        cwd: the server's working directory.
        name: how messages name the server (default: what it calls itself, else ``command``).
        connect_timeout: seconds to start, hand-shake and list tools.
        call_timeout: seconds one tool call may take (``None``: no limit).
        errlog: where the server's stderr goes (default ``sys.stderr``).

    Resource handling: the server process is stopped when the block exits.
    """
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"command must be the program to start, got {command!r}.")
    if isinstance(args, str):
        raise ConfigError(f"args must be a list of strings, not the string {args!r}.")
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=command, args=list(args), env=dict(env) if env else None, cwd=cwd
    )
    return _connect(
        lambda: stdio_client(params, errlog=errlog or sys.stderr),
        label=name or Path(command).name,
        named=name is not None,
        connect_timeout=connect_timeout,
        call_timeout=call_timeout,
        hint="check the command, and that the program speaks MCP on stdin/stdout",
    )


def connect_http(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    name: str | None = None,
    connect_timeout: float = CONNECT_SECONDS,
    call_timeout: float | None = CALL_SECONDS,
) -> AbstractAsyncContextManager[MCPConnection]:
    """Connect to an MCP server over streamable HTTP (``url`` is its endpoint, e.g. ``…/mcp``).

    ``headers`` go with every request (e.g. ``{"Authorization": "Bearer …"}``). The other
    arguments are as for :func:`connect_stdio`.
    """
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(f"url must be an http:// or https:// MCP endpoint, got {url!r}.")
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    @asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with (
            httpx2.AsyncClient(headers=dict(headers or {}), timeout=timeout) as http,
            streamable_http_client(url, http_client=http) as streams,
        ):
            yield streams

    return _connect(
        transport,
        label=name or url,
        named=name is not None,
        connect_timeout=connect_timeout,
        call_timeout=call_timeout,
        hint="check the URL, that the server is running, and the headers it needs",
    )


@asynccontextmanager
async def _connect(
    transport: Any,
    *,
    label: str,
    named: bool,
    connect_timeout: float,
    call_timeout: float | None,
    hint: str,
) -> AsyncIterator[MCPConnection]:
    from mcp import Client

    body_error: BaseException | None = None
    connection: MCPConnection | None = None
    try:
        with trio.CancelScope(deadline=trio.current_time() + connect_timeout) as scope:
            async with Client(transport()) as client:
                listed = await _list_tools(client)
                scope.deadline = math.inf  # the hand-shake is done; the session lives on
                info = getattr(client, "server_info", None)
                server_name = label if named else (getattr(info, "name", None) or label)
                connection = MCPConnection(server_name, client, listed, call_timeout)
                try:
                    yield connection
                except BaseException as exc:
                    body_error = exc
                    raise
                finally:
                    connection._close()
    except BaseException as exc:
        leaves = _leaves(exc)
        if body_error is not None and leaves == [body_error]:
            raise body_error from body_error.__cause__  # the caller's own error, unwrapped
        if body_error is not None or not all(isinstance(leaf, Exception) for leaf in leaves):
            raise  # cancellation, KeyboardInterrupt, or the caller's error among others
        problem = "; ".join(map(message_of, leaves))
        raise MCPConnectionError(
            f"Could not connect to MCP server {label!r}: {problem}; {hint}."
            if connection is None
            else f"The connection to MCP server {label!r} failed: {problem}."
        ) from (leaves[0] if len(leaves) == 1 else exc)
    if scope.cancelled_caught:
        raise MCPConnectionError(
            f"MCP server {label!r} did not answer within {connect_timeout:g} s; {hint}."
        )


async def _list_tools(client: Any) -> list[Listed]:
    listed: list[Listed] = []
    cursor: str | None = None
    for _page in range(MAX_LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        listed.extend(describe(tool) for tool in page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    seen: dict[str, str] = {}
    for position, tool in enumerate(listed):
        if tool.name in seen and tool.refused is None:
            listed[position] = _refuse(
                tool, f"its name becomes {tool.name!r}, like {seen[tool.name]!r}"
            )
        seen.setdefault(tool.name, tool.remote)
    return listed


def _refuse(tool: Listed, reason: str) -> Listed:
    return attrs.evolve(tool, parameters=None, refused=reason)


def _refusals(refused: Mapping[str, str]) -> str:
    if not refused:
        return ""
    return " Refused: " + "; ".join(f"{name} ({reason})" for name, reason in refused.items()) + "."


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        found: list[BaseException] = []
        for inner in exc.exceptions:
            found.extend(_leaves(inner))
        return found
    return [exc]
