"""The write-intent check: a write runs only when the request asks for that change."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent
from goliath.errors import ConfigError
from goliath.evaluation.fixtures import Fixture
from goliath.evaluation.probes import intent_pairs
from goliath.models import Generation
from goliath.testing import FakeModel
from goliath.turn.intent import INTENT_SYSTEM, intent_request, read_intent
from goliath.turn.stages import STAGES
from tests.helpers import task_tools

PLAN_ADD = {"json": {"call": "create_task", "then": "answer_the_user"}}


def intent(word: str, *, yes: float | None = None, no: float | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"json": {"asked": word}}
    if yes is not None and no is not None:
        entry["scores"] = {"yes": yes, "no": no}
    return entry


async def test_a_write_the_request_did_not_ask_for_is_not_called() -> None:
    tasks, tools = task_tools()
    model = FakeModel([PLAN_ADD, intent("no", yes=-2.5, no=-0.1), {"text": "You have two tasks."}])
    async with Agent(model, tools=tools, auto_approve=True, write_intent_check=True) as agent:
        result = await agent.run("how many tasks do I have?")
    assert [call.label for call in model.calls] == ["conductor", "intent", "answer"]
    assert tasks == [{"title": "Buy milk"}, {"title": "Call mom"}]  # nothing added
    assert [step.kind for step in result.steps] == ["answer"] and result.handled_by == "device"
    assert "did not ask to add a task" in model.calls[2].prompt


async def test_a_write_the_request_asked_for_goes_ahead() -> None:
    tasks, tools = task_tools()
    model = FakeModel(
        [
            PLAN_ADD,
            intent("yes", yes=-0.05, no=-3.0),
            {"json": {"title": "Buy bread"}},
            {"text": "Added Buy bread."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, write_intent_check=True) as agent:
        result = await agent.run("add buy bread to my tasks")
    assert [call.label for call in model.calls] == ["conductor", "intent", "arguments", "answer"]
    assert tasks[-1] == {"title": "Buy bread"}
    assert result.text == "Added Buy bread."
    asked = model.calls[1]
    assert asked.system == INTENT_SYSTEM
    assert asked.prompt.startswith("Request: add buy bread to my tasks\nChange: create_task (")


async def test_the_check_is_off_unless_asked_for() -> None:
    tasks, tools = task_tools()
    model = FakeModel([PLAN_ADD, {"json": {"title": "Buy bread"}}, {"text": "Added Buy bread."}])
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        await agent.run("add buy bread")
    assert "intent" not in [call.label for call in model.calls]
    assert tasks[-1] == {"title": "Buy bread"}


def test_scores_decide_and_an_unscored_reply_withholds_only_on_no() -> None:
    assert not read_intent(Generation(text="{}", scores={"yes": -2.0, "no": -1.0})).asked
    assert read_intent(Generation(text="{}", scores={"yes": -2.0, "no": -1.0}), 1.5).asked
    assert not read_intent(Generation(text='{"asked": "no"}')).asked
    assert read_intent(Generation(text='{"asked": "yes"}')).asked
    assert read_intent(Generation(text="garbled")).asked  # unreadable: the confirmation decides


def test_the_probe_sends_what_the_turn_sends() -> None:
    _, tools = task_tools()
    request = intent_request("add eggs", tools[1])
    row = STAGES["intent"]
    assert (request.max_output_tokens, request.max_string_length) == (
        row.output_tokens,
        row.string_length,
    )
    assert request.label == "intent" and request.score == "asked"


def test_intent_pairs_ask_about_the_good_runs_writes_or_every_write() -> None:
    _, listed = task_tools()
    tools = {tool.name: tool for tool in listed}
    add = Fixture(id="add", ask="add eggs", tools=["create_task"], handled_by="device")
    read = Fixture(id="read", ask="what's on my list", tools=["list_tasks"], handled_by="device")
    assert [(t.name, asked) for t, asked in intent_pairs(add, tools)] == [("create_task", True)]
    assert [(t.name, asked) for t, asked in intent_pairs(read, tools)] == [("create_task", False)]


def test_the_option_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match="write_intent_check"):
        Agent(FakeModel([]), write_intent_check=1)  # type: ignore[arg-type]
