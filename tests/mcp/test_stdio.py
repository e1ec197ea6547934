"""goliath.mcp over stdio against a real MCP server process, driven by full agent turns."""

from __future__ import annotations

import sys
from typing import Any

import pytest
import trio
import trio.testing
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from goliath import Agent, ConfigError, ConfirmRequest, Decision, ToolContext
from goliath.mcp import MCPConnection, MCPConnectionError, connect_stdio
from goliath.testing import FakeModel
from goliath.tracing import Tracing

from ..helpers import answer, answer_plan, use
from .conftest import ROOT, SERVER

pytestmark = pytest.mark.slow
FIVE = ["list_notes", "read_note", "add_note", "delete_note", "word_count"]


async def titles(notes: MCPConnection) -> list[str]:
    (list_notes,) = notes.tools(select=["list_notes"])
    return [row["title"] for row in await list_notes.run({}, ToolContext())]


async def test_the_listing_maps_annotations_and_refuses_deep_schemas(notes: MCPConnection) -> None:
    """Reads stay reads, everything else needs confirmation, and a nested schema is refused."""
    assert notes.name == "notes"
    assert notes.names == [*FIVE, "wait_for_ever", "trace_parent", "render_note"]
    assert list(notes.refused) == ["render_note"]
    assert notes.refused["render_note"].startswith("argument 'style' is a nested object")
    tools = {tool.name: tool for tool in notes.tools(select=FIVE)}
    assert {name: (t.writes, t.requires_confirmation) for name, t in tools.items()} == {
        "list_notes": (False, False),
        "read_note": (False, False),
        "add_note": (True, True),  # readOnlyHint false, destructiveHint false
        "delete_note": (True, True),  # destructiveHint true
        "word_count": (True, True),  # no annotations: the spec's defaults
    }
    assert tools["list_notes"].description == "List the notes by title."
    assert not tools["list_notes"].has_arguments


async def test_selection_errors_name_the_tools(notes: MCPConnection) -> None:
    """More than five, unknown, refused or unselected-with-refusals each get a clear ConfigError."""
    with pytest.raises(ConfigError, match=r"lists 8 tools; pick at most 5 .* Refused: render_note"):
        notes.tools()
    with pytest.raises(ConfigError, match=r"at most 5 tools per agent .* got 6"):
        notes.tools(select=[*FIVE, "render_note"])
    with pytest.raises(ConfigError, match="has no tool 'edit_note'; it has: list_notes"):
        notes.tools(select=["edit_note"])
    with pytest.raises(ConfigError, match="'render_note' of server 'notes' cannot be offered"):
        notes.tools(select=["render_note"])
    with pytest.raises(ConfigError, match="not the string"):
        notes.tools(select="list_notes")


async def test_an_agent_reads_through_mcp_and_the_turn_is_traced(notes: MCPConnection) -> None:
    """A read tool runs on the server; its structured result is compressed like any other."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = FakeModel([use("list_notes"), answer_plan(), answer("Garden and shopping.")])
    tracing = Tracing(provider, model=model)
    async with Agent(
        model, tools=notes.tools(select=["list_notes"]), extensions=[tracing]
    ) as agent:
        result = await agent.run("which notes do I have?")
    assert result.text == "Garden and shopping."
    assert result.steps[0].result == "1. title: garden, words: 3\n2. title: shopping, words: 2"
    assert result.steps[0].output == [
        {"title": "garden", "words": "3"},
        {"title": "shopping", "words": "2"},
    ]
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "execute_tool list_notes"]
    assert span.attributes is not None and span.attributes["goliath.tool.outcome"] == "executed"


async def test_the_trace_reaches_the_server_with_the_call(notes: MCPConnection) -> None:
    """The tool span is current while an MCP tool runs, so the call carries its traceparent."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = FakeModel([use("trace_parent"), answer_plan(), answer("Traced.")])
    tools = notes.tools(select=["trace_parent"])
    async with Agent(model, tools=tools, extensions=[Tracing(provider)]) as agent:
        result = await agent.run("trace it")
    (span,) = [s for s in exporter.get_finished_spans() if s.name.startswith("execute_tool")]
    version, trace_id, _parent, _flags = str(result.steps[0].output).split("-")
    assert (version, int(trace_id, 16)) == ("00", span.context.trace_id)


async def test_the_arguments_call_fills_mcp_arguments_under_the_servers_schema(
    notes: MCPConnection,
) -> None:
    """The arguments call's schema carries the server's descriptions; its arguments reach the server."""
    model = FakeModel(
        [
            use("read_note"),
            {"json": {"title": "garden", "max_chars": 8}},
            answer_plan(),
            answer("Sun."),
        ]
    )
    async with Agent(model, tools=notes.tools(select=["read_note"])) as agent:
        result = await agent.run("what does my garden note say?")
    arguments_schema = model.calls[1].schema
    assert arguments_schema is not None
    assert (
        arguments_schema["properties"]["title"]["description"] == "The note's title, e.g. garden."
    )
    assert result.steps[0].result == "Tomatoes"


async def test_a_tool_error_from_the_server_is_a_failed_step(notes: MCPConnection) -> None:
    """isError results fail the step with the server's message; the turn goes on."""
    model = FakeModel(
        [use("read_note"), {"json": {"title": "roses"}}, answer_plan(), answer("No such note.")]
    )
    async with Agent(model, tools=notes.tools(select=["read_note"])) as agent:
        result = await agent.run("read my roses note")
    step = result.steps[0]
    assert step.failed
    assert step.result is not None and "no note called 'roses'" in step.result
    assert result.text == "No such note."


