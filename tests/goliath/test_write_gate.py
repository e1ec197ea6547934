"""A write only when the ask asks for that change (goliath/turn/write_gate.py)."""

from __future__ import annotations

from typing import Any

from goliath import Agent, StepRecord, tool
from goliath.testing import FakeModel
from goliath.turn.write_gate import withheld_write
from tests.helpers import answer, task_tools

TASKS = [{"title": "Buy milk", "due": "friday"}, {"title": "Call mom about the trip"}]


@tool(writes=True)
def create_task(title: str, due: str | None = None) -> dict[str, Any]:
    """Add a task."""
    return {"title": title}


@tool(writes=True)
def complete_task(title: str) -> dict[str, Any]:
    """Mark a task done."""
    return {"title": title, "done": True}


@tool(writes=True)
def send_message(to: str, text: str) -> str:
    """Send a text message."""
    return "sent"


def read(output: Any, name: str = "list_tasks") -> StepRecord:
    return StepRecord(index=0, kind="tool", brief="", tool=name, output=output, result="...")


def test_adding_what_the_read_shows_is_there_is_withheld() -> None:
    note = withheld_write(
        create_task, {"title": "milk"}, [read(TASKS)], "add milk unless it's there"
    )
    assert note is not None and "already there" in note and "Buy milk" in note


def test_adding_what_is_not_there_goes_ahead() -> None:
    steps = [read(TASKS)]
    assert withheld_write(create_task, {"title": "Buy stamps"}, steps, "add buy stamps") is None
    # every word of the title must be in one title: "buy" alone is not "Buy milk"
    assert withheld_write(create_task, {"title": "Buy bread"}, steps, "add buy bread") is None


def test_plurals_and_wrapped_lists_are_matched() -> None:
    steps = [read({"tasks": [{"title": "Buy bin bag"}], "count": 1})]
    assert withheld_write(create_task, {"title": "bin bags"}, steps, "add bin bags") is not None


def test_a_change_to_an_item_the_ask_names_goes_ahead() -> None:
    steps = [read(TASKS)]
    ask = "tick off the milk one"
    assert withheld_write(complete_task, {"title": "Buy milk"}, steps, ask) is None


def test_a_change_to_an_item_the_ask_never_named_is_withheld() -> None:
    """The read listed other tasks; the worker filled one of them for an absent one."""
    steps = [read(TASKS)]
    note = withheld_write(complete_task, {"title": "Buy milk"}, steps, "mark the dentist done")
    assert note is not None and "does not name" in note


def test_a_change_to_an_item_no_read_returned_is_withheld() -> None:
    steps = [read(TASKS)]
    note = withheld_write(complete_task, {"title": "dentist"}, steps, "mark the dentist done")
    assert note is not None and "is among the items found" in note and note.startswith("No title")


def test_a_follow_up_names_the_item_through_the_recent_exchanges() -> None:
    steps = [read(TASKS)]
    recent = ["what about my mom? You have 'Call mom about the trip' on your list."]
    assert (
        withheld_write(
            complete_task, {"title": "Call mom about the trip"}, steps, "mark it done", recent
        )
        is None
    )


def test_no_decision_without_a_read_of_the_same_kind_of_item() -> None:
    """Contacts have no ``to``; with no read at all there is nothing to decide by either."""
    contacts = [read([{"name": "Sam", "phone": "555"}], "find_contact")]
    assert (
        withheld_write(send_message, {"to": "Sam", "text": "hi"}, contacts, "text sam hi") is None
    )
    assert withheld_write(complete_task, {"title": "dentist"}, [], "mark the dentist done") is None
    failed = read(TASKS)
    failed.failed = True
    assert withheld_write(create_task, {"title": "milk"}, [failed], "add milk") is None


async def test_a_withheld_add_runs_no_tool_asks_no_one_and_tells_the_answer() -> None:
    tasks, tools = task_tools()
    asked: list[Any] = []
    model = FakeModel(
        [
            {"json": {"call": "list_tasks", "then": "create_task"}},
            {"json": {"call": "create_task"}},
            {"json": {"title": "milk"}},
            answer("Buy milk is already on your list."),
        ]
    )
    async with Agent(
        model, tools=tools, confirm=lambda request: asked.append(request) or True
    ) as agent:
        result = await agent.run("add milk to my list unless it's already there")
    assert tasks == [{"title": "Buy milk"}, {"title": "Call mom"}]
    assert asked == []
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["list_tasks"]
    assert "already there" in model.calls[-1].prompt
    assert result.text == "Buy milk is already on your list."
