"""A write only when the ask asks for that change (goliath/turn/write_gate.py)."""

from __future__ import annotations

from typing import Any

import msgspec

from goliath import Agent, StepRecord, tool
from goliath.testing import FakeModel
from goliath.turn.write_gate import is_absent, withheld_write
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
    note = withheld_write(create_task, {"title": "milk"}, [read(TASKS)])
    assert note is not None and "already there" in note and "Buy milk" in note


def test_adding_what_is_not_there_goes_ahead() -> None:
    steps = [read(TASKS)]
    assert withheld_write(create_task, {"title": "Buy stamps"}, steps) is None
    # every word of the title must be in one title: "buy" alone is not "Buy milk"
    assert withheld_write(create_task, {"title": "Buy bread"}, steps) is None


def test_plurals_and_wrapped_lists_are_matched() -> None:
    steps = [read({"tasks": [{"title": "Buy bin bag"}], "count": 1})]
    assert withheld_write(create_task, {"title": "bin bags"}, steps) is not None


def test_a_change_to_an_item_the_read_returned_goes_ahead() -> None:
    steps = [read(TASKS)]
    assert withheld_write(complete_task, {"title": "Buy milk"}, steps) is None


def test_a_change_to_an_item_picked_by_a_property_goes_ahead() -> None:
    """An ask may pick its item by a property ("whatever is due today"), naming no title: the
    harness cannot tell that from a wrong pick, so it does not judge it."""
    steps = [read(TASKS)]
    assert withheld_write(complete_task, {"title": "Buy milk"}, steps) is None


@tool(writes=True)
def log_medication(title: str) -> str:
    """Log a dose."""
    return "logged"


def test_a_write_of_another_verb_is_not_judged() -> None:
    steps = [read(TASKS)]
    assert withheld_write(log_medication, {"title": "Vitamin D"}, steps) is None


def test_a_change_to_an_item_no_read_returned_is_withheld() -> None:
    steps = [read(TASKS)]
    note = withheld_write(complete_task, {"title": "dentist"}, steps)
    assert note is not None and "is among the items found" in note and note.startswith("No title")


def test_no_decision_without_a_read_of_the_same_kind_of_item() -> None:
    """Contacts have no ``to``; with no read at all there is nothing to decide by either."""
    contacts = [read([{"name": "Sam", "phone": "555"}], "find_contact")]
    assert withheld_write(send_message, {"to": "Sam", "text": "hi"}, contacts) is None
    assert withheld_write(complete_task, {"title": "dentist"}, []) is None
    failed = read(TASKS)
    failed.failed = True
    assert withheld_write(create_task, {"title": "milk"}, [failed]) is None


@tool(writes=True)
def add_item(name: str, list_name: str) -> dict[str, Any]:
    """Add an item to a shopping list."""
    return {"name": name}


def test_a_read_of_the_lists_says_nothing_of_what_is_on_one() -> None:
    """``list_lists`` names the lists in the ``name`` field that ``add_item`` fills: its items
    are where the write goes, not items of its kind, so they neither show the item absent nor
    withhold it; a read of the list's own items still decides."""
    lists = read([{"name": "Groceries", "to_buy": 6}, {"name": "Pharmacy"}], "list_lists")
    chickpeas = {"name": "chickpeas", "list_name": "Groceries"}
    assert not is_absent(add_item, chickpeas, [lists])
    assert (
        withheld_write(add_item, {"name": "groceries", "list_name": "Groceries"}, [lists]) is None
    )
    items = read([{"name": "Chickpeas", "qty": 2}, {"name": "Oat milk"}], "get_list")
    assert withheld_write(add_item, chickpeas, [lists, items]) is not None
    assert is_absent(add_item, {"name": "tahini", "list_name": "Groceries"}, [lists, items])


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