@pytest.mark.parametrize(
    ("confirm", "approved", "remaining"),
    [
        (None, False, ["garden", "shopping"]),  # no handler: requires_confirmation declines
        (lambda request: Decision(False, "keep it"), False, ["garden", "shopping"]),
        (lambda request: True, True, ["shopping"]),
    ],
    ids=["no-handler", "declined", "approved"],
)
async def test_a_destructive_tool_runs_only_when_confirmed(
    notes: MCPConnection, confirm: Any, approved: bool, remaining: list[str]
) -> None:
    """delete_note (destructiveHint) waits for confirmation; only an approval deletes."""
    asked: list[ConfirmRequest] = []

    def recording(request: ConfirmRequest) -> Any:
        asked.append(request)
        return confirm(request)

    model = FakeModel(
        [use("delete_note"), {"json": {"title": "garden"}}, answer_plan(), answer("Handled.")]
    )
    tools = notes.tools(select=["delete_note"])
    async with Agent(model, tools=tools, confirm=recording if confirm else None) as agent:
        result = await agent.run("delete my garden note")
    step = result.steps[0]
    assert step.skipped is not approved
    if approved:
        assert step.result == "deleted garden"
    else:
        assert step.skip_reason == "confirmation"
    if confirm is not None:
        assert [(r.tool, r.input) for r in asked] == [("delete_note", {"title": "garden"})]
    assert await titles(notes) == remaining


async def test_options_rename_retype_and_redescribe_tools(notes: MCPConnection) -> None:
    """prefix, read_only and descriptions change what the agent sees, not what the server runs."""
    (counter,) = notes.tools(
        select=["word_count"],
        prefix="notes_",
        read_only=["word_count"],
        descriptions={"word_count": "Count words."},
    )
    assert (counter.name, counter.writes, counter.description) == (
        "notes_word_count",
        False,
        "Count words.",
    )
    model = FakeModel(
        [use("notes_word_count"), {"json": {"text": "one two three"}}, answer_plan(), answer("3.")]
    )
    async with Agent(model, tools=[counter]) as agent:
        result = await agent.run("how many words in 'one two three'?")
    assert result.steps[0].result == "3"
    assert [event.type for event in result.trace].count("confirm") == 0


async def test_a_cancelled_turn_cancels_its_mcp_call_and_the_connection_lives_on(
    notes: MCPConnection,
) -> None:
    """Cancelling a run while its call waits on the server ends the run; the connection stays
    usable."""
    model = FakeModel([use("wait_for_ever")])
    outcome: list[str] = []
    async with Agent(model, tools=notes.tools(select=["wait_for_ever"])) as agent:

        async def run_until_cancelled(scope: trio.CancelScope) -> None:
            with scope:
                await agent.run("wait")
                outcome.append("finished")
            outcome.append("cancelled" if scope.cancelled_caught else "?")

        async with trio.open_nursery() as nursery:
            scope = trio.CancelScope()
            nursery.start_soon(run_until_cancelled, scope)
            await trio.testing.wait_all_tasks_blocked()  # the call is out, awaiting the server
            scope.cancel()
    assert outcome == ["cancelled"]
    assert await titles(notes) == ["garden", "shopping"]


async def test_tools_fail_clearly_after_the_connection_closed() -> None:
    """Used outside its block, a tool's step fails with a message saying how to fix it."""
    async with connect_stdio(SERVER[0], SERVER[1:], cwd=ROOT) as connection:
        tools = connection.tools(select=["list_notes"])
    assert connection.closed
    with pytest.raises(MCPConnectionError, match=r"call tools\(\) inside its `async with` block"):
        connection.tools(select=["list_notes"])
    model = FakeModel([use("list_notes"), answer_plan(), answer("Sorry.")])
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("list my notes")
    step = result.steps[0]
    assert step.failed
    assert step.result is not None
    assert step.result.startswith("error: The connection to MCP server 'notes' is closed")


async def test_an_error_inside_the_block_comes_out_unwrapped() -> None:
    """The caller's own exception leaves the block as itself, not inside an ExceptionGroup."""
    with pytest.raises(KeyError):
        async with connect_stdio(SERVER[0], SERVER[1:], cwd=ROOT):
            raise KeyError("mine")


async def test_a_command_that_does_not_exist_is_a_connection_error() -> None:
    """A missing program fails at connect with a message naming it."""
    with pytest.raises(
        MCPConnectionError, match="Could not connect to MCP server 'no-such-server'"
    ):
        async with connect_stdio("/nonexistent/no-such-server"):
            pass


async def test_a_server_that_exits_is_a_connection_error() -> None:
    """A program that is not an MCP server (it exits at once) fails at connect."""
    with pytest.raises(MCPConnectionError, match="speaks MCP on stdin/stdout"):
        async with connect_stdio(sys.executable, ["-c", "pass"], name="quitter"):
            pass


async def test_a_server_that_never_answers_times_out(autojump_clock: trio.abc.Clock) -> None:
    """A silent program fails after connect_timeout instead of hanging the caller."""
    silent = ["-c", "import sys; sys.stdin.read()"]
    with pytest.raises(MCPConnectionError, match="did not answer within 5 s"):
        async with connect_stdio(sys.executable, silent, name="silent", connect_timeout=5):
            pass
