"""A write that found nothing by the values it had looks the item up once (run.py, _recovery),
and is asked again; the item it then names must fit what the user said (repair.unmatched_items).
"""

from __future__ import annotations

from typing import Any

from goliath import tool
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.repair import not_found_parameters, unmatched_items

from ..spec.helpers import answer_plan, args, labels, offered_tools, reasons, run_turn, text, use

TASKS = [
    ("Pick up prescription", "Personal", "low"),
    ("Review Diego's pull request", "Work", "high"),
    ("Buy milk", "Personal", "low"),
]


class Tasks:
    """A to-do list; with ``listed``, the "not found" lists what there is, and "Work out" in it
    holds "work", which makes "high-priority work" a near miss."""

    def __init__(self, *, listed: bool = False) -> None:
        self.done: list[str] = []
        tasks = self

        @tool
        def list_tasks() -> str:
            """The open tasks, one line each."""
            return "\n".join(
                f"{n}. title: {title}, list: {where}, priority: {priority}"
                for n, (title, where, priority) in enumerate(TASKS, 1)
            )

        @tool(writes=True)
        def complete_task(title: str) -> str:
            """Mark an open task as done.

            Args:
                title: The task's title.
            """
            titles = [title for title, _, _ in TASKS]
            if title not in titles:
                there = f"; there are: {', '.join([*titles, 'Work out'])}" if listed else ""
                raise LookupError(f"no open task matches {title!r}{there}")
            tasks.done.append(title)
            return f"done: {title}"

        self.tools: list[Tool] = [list_tasks, complete_task]


def looked_up(first: str, again: str, answer: str) -> FakeModel:
    """A script: ``complete_task(first)`` fails, the look-up lists the tasks, the write is asked
    again as ``complete_task(again)``, and the answer follows (the plan is done)."""
    return FakeModel(
        [
            use("complete_task"),
            args(title=first),
            use("list_tasks"),  # the look-up, among the reads
            use("complete_task"),  # the write again: do it, or answer
            args(title=again),
            text(answer),
        ]
    )


async def test_a_write_not_found_looks_the_item_up_and_is_made_with_what_the_look_up_found() -> (
    None
):
    tasks = Tasks()
    model = looked_up(
        "high-priority work", "Review Diego's pull request", "Done: Review Diego's pull request."
    )
    result = await run_turn(model, "mark my high-priority work task as done", tools=tasks.tools)
    assert tasks.done == ["Review Diego's pull request"]
    assert [(s.tool, s.failed) for s in result.steps if s.kind == "tool"] == [
        ("complete_task", True),
        ("list_tasks", False),
        ("complete_task", False),
    ]
    look_up = model.calls[2]
    assert offered_tools(look_up) == ["list_tasks"]  # reads only
    assert "complete_task found nothing by the title it was given" in look_up.prompt


async def test_a_write_after_its_look_up_that_names_another_item_is_withheld() -> None:
    tasks = Tasks()
    # "Buy milk" shares only "buy" with what the user named
    model = looked_up("buy stamps", "Buy milk", "There is no task called buy stamps.")
    result = await run_turn(model, "mark buy stamps as done", tools=tasks.tools)
    assert tasks.done == []
    assert "nothing found matches it (title)" in model.calls[-1].prompt
    assert result.text == "There is no task called buy stamps."


async def test_the_same_write_again_after_the_look_up_answers_from_the_failure() -> None:
    tasks = Tasks()
    # the same call again: no loop, no hand-off
    model = looked_up(
        "water the plants", "water the plants", "There is no task called water the plants."
    )
    result = await run_turn(model, "mark water the plants as done", tools=tasks.tools)
    assert result.handled_by == "device"
    assert result.text == "There is no task called water the plants."
    assert tasks.done == []


async def test_the_look_up_happens_once_per_write() -> None:
    tasks = Tasks()
    # "Water plants" fits nothing found: withheld, and no second look-up
    model = looked_up("water the plants", "Water plants", "There is no such task.")
    await run_turn(model, "mark water the plants as done", tools=tasks.tools)
    assert labels(model).count("conductor") == 3
    assert tasks.done == []


