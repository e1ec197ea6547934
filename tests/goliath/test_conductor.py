"""The conductor's retry narrows the schema to what its hint asks for."""

from __future__ import annotations

from goliath import Agent
from goliath.testing import FakeModel
from tests.helpers import answer, plan, task_tools


async def test_a_tool_plan_without_a_tool_is_retried_with_the_tool_required() -> None:
    """After a plan naming no tool, the retry offers only the tools (the first also offered
    answering and the hand-off)."""
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
    offered = first["properties"]["call"]["enum"]
    assert offered == [
        "list_tasks",
        "create_task",
        "general_knowledge_or_chat",
        "beyond_these_functions",
    ]
    assert retry["properties"]["call"]["enum"] == offered[:2]
    assert model.calls[1].prompt.endswith(
        "There is no function (none). Pick one of: list_tasks, create_task."
    )
    assert result.text == "Milk and mom." and result.steps[0].tool == "list_tasks"


async def test_a_malformed_reply_is_retried_with_the_usual_schema() -> None:
    """A reply that is not JSON at all does not change the schema of the retry."""
    _, tools = task_tools()
    model = FakeModel([{"text": "not json"}, plan("answer"), answer("Hi.")])
    async with Agent(model, tools=tools) as agent:
        await agent.run("hi")
    assert model.calls[1].schema is not None
    assert model.calls[1].schema == model.calls[0].schema
