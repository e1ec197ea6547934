"""The conductor's retry narrows the schema to what its hint asks for."""

from __future__ import annotations

from goliath import Agent
from goliath.testing import FakeModel
from tests.helpers import answer, plan, task_tools


async def test_a_tool_plan_without_a_tool_is_retried_with_the_tool_required() -> None:
    """After kind=tool with no tool name, the retry's schema requires `tool` (the first did not)."""
    _, tools = task_tools()
    model = FakeModel(
        [
            {"json": {"kind": "tool", "brief": "look at the list"}},
            plan("tool", "list_tasks", "look at the list"),
            plan("answer"),
            answer("Milk and mom."),
        ]
    )
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("what's on my list?")
    first, retry = model.calls[0].schema, model.calls[1].schema
    assert first is not None and retry is not None
    assert first["required"] == ["kind", "brief"]
    assert retry["required"] == ["kind", "tool", "brief"]
    assert model.calls[1].prompt.endswith(
        "There is no tool (none). Pick one of: list_tasks, create_task. Or answer."
    )
    assert result.text == "Milk and mom." and result.steps[0].tool == "list_tasks"


async def test_a_malformed_reply_is_retried_with_the_usual_schema() -> None:
    """A reply that is not JSON at all does not change the schema of the retry."""
    _, tools = task_tools()
    model = FakeModel([{"text": "not json"}, plan("answer"), answer("Hi.")])
    async with Agent(model, tools=tools) as agent:
        await agent.run("hi")
    assert model.calls[1].schema is not None
    assert model.calls[1].schema["required"] == ["kind", "brief"]
