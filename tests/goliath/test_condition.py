"""The condition check: after a look-up, a write runs only when what was found allows it."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent
from goliath.errors import ConfigError
from goliath.events import CheckEvent
from goliath.models import Generation
from goliath.records import StepRecord
from goliath.testing import FakeModel
from goliath.turn.condition import (
    CONDITION_SYSTEM,
    condition_request,
    findings,
    read_condition,
    states_condition,
)
from goliath.turn.stages import STAGES
from tests.helpers import task_tools

PLAN_LIST_THEN_ADD = {"json": {"call": "list_tasks", "then": "create_task"}}
GO_ON = {"json": {"call": "create_task"}}
ASK = "add buy bread unless I already have two tasks"


def condition(word: str, *, yes: float | None = None, no: float | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"json": {"go": word}}
    if yes is not None and no is not None:
        entry["scores"] = {"yes": yes, "no": no}
    return entry


async def test_a_write_whose_condition_the_read_rules_out_is_not_called() -> None:
    tasks, tools = task_tools()
    model = FakeModel(
        [
            PLAN_LIST_THEN_ADD,
            GO_ON,
            {"json": {"title": "Buy bread"}},
            condition("no", yes=-2.0, no=-0.2),
            {"text": "You already have two tasks, so I added nothing."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        result = await agent.run(ASK)
    labels = [call.label for call in model.calls]
    assert labels == ["conductor", "conductor", "arguments", "condition", "answer"]
    assert tasks == [{"title": "Buy milk"}, {"title": "Call mom"}]  # nothing added
    assert [step.tool for step in result.steps if step.kind == "tool"] == ["list_tasks"]
    checked = model.calls[3]
    assert checked.system == CONDITION_SYSTEM
    assert "Buy milk" in checked.prompt and 'create_task(title: "Buy bread")' in checked.prompt
    assert "condition is not met" in model.calls[4].prompt
    events = [event for event in result.trace if isinstance(event, CheckEvent)]
    assert [(e.check, e.passed) for e in events] == [("condition", False)]
    assert events[0].margin == pytest.approx(1.8)


async def test_a_write_whose_condition_holds_goes_ahead() -> None:
    tasks, tools = task_tools()
    model = FakeModel(
        [
            PLAN_LIST_THEN_ADD,
            GO_ON,
            {"json": {"title": "Buy bread"}},
            condition("yes", yes=-0.1, no=-2.5),
            {"text": "Added Buy bread."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        result = await agent.run("add buy bread unless it's there")
    assert tasks[-1] == {"title": "Buy bread"}
    assert result.text == "Added Buy bread."


async def test_a_write_with_nothing_read_before_it_is_not_checked() -> None:
    tasks, tools = task_tools()
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "answer_the_user"}},
            {"json": {"title": "Buy bread"}},
            {"text": "Added Buy bread."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        await agent.run("add buy bread")
    assert "condition" not in [call.label for call in model.calls]
    assert tasks[-1] == {"title": "Buy bread"}


async def test_the_check_is_off_for_a_model_that_does_not_score_options() -> None:
    tasks, tools = task_tools()
    model = FakeModel(
        [PLAN_LIST_THEN_ADD, GO_ON, {"json": {"title": "Buy bread"}}, {"text": "Added Buy bread."}]
    )
    agent = Agent(model, tools=tools, auto_approve=True)
    assert agent.config.condition_check is False
    async with agent:
        await agent.run(ASK)
    assert "condition" not in [call.label for call in model.calls]
    assert tasks[-1] == {"title": "Buy bread"}


async def test_a_write_after_a_read_in_an_ask_that_states_no_condition_is_not_checked() -> None:
    tasks, tools = task_tools()
    model = FakeModel(
        [PLAN_LIST_THEN_ADD, GO_ON, {"json": {"title": "Buy bread"}}, {"text": "Added Buy bread."}]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        await agent.run("look at my tasks and then add buy bread")
    assert "condition" not in [call.label for call in model.calls]
    assert tasks[-1] == {"title": "Buy bread"}


@pytest.mark.parametrize(
    ("ask", "states"),
    [
        ("add stamps unless they're already on my list", True),
        ("If I'm free at 2, put the post office in", True),
        ("lunch w olivia thu 12 - only if I'm free", True),
        ("make sure bin bags are on my list", True),
        ("check whether Noor's birthday is today and wish her a happy one", True),
        ("find the scan of my passport and rename it", False),
        ("play the newest episode of my podcast", False),
        ("Lock any door that's still unlocked", False),
        ("what's the gift idea for Noor?", False),
    ],
)
def test_an_ask_states_a_condition_by_its_connectives(ask: str, states: bool) -> None:
    assert states_condition(ask) is states


def test_scores_decide_and_an_unscored_reply_withholds_only_on_no() -> None:
    assert not read_condition(Generation(text="{}", scores={"yes": -2.0, "no": -1.0})).go
    assert read_condition(Generation(text="{}", scores={"yes": -2.0, "no": -1.0}), 1.5).go
    assert not read_condition(Generation(text='{"go": "no"}')).go
    assert read_condition(Generation(text='{"go": "yes"}')).go
    assert read_condition(Generation(text="garbled")).go  # unreadable: the confirmation decides


def test_only_reads_that_returned_something_are_findings() -> None:
    steps = [
        StepRecord(index=0, kind="tool", brief="b", tool="list_tasks", result="1. title: a"),
        StepRecord(index=1, kind="tool", brief="b", tool="search", result="x", failed=True),
        StepRecord(index=2, kind="tool", brief="b", tool="create_task", result="ok", writes=True),
    ]
    assert [step.tool for step in findings(steps)] == ["list_tasks"]


def test_the_request_is_the_stages_row() -> None:
    _, tools = task_tools()
    read = StepRecord(
        index=0, kind="tool", brief="b", tool="list_tasks", result="1. title: Buy milk"
    )
    request = condition_request("add eggs", tools[1], {"title": "Eggs"}, [read])
    row = STAGES["condition"]
    assert (request.max_output_tokens, request.max_string_length) == (
        row.output_tokens,
        row.string_length,
    )
    assert request.label == "condition" and request.score == "go"
    assert request.prompt.splitlines()[:3] == [
        "Request: add eggs",
        "Found:",
        "- list_tasks: 1. title: Buy milk",
    ]


def test_the_option_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match="condition_check"):
        Agent(FakeModel([]), condition_check="yes")  # type: ignore[arg-type]
