"""Listed MCP tools become Goliath tool descriptions; call results become compressible values."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.types import CallToolResult, ImageContent, TextContent, Tool, ToolAnnotations

from goliath.mcp import MCPToolError
from goliath.mcp.convert import describe, goliath_name, one_line, tool_output

FLAT = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}


def listed(**fields: Any) -> Tool:
    return Tool(**{"name": "tool", "input_schema": FLAT, **fields})


@pytest.mark.parametrize(
    ("annotations", "writes"),
    [
        (ToolAnnotations(read_only_hint=True), False),
        (ToolAnnotations(read_only_hint=True, destructive_hint=True), False),
        (ToolAnnotations(read_only_hint=False, destructive_hint=False), True),
        (ToolAnnotations(destructive_hint=True), True),
        (ToolAnnotations(title="Only a title"), True),
        (None, True),
    ],
)
def test_only_a_tool_annotated_read_only_is_a_read(
    annotations: ToolAnnotations | None, writes: bool
) -> None:
    """readOnlyHint true makes a read; anything else, absent annotations included, is a write."""
    assert describe(listed(annotations=annotations)).writes is writes


def test_descriptions_are_one_clipped_line() -> None:
    """The conductor sees the first line of a description, at most 200 characters."""
    assert (
        describe(listed(description="Read a note.\n\nLong details...")).description
        == "Read a note."
    )
    assert len(one_line("word " * 100)) == 200
    assert describe(listed(description=None, title="Read notes")).description == "Read notes"


def test_server_names_become_identifiers() -> None:
    """Dashes and dots become underscores; a leading digit gets a prefix."""
    assert goliath_name("get-weather") == "get_weather"
    assert goliath_name("notes.read") == "notes_read"
    assert goliath_name("3d-render") == "t_3d_render"


def test_a_deep_schema_is_recorded_as_refused() -> None:
    """A tool with a nested argument is kept in the listing, refused, with the reason."""
    nested = {"type": "object", "properties": {"style": {"type": "object", "properties": {}}}}
    found = describe(listed(input_schema=nested))
    assert found.parameters is None
    assert found.refused is not None and "argument 'style' is a nested object" in found.refused


class TestResults:
    def test_an_error_result_raises_with_the_servers_message(self) -> None:
        """isError becomes MCPToolError carrying the text the server sent."""
        result = CallToolResult(content=[TextContent(text="no note called 'x'")], is_error=True)
        with pytest.raises(MCPToolError, match="no note called 'x'"):
            tool_output(result, wrapped=False)

    def test_structured_content_wins_and_a_result_wrapper_is_removed(self) -> None:
        """Structured content is returned as is; FastMCP-style {"result": ...} is unwrapped."""
        rows = [{"title": "garden"}]
        wrapped = CallToolResult(
            content=[TextContent(text="...")], structured_content={"result": rows}
        )
        assert tool_output(wrapped, wrapped=True) == rows
        assert tool_output(wrapped, wrapped=False) == {"result": rows}

    def test_text_is_returned_and_json_text_is_parsed(self) -> None:
        """Plain text stays text; a JSON text becomes data (so it compresses to key: value lines)."""
        assert (
            tool_output(CallToolResult(content=[TextContent(text="hello")]), wrapped=False)
            == "hello"
        )
        data = CallToolResult(content=[TextContent(text='{"ok": true}')])
        assert tool_output(data, wrapped=False) == {"ok": True}

    def test_other_content_is_named_not_inlined(self) -> None:
        """Images and the like become short placeholders next to the text."""
        result = CallToolResult(
            content=[TextContent(text="chart:"), ImageContent(data="aGk=", mime_type="image/png")]
        )
        assert tool_output(result, wrapped=False) == "chart:\n[image image/png]"
        assert tool_output(CallToolResult(content=[]), wrapped=False) is None