async def test_an_add_is_withheld_even_when_the_read_was_over_the_records_size_cap() -> None:
    """The record leaves a large listing out (``raw_output_bytes``); the gate still sees it."""
    tasks, tools = task_tools()
    model = FakeModel(
        [
            {"json": {"call": "list_tasks", "then": "create_task"}},
            {"json": {"call": "create_task"}},
            {"json": {"title": "milk"}},
            answer("Buy milk is already on your list."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, raw_output_bytes=10) as agent:
        result = await agent.run("add milk to my list unless it's already there")
    assert result.steps[0].output is None and result.steps[0].output_omitted is not None
    assert tasks == [{"title": "Buy milk"}, {"title": "Call mom"}]
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["list_tasks"]


def added(title: str, name: str = "create_task", **changes: Any) -> StepRecord:
    step = StepRecord(
        index=0,
        kind="tool",
        brief="",
        tool=name,
        input={"title": title},
        writes=True,
        result="ok: true",
    )
    return msgspec.structs.replace(step, **changes)


@tool(writes=True)
def remove_item(title: str, list_name: str) -> dict[str, Any]:
    """Take an item off a list."""
    return {"removed": title}


def test_ending_the_item_this_turn_just_added_is_withheld() -> None:
    """ "New task: renew the swim pass by Friday. Mark it as high priority." was created,
    then completed: the 1.5B model read "mark" as "mark done"."""
    note = withheld_write(
        complete_task, {"title": "renew the swim pass"}, [added("Renew swim pass")]
    )
    assert note is not None and "just added" in note and "Renew swim pass" in note


def test_an_end_of_another_item_or_of_an_add_that_did_not_run_goes_ahead() -> None:
    assert withheld_write(complete_task, {"title": "Buy milk"}, [added("Renew swim pass")]) is None
    failed = added("Renew swim pass", failed=True)
    assert withheld_write(complete_task, {"title": "swim pass"}, [failed]) is None
    skipped = added("Renew swim pass", skipped=True)
    assert withheld_write(complete_task, {"title": "swim pass"}, [skipped]) is None
    # another item whose name holds the target's words: "call mom about the trip" added,
    # "call mom" completed
    assert (
        withheld_write(complete_task, {"title": "call mom"}, [added("Call mom about the trip")])
        is None
    )
    # the same words in another field of the add: the list, not the item
    in_list = added("Milk", input={"title": "Milk", "list_name": "Groceries"})
    assert withheld_write(complete_task, {"title": "Groceries"}, [in_list]) is None
    # the same name in another place: eggs added to Shopping, removed from Pantry
    eggs = added("Eggs", name="add_item", input={"title": "Eggs", "list_name": "Shopping"})
    assert withheld_write(remove_item, {"title": "eggs", "list_name": "Pantry"}, [eggs]) is None
    assert (
        withheld_write(remove_item, {"title": "eggs", "list_name": "Shopping"}, [eggs]) is not None
    )
    # another kind of item: an event added, a task of the same name completed
    event = added("Dentist", name="create_event")
    assert withheld_write(complete_task, {"title": "Dentist"}, [event]) is None
    # a read of the item is not an add
    listed = StepRecord(index=0, kind="tool", brief="", tool="list_tasks", input={"title": "x"})
    assert withheld_write(complete_task, {"title": "x"}, [listed]) is None


def by_stage(turns: dict[str, tuple[list[Any], list[Any]]], text: str) -> Any:
    """A script that answers each turn's plans and arguments from that turn's own queues
    (the turn is the ask found last in the prompt), so the test does not pin how many checks
    a turn makes between its plans."""

    def reply(request: Any) -> dict[str, Any]:
        ask = max(turns, key=lambda said: request.prompt.rfind(said))
        plans, arguments = turns[ask]
        if request.label == "conductor":
            return {"json": plans.pop(0) if plans else {"call": "answer_the_user"}}
        if request.label == "arguments":
            return {"json": arguments.pop(0)}
        return {"text": text}

    return reply


def end_tools(tasks: list[str]) -> list[Any]:
    @tool(writes=True)
    def create_task(title: str, priority: str = "normal") -> dict[str, Any]:
        """Add a task."""
        tasks.append(title)
        return {"ok": True, "title": title, "priority": priority}

    @tool(writes=True)
    def complete_task(title: str) -> dict[str, Any]:
        """Mark a task done."""
        tasks.remove(title)
        return {"ok": True, "done": title}

    return [create_task, complete_task]


ASK = "New task: renew the swim pass. Mark it as high priority."


async def test_an_end_of_the_item_just_added_runs_no_tool_and_tells_the_answer() -> None:
    tasks: list[str] = []
    model = FakeModel(
        by_stage(
            {
                ASK: (
                    [{"call": "create_task", "then": "complete_task"}, {"call": "complete_task"}],
                    [
                        {"title": "Renew swim pass", "priority": "high"},
                        {"title": "renew the swim pass"},
                    ],
                )
            },
            "Added Renew swim pass, high priority.",
        )
    )
    async with Agent(model, tools=end_tools(tasks), auto_approve=True) as agent:
        result = await agent.run(ASK)
    assert tasks == ["Renew swim pass"]
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["create_task"]
    assert "just added" in model.calls[-1].prompt


async def test_an_item_added_in_an_earlier_turn_can_be_ended() -> None:
    """Only this turn's adds count: "add renew swim pass", then "mark it done" next turn."""
    tasks: list[str] = []
    model = FakeModel(
        by_stage(
            {
                "add renew swim pass": (
                    [{"call": "create_task", "then": "answer_the_user"}],
                    [{"title": "Renew swim pass"}],
                ),
                "now mark renew swim pass done": (
                    [{"call": "complete_task"}],
                    [{"title": "Renew swim pass"}],
                ),
            },
            "Done.",
        )
    )
    async with Agent(model, tools=end_tools(tasks), auto_approve=True) as agent:
        await agent.run("add renew swim pass")
        assert tasks == ["Renew swim pass"]
        result = await agent.run("now mark renew swim pass done")
    assert tasks == []
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["complete_task"]
