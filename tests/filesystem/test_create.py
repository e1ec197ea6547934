"""create_filesystem options."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import ConfigError, Tool
from goliath.filesystem import Filesystem, create_filesystem, in_memory_filesystem


def test_the_default_is_three_read_only_content_tools() -> None:
    """glob, grep and read_file only; none writes; all return literal excerpts."""
    fs = create_filesystem()
    assert isinstance(fs, Filesystem)
    assert [t.name for t in fs.tools] == ["glob", "grep", "read_file"]
    assert all(isinstance(t, Tool) for t in fs.tools)
    assert all(t.output_mode == "content" and not t.writes for t in fs.tools)
    assert fs.read_only and fs.root == "/"


def test_read_only_false_alone_adds_no_write_tools() -> None:
    """Write tools exist only when asked for explicitly."""
    fs = create_filesystem(read_only=False)
    assert [t.name for t in fs.tools] == ["glob", "grep", "read_file"]


def test_write_tools_are_marked_as_writes_that_need_confirmation() -> None:
    """read_only=False, write_tools=True adds three tools with writes and requires_confirmation."""
    fs = create_filesystem(read_only=False, write_tools=True)
    names = [t.name for t in fs.tools]
    assert names == ["glob", "grep", "read_file", "write_file", "edit_file", "delete_file"]
    for name in ("write_file", "edit_file", "delete_file"):
        assert fs.tool(name).writes and fs.tool(name).requires_confirmation


def test_write_tools_on_a_read_only_filesystem_are_refused() -> None:
    """write_tools=True alone raises ConfigError that shows the call to make instead."""
    with pytest.raises(ConfigError, match=r"read_only=False, write_tools=True"):
        create_filesystem(write_tools=True)
    with pytest.raises(ConfigError, match="read-only"):
        create_filesystem(tools=["read_file", "write_file"])


def test_tools_can_be_picked_by_name() -> None:
    """tools=[...] registers exactly those; unknown names are refused."""
    assert [t.name for t in create_filesystem(tools=["read_file"]).tools] == ["read_file"]
    fs = create_filesystem(read_only=False, tools=["read_file", "edit_file"])
    assert [t.name for t in fs.tools] == ["read_file", "edit_file"]
    with pytest.raises(ConfigError, match="Unknown filesystem tool 'readFile'"):
        create_filesystem(tools=["readFile"])
    with pytest.raises(ConfigError, match="not the string"):
        create_filesystem(tools="glob")


def test_read_limits_shape_the_read_file_schema() -> None:
    """read.max_lines bounds limit in the schema the arguments call fills; the default follows."""
    fs = create_filesystem(read={"max_lines": 50, "default_lines": 10})
    limit = fs.tool("read_file").schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, 50)
    assert "default 10" in limit["description"]
    assert "10 lines by default, at most 50" in fs.tool("read_file").description


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"read": {"max_lines": 0}}, "read.max_lines must be an integer from 1 to 1000"),
        ({"read": {"max_lines": 1001}}, "read.max_lines"),
        ({"read": {"max_lines": 10, "default_lines": 11}}, "read.default_lines .* 1 to 10"),
        ({"read": {"maxLines": 10}}, "Unknown read option"),
        ({"search": {"max_matches": 101}}, "search.max_matches .* 1 to 100"),
        ({"search": {"max_files": 0}}, "search.max_files .* 1 to 1024"),
        ({"search": {"max_files": True}}, "search.max_files"),
        ({"root": "notes"}, "root: .*relative"),
        ({"backend": "files.db"}, "backend must be a filesystem backend"),
        ({"approve": lambda change: True}, "none are enabled"),
        ({"read_only": False, "write_tools": True, "approve": "yes"}, "approve must be"),
        ({"read_only": "no"}, "True or False"),
    ],
)
def test_bad_options_are_configuration_errors(options: dict[str, Any], needle: str) -> None:
    """Each out-of-range, unknown or contradictory option names itself and the allowed range."""
    with pytest.raises(ConfigError, match=needle):
        create_filesystem(**options)


def test_unknown_tool_names_list_the_choices() -> None:
    """Filesystem.tool() says which tools exist."""
    with pytest.raises(KeyError, match="has glob, grep, read_file"):
        create_filesystem(in_memory_filesystem()).tool("write_file")
