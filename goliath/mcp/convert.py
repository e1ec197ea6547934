"""What Goliath makes of one listed MCP tool, and of what a call returns.

An MCP tool becomes a :class:`goliath.Tool` with a flat pydantic model of its arguments, a
one-line description, and a read/write decision taken from its annotations. Its result becomes
the structured content (or the text) the harness compresses like any other tool output; a result
flagged ``isError`` raises, so the step is recorded as failed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from ..compress import clip
from ..errors import GoliathError
from .schema import Parameters, SchemaRefused, parameters_model

__all__ = ["DESCRIPTION_CHARS", "Listed", "MCPToolError", "describe", "tool_output"]

DESCRIPTION_CHARS = 200
"""The longest tool description shown to the conductor (it reads every one on every step)."""
_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]")


class MCPToolError(GoliathError):
    """An MCP tool call failed: the server flagged the result as an error, did not answer in
    time, or the call could not be made. Raised inside the tool, so the step is recorded as
    failed and the model sees the message."""


@attrs.frozen
class Listed:
    """One tool as the server listed it, and what Goliath made of it.

    ``remote`` is the server's name for the tool, ``name`` the identifier Goliath uses (the
    same unless the server's name has dashes or dots). ``refused`` says why the tool cannot be
    used (then ``parameters`` is ``None``). ``writes`` follows the annotations: only a tool
    that says it is read-only is a read.
    """

    remote: str
    name: str
    description: str
    writes: bool
    annotated: bool
    parameters: Parameters | None
    refused: str | None
    wrapped_output: bool


def describe(tool: Any) -> Listed:
    """Convert one listed ``mcp.types.Tool`` (read by attribute, so any version's shape works)."""
    remote = str(tool.name)
    name = goliath_name(remote)
    annotations = getattr(tool, "annotations", None)
    read_only = getattr(annotations, "read_only_hint", None) is True
    parameters: Parameters | None = None
    refused: str | None = None
    try:
        parameters = parameters_model(f"{_camel(name)}Args", tool.input_schema)
    except SchemaRefused as exc:
        refused = exc.reason
    output_schema = getattr(tool, "output_schema", None)
    wrapped = (
        isinstance(output_schema, dict)
        and set((output_schema.get("properties") or {}).keys()) == {"result"}
        and output_schema.get("required") == ["result"]
    )
    title = getattr(tool, "title", None) or getattr(annotations, "title", None)
    return Listed(
        remote=remote,
        name=name,
        description=one_line(getattr(tool, "description", None) or title or remote),
        writes=not read_only,
        annotated=annotations is not None,
        parameters=parameters,
        refused=refused,
        wrapped_output=wrapped,
    )


def goliath_name(remote: str) -> str:
    """An identifier for a server's tool name: ``get-weather`` → ``get_weather``."""
    name = _NOT_IDENTIFIER.sub("_", remote)
    return f"t_{name}" if not name or name[0].isdigit() else name


def one_line(description: str) -> str:
    """The first line of a description, clipped: the conductor reads it on every step."""
    for line in str(description).strip().splitlines():
        if line.strip():
            return clip(" ".join(line.split()), DESCRIPTION_CHARS)
    return ""


def tool_output(result: Any, *, wrapped: bool) -> Any:
    """The value the harness compresses: structured content, else the text of the content.

    Raises :class:`MCPToolError` with the server's message when the result is an error.
    """
    parts = [_render(block) for block in getattr(result, "content", None) or []]
    if getattr(result, "is_error", False):
        message = "\n".join(part for part in parts if part).strip()
        raise MCPToolError(message or "the tool reported an error without a message")
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        if wrapped and isinstance(structured, dict) and set(structured) == {"result"}:
            return structured["result"]
        return structured
    if not parts:
        return None
    if len(parts) == 1:
        return _maybe_json(parts[0])
    return "\n".join(parts)


def _render(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind} {getattr(block, 'mime_type', '')}]".replace(" ]", "]")
    if kind == "resource_link":
        return f"[resource {getattr(block, 'uri', '')}]"
    if kind == "resource":
        resource = getattr(block, "resource", None)
        text = getattr(resource, "text", None)
        return str(text) if text is not None else f"[resource {getattr(resource, 'uri', '')}]"
    return f"[{kind or 'content'}]"


def _maybe_json(text: str) -> Any:
    """Servers often return JSON as text; parsed, it compresses to readable ``key: value`` lines."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        try:
            return json.loads(stripped)
        except ValueError:
            return text
    return text


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) or "Tool"
