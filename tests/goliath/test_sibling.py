"""The change the ask's verb says: a planned write of the wrong kind gives way to its sibling."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, Tool, tool
from goliath.events import CheckEvent
from goliath.extensions import Plan
from goliath.schema import DONE
from goliath.testing import FakeModel
from goliath.turn.sibling import said_change, the_said_sibling


def calendar_tools(calls: list[str]) -> list[Tool]:
    @tool
    def find_events(query: str) -> list[dict[str, Any]]:
        """Find events by words of their title.

        Args:
            query: Words of the title.
        """
        return [{"id": 7, "title": "Pottery class", "date": "2025-03-14"}]

    @tool(writes=True)
    def move_event(title: str, date: str) -> dict[str, Any]:
        """Move an event to another day.

        Args:
            title: The event's title.
            date: The new day.
        """
        calls.append("move_event")
        return {"ok": True}

    @tool(writes=True)
    def cancel_event(title: str) -> dict[str, Any]:
        """Cancel an event.

        Args:
            title: The event's title.
        """
        calls.append("cancel_event")
        return {"ok": True, "cancelled": title}

    @tool(writes=True)
    def create_event(title: str, date: str) -> dict[str, Any]:
        """Add an event.

        Args:
            title: The event's title.
            date: The day.
        """
        calls.append("create_event")
        return {"ok": True}

    @tool(writes=True)
    def delete_reminder(title: str) -> dict[str, Any]:
        """Delete a reminder.

        Args:
            title: The reminder's title.
        """
        calls.append("delete_reminder")
        return {"ok": True}

    @tool(writes=True)
    def update_reminder(title: str, text: str) -> dict[str, Any]:
        """Change a reminder's text.

        Args:
            title: The reminder's title.
            text: The new text.
        """
        calls.append("update_reminder")
        return {"ok": True}

    @tool(writes=True)
    def add_reminder(title: str) -> dict[str, Any]:
        """Add a reminder.

        Args:
            title: The reminder's title.
        """
        calls.append("add_reminder")
        return {"ok": True}

    return [
        find_events,
        move_event,
        cancel_event,
        create_event,
        delete_reminder,
        update_reminder,
        add_reminder,
    ]


@pytest.mark.parametrize(
    ("ask", "change"),
    [
        ("Please take Friday's pottery class out of my calendar.", "remove"),
        ("get rid of my renew-car-insurance reminder", "remove"),
        ("I need to call off the opticians appointment", "remove"),
        ("call it off", "remove"),
        ("Actually, drop that appointment.", "remove"),
        ("cancel the dentist", "remove"),
        ("take the milk off the list", "remove"),
        ("move the dentist to Friday", "move"),
        ("can the gym class be on Thursday instead?", "move"),
        ("push my haircut back an hour", "move"),
        ("bring the review forward to Monday", "move"),
        ("remind me to call the plumber on Thursday at 4pm", "add"),
        ("New task: renew the swim pass by Friday.", "add"),
        ("add eggs to the list", "append"),
        ("add a first-aid kit to my camping checklist", "append"),
        ("Put a first aid kit on the camping checklist, please.", "append"),
        ("any new texts?", None),
        ("the expense report needs a new due date", None),
        ("add the dentist and cancel the gym", None),
        # two kinds, or none: nothing said
        ("cancel the dentist and move the gym to Friday", None),
        ("drop off the kids at 8, put it in my calendar", "append"),
        ("drop off the kids at 8", None),
        ("what's on Friday?", None),
        ("take a photo of the receipt", None),
    ],
)
def test_the_kind_of_change_is_read_from_the_phrase(ask: str, change: str | None) -> None:
    assert said_change(ask) == change


def test_a_write_of_the_other_kind_gives_way_to_its_one_sibling() -> None:
    tools = calendar_tools([])
    moved = Plan(kind="tool", tool="move_event", brief="b", then=())
    swapped = the_said_sibling(moved, tools, "take the pottery class out of my calendar")
    assert (swapped.tool, swapped.then) == ("cancel_event", ())
    assert swapped.brief == "Cancel an event."
    # the planned then is swapped too; the read before it stays
    looked = Plan(kind="tool", tool="find_events", brief="b", then=("move_event",))
    swapped = the_said_sibling(looked, tools, "call off the pottery class")
    assert (swapped.tool, swapped.then) == ("find_events", ("cancel_event",))
    created = Plan(kind="tool", tool="create_event", brief="b", then=())
    assert the_said_sibling(created, tools, "get rid of the pottery class").tool == "cancel_event"
    # the same kind, a thing with no sibling of the kind, or nothing said: unchanged
    cancelled = Plan(kind="tool", tool="cancel_event", brief="b", then=())
    assert the_said_sibling(cancelled, tools, "cancel the pottery class") is cancelled
    updated = Plan(kind="tool", tool="update_reminder", brief="b", then=())
    assert the_said_sibling(updated, tools, "add 'bring ID' to the dentist reminder") is updated
    assert the_said_sibling(updated, tools, "delete the dentist reminder").tool == "delete_reminder"
    deleted = Plan(kind="tool", tool="delete_reminder", brief="b", then=())
    assert the_said_sibling(deleted, tools, "change the dentist reminder").tool == "update_reminder"
    assert the_said_sibling(moved, tools, "put pottery on Friday") is moved
    moved_back = the_said_sibling(cancelled, tools, "move the pottery class to Friday")
    assert moved_back.tool == "move_event"
    added = the_said_sibling(moved, tools, "add pottery on Friday")
    assert added.tool == "create_event"


async def test_take_it_out_of_my_calendar_cancels_the_event() -> None:
    calls: list[str] = []
    model = FakeModel(
        [
            {"json": {"call": "move_event", "then": DONE}},
            {"json": {"title": "pottery class"}},
            {"text": "I took the pottery class out of your calendar."},
        ]
    )
    async with Agent(model, tools=calendar_tools(calls), auto_approve=True) as agent:
        result = await agent.run("Please take Friday's pottery class out of my calendar.")
    assert calls == ["cancel_event"]
    assert [step.tool for step in result.steps if step.kind == "tool"] == ["cancel_event"]
    assert "cancel_event" in model.calls[1].system  # the worker filled the sibling's schema
    checks = [(e.check, e.passed) for e in result.trace if isinstance(e, CheckEvent)]
    assert ("verb", False) in checks


def note_tools() -> list[Tool]:
    @tool(writes=True)
    def create_note(title: str, text: str) -> dict[str, Any]:
        """Save a new note.

        Args:
            title: The title.
            text: The text.
        """
        return {"ok": True}

    @tool(writes=True)
    def append_to_note(title: str, text: str) -> dict[str, Any]:
        """Add text to the end of an existing note.

        Args:
            title: The note's title.
            text: The text to add.
        """
        return {"ok": True}

    @tool(writes=True)
    def delete_note(title: str) -> dict[str, Any]:
        """Delete a note.

        Args:
            title: The note's title.
        """
        return {"ok": True}

    return [create_note, append_to_note, delete_note]


def test_an_add_into_a_thing_that_is_there_takes_the_write_that_adds_into() -> None:
    notes = note_tools()
    created = Plan(kind="tool", tool="create_note", brief="b", then=())
    ask = "add a first-aid kit to my camping checklist"
    assert the_said_sibling(created, notes, ask).tool == "append_to_note"
    assert the_said_sibling(created, notes, "create a note called camping") is created
    deleted = Plan(kind="tool", tool="delete_note", brief="b", then=())
    assert the_said_sibling(deleted, notes, ask).tool == "append_to_note"
    # no write that adds into: an add of the same thing, in place of a move or a removal
    events = calendar_tools([])
    moved = Plan(kind="tool", tool="move_event", brief="b", then=())
    assert the_said_sibling(moved, events, "put yoga in my calendar").tool == "create_event"
    created_event = Plan(kind="tool", tool="create_event", brief="b", then=())
    assert the_said_sibling(created_event, events, "put yoga in my calendar") is created_event