async def test_a_write_with_no_read_beside_it_answers_from_the_failure() -> None:
    tasks = Tasks()
    model = FakeModel(
        [
            use("complete_task"),
            args(title="high-priority work"),
            answer_plan(),
            text("No such task."),
        ]
    )
    result = await run_turn(model, "mark my high-priority work task as done", tools=tasks.tools[1:])
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["complete_task"]


async def test_a_look_up_that_fails_too_answers_and_does_not_hand_the_turn_over() -> None:
    tasks = Tasks()

    @tool
    def find_task(query: str) -> str:
        """Search the tasks by words of their title."""
        raise LookupError(f"no task matches {query!r}")

    model = FakeModel(
        [
            use("complete_task"),
            args(title="water the plants"),
            use("find_task"),  # the look-up fails as well: two failures in a row
            args(query="water the plants"),
            text("There is no task called water the plants."),
        ]
    )
    result = await run_turn(
        model, "mark water the plants as done", tools=[find_task, tasks.tools[1]]
    )
    assert reasons(result) == []  # answered, not handed over as "tool-error"
    assert [(s.tool, s.failed) for s in result.steps if s.kind == "tool"] == [
        ("complete_task", True),
        ("find_task", True),
    ]
    assert result.text == "There is no task called water the plants."


def test_only_a_true_not_found_of_a_write_is_looked_up() -> None:
    tasks = Tasks()
    complete, read = tasks.tools[1], tasks.tools[0]
    missing = LookupError("no open task matches 'high-priority work'")
    assert not_found_parameters(missing, complete, {"title": "high-priority work"}) == ("title",)
    assert not_found_parameters(missing, read, {}) is None  # a read: not a write
    assert not_found_parameters(ValueError("bad day"), complete, {"title": "x"}) is None
    assert not_found_parameters(KeyError("title"), complete, {"title": "x"}) is None
    near = LookupError("no open task matches 'buy milk task'; there are: Buy milk, Call mom")
    assert not_found_parameters(near, complete, {"title": "buy milk task"}) == ("title",)


async def test_a_near_miss_is_filled_again_first_and_looked_up_when_that_changed_nothing() -> None:
    tasks = Tasks(listed=True)
    model = FakeModel(
        [
            use("complete_task"),
            args(title="high-priority work"),  # a near miss: "Work out" holds "work"
            args(title="high-priority work"),  # the repair writes the same call again
            use("list_tasks"),  # then the look-up
            use("complete_task"),
            args(title="Review Diego's pull request"),
            text("Done."),
        ]
    )
    await run_turn(model, "mark my high-priority work task as done", tools=tasks.tools)
    assert tasks.done == ["Review Diego's pull request"]
    assert "That call failed" in model.calls[2].prompt  # the repair saw the error


def test_an_item_fits_when_its_line_holds_most_of_the_failed_values_words() -> None:
    complete = Tasks().tools[1]
    found = ["1. title: Buy milk, list: Personal\n2. title: Review PR, list: Work, priority: high"]
    before: dict[str, Any] = {"title": "high-priority work"}
    assert unmatched_items(complete, before, {"title": "Review PR"}, found, "mark it") == []
    assert unmatched_items(complete, before, {"title": "Buy milk"}, found, "mark it") == ["title"]
    # a value the look-up never showed does not fit
    assert unmatched_items(complete, before, {"title": "Work thing"}, found, "x") == ["title"]
    # an invented id has no words: the item's line must hold a word of the ask
    songs = ["1. id: s-1002, title: Coastline Radio\n2. id: s-1003, title: Salt Road"]
    old = {"song_id": "s-12345"}
    ask = "add Coastline Radio to Running"
    assert unmatched_items(complete, old, {"song_id": "s-1002"}, songs, ask) == []
    assert unmatched_items(complete, old, {"song_id": "s-1003"}, songs, ask) == ["song_id"]
