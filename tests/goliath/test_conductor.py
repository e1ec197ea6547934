"""The conductor's retry narrows the schema to what its hint asks for."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent
from goliath.extensions import Plan
from goliath.testing import FakeModel
from goliath.turn.conductor import InvalidPlan, parse_plan
from tests.helpers import answer, answer_plan, task_tools, use


async def test_a_tool_plan_without_a_tool_is_retried_with_the_tool_required() -> None:
    """After a plan naming no tool, the retry offers only the tools (the first also offered
    answering and the hand-off)."""
    _, tools = task_tools()
    model = FakeModel(
        [
            {"json": {"call": ""}},  # names no function
            use("list_tasks"),
            answer_plan(),
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
    model = FakeModel([{"text": "not json"}, answer_plan(), answer("Hi.")])
    async with Agent(model, tools=tools) as agent:
        await agent.run("hi")
    assert model.calls[1].schema is not None
    assert model.calls[1].schema == model.calls[0].schema


def test_a_reply_is_read_in_the_two_spellings_the_prompts_ask_for_and_no_other() -> None:
    """``{"call", "then"}`` (a first plan, followed) and ``{"call"}`` (this call alone) parse;
    the dropped spellings (``{"calls": [...]}``, ``{"kind", "tool", "brief"}``) and extra
    fields are malformed, not guessed at."""
    names = ["list_tasks", "create_task"]
    assert parse_plan('{"call": "list_tasks", "then": "create_task"}', names) == Plan(
        kind="tool", tool="list_tasks", then=("create_task",)
    )
    assert parse_plan('{"call": "list_tasks", "then": "answer_the_user"}', names) == Plan(
        kind="tool", tool="list_tasks", then=()
    )
    assert parse_plan('{"call": "list_tasks"}', names) == Plan(kind="tool", tool="list_tasks")
    assert parse_plan('{"call": "answer_the_user"}', names) == Plan(kind="answer", brief="reply")
    assert parse_plan('{"call": "beyond_these_functions", "then": "list_tasks"}', names) == Plan(
        kind="escalate", brief="beyond this device's functions"
    )
    for dropped in (
        '{"calls": ["list_tasks", "create_task"]}',
        '{"kind": "tool", "tool": "list_tasks", "brief": "list them"}',
        '{"kind": "answer", "brief": "reply"}',
        '{"call": "list_tasks", "why": "the list decides"}',
        '["list_tasks"]',
    ):
        parsed = parse_plan(dropped, names)
        assert isinstance(parsed, InvalidPlan) and not parsed.needs_tool, dropped
        assert parsed.hint.startswith("Your last reply was not a valid plan."), dropped


def test_a_plan_is_consistent_when_built() -> None:
    """A tool plan names its tool and only a tool plan does; the kind is one of three."""
    fields: dict[str, Any]
    for fields in (
        {"kind": "tool"},
        {"kind": "answer", "tool": "list_tasks"},
        {"kind": "dance"},
        {"kind": "tool", "tool": "list_tasks", "then": ["create_task"]},
    ):
        with pytest.raises(ValueError):
            Plan(**fields)
