"""goliath.mcp over streamable HTTP, against the notes server listening on 127.0.0.1."""

from __future__ import annotations

import pytest

from goliath import Agent, ConfirmRequest
from goliath.mcp import MCPConnectionError, connect_http
from goliath.testing import FakeModel

from ..helpers import answer, answer_plan, use

pytestmark = pytest.mark.slow
AUTH = {"Authorization": "Bearer notes-token"}


async def test_an_agent_reads_and_deletes_over_http(notes_url: str) -> None:
    """Headers reach the server; a read and a confirmed destructive write both run over HTTP."""
    script = [
        use("delete_note"),
        {"json": {"title": "shopping"}},
        use("list_notes"),
        answer_plan(),
        answer("Deleted shopping; only the garden note is left."),
    ]
    asked: list[str] = []

    def approve(request: ConfirmRequest) -> bool:
        asked.append(request.tool)
        return True

    async with connect_http(notes_url, headers=AUTH) as notes:
        assert notes.name == "notes"
        tools = notes.tools(select=["list_notes", "delete_note"])
        async with Agent(FakeModel(script), tools=tools, confirm=approve) as agent:
            result = await agent.run("delete the shopping note, then list my notes")
    assert asked == ["delete_note"]
    assert [step.result for step in result.steps[:2]] == [
        "deleted shopping",
        "1. title: garden, words: 3",
    ]
    assert result.text == "Deleted shopping; only the garden note is left."


async def test_a_rejected_connection_names_the_url_and_what_to_check(notes_url: str) -> None:
    """Without the server's token the hand-shake fails with MCPConnectionError, not a hang."""
    with pytest.raises(MCPConnectionError) as caught:
        async with connect_http(notes_url, headers={"Authorization": "Bearer wrong"}):
            pass
    message = str(caught.value)
    assert message.startswith(f"Could not connect to MCP server '{notes_url}'")
    assert message.endswith("check the URL, that the server is running, and the headers it needs.")


async def test_an_address_nobody_listens_on_is_a_connection_error() -> None:
    """A refused TCP connection fails at connect with the same guidance."""
    with pytest.raises(MCPConnectionError, match="Could not connect to MCP server 'local'"):
        async with connect_http("http://127.0.0.1:9/mcp", name="local", connect_timeout=20):
            pass
