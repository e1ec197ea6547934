"""The item and the place it goes, put the right way round (goliath/turn/place.py)."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, tool
from goliath.testing import FakeModel
from goliath.turn.place import item_in_place
from tests.helpers import one_call


@tool(writes=True)
def append_to_note(title: str, text: str) -> str:
    """Add text to the end of an existing note.

    Args:
        title: The note's title, or a distinctive part of it.
        text: What to add.
    """
    return "ok"


@tool(writes=True)
def create_note(title: str, text: str) -> str:
    """Make a new note."""
    return "ok"


@tool(writes=True)
def add_to_playlist(playlist: str, song_id: str) -> str:
    """Add a song to a playlist."""
    return "ok"


@pytest.mark.parametrize(
    ("ask", "values"),
    [
        ("add a first-aid kit to my camping checklist", {"title": "first-aid kit", "text": ""}),
        (
            "Put a first aid kit on the camping checklist, please.",
            {"title": "first aid kit", "text": "on the camping checklist"},
        ),
        ("stick the ferry times in my Porto note", {"title": "ferry times", "text": ""}),
    ],
)
def test_the_item_in_the_places_parameter_is_put_back(ask: str, values: dict[str, Any]) -> None:
    placed = item_in_place(append_to_note, values, ask)
    assert placed is not None
    assert placed["text"] == values["title"]
    assert placed["title"].lower() in {"camping checklist", "porto"}


def test_the_right_way_round_or_another_mistake_is_left_alone() -> None:
    ask = "add a first-aid kit to my camping checklist"
    right = {"title": "Camping checklist", "text": "First-aid kit"}
    assert item_in_place(append_to_note, right, ask) is None
    # a text of its own: the worker may have meant it
    own = {"title": "first-aid kit", "text": "bring two"}
    assert item_in_place(append_to_note, own, ask) is None
    # the item a pronoun: nothing in the ask says what it is
    it = {"title": "first-aid kit", "text": ""}
    assert item_in_place(append_to_note, it, "add it to the camping checklist") is None
    # no "add X to my Y" frame
    assert item_in_place(append_to_note, it, "camping list: + first aid kit") is None
    # a write that makes a new thing, and an add whose other value is no text
    assert item_in_place(create_note, it, ask) is None
    song = {"playlist": "Salt Road", "song_id": ""}
    assert item_in_place(add_to_playlist, song, "add Salt Road to my running playlist") is None


async def test_the_note_gets_the_item_the_user_named() -> None:
    added: list[tuple[str, str]] = []

    @tool(writes=True)
    def append_to_note(title: str, text: str) -> str:
        """Add text to the end of an existing note.

        Args:
            title: The note's title, or a distinctive part of it.
            text: What to add.
        """
        added.append((title, text))
        return "ok"

    ask = "Put a first aid kit on the camping checklist, please."
    values = {"title": "first aid kit", "text": "on the camping checklist"}
    model = FakeModel(one_call("append_to_note", values, "Added it."))
    async with Agent(model, tools=[append_to_note], auto_approve=True) as agent:
        await agent.run(ask)
    assert added == [("camping checklist", "first aid kit")]
