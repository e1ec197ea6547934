"""A value that copies its description's list of choices is the one the user named
(goliath/turn/options.py)."""

from __future__ import annotations

from goliath import Agent, tool
from goliath.testing import FakeModel
from goliath.turn.options import listed_choices
from tests.helpers import one_call

CHOICES = "Running, Focus, Sunday kitchen or Road trip 2024"
ANSWER = "It is not on it."


@tool
def get_playlist(name: str, search: str | None = None) -> str:
    """The songs on one playlist.

    Args:
        name: The playlist: Running, Focus, Sunday kitchen or Road trip 2024.
        search: Only songs whose title or artist contains this text.
    """
    return "none"


@tool
def list_songs(mood: str | None = None) -> str:
    """Songs by mood.

    Args:
        mood: calm, upbeat or sad; leave out for every song.
    """
    return "none"


@tool
def find_note(query: str) -> str:
    """Search the notes.

    Args:
        query: Words to look for.
    """
    return "none"


def test_the_one_choice_the_user_named_is_the_value() -> None:
    ask = "Is Coastline Radio on the Running playlist? Add it if it isn't."
    assert listed_choices(get_playlist, {"name": CHOICES}, ask) == {"name": "Running"}
    # a choice's number need not be said; its words must
    said = "put it on my road trip playlist"
    assert listed_choices(get_playlist, {"name": CHOICES}, said) == {"name": "Road trip 2024"}
    # the choices' order and separators do not matter: "or", "and", commas, slashes
    copied = "Focus / Running and Road trip 2024"
    assert listed_choices(get_playlist, {"name": copied}, "on my focus list?") == {"name": "Focus"}


def test_a_copied_list_the_user_named_none_or_several_of_is_not_given() -> None:
    ask = "Save the song that's playing to one of my playlists."
    assert listed_choices(get_playlist, {"name": CHOICES}, ask) == {"name": None}
    both = "add it to running and to sunday kitchen"
    assert listed_choices(get_playlist, {"name": CHOICES}, both) == {"name": None}


def test_the_users_own_value_is_left_alone() -> None:
    # one choice: nothing was copied
    assert listed_choices(get_playlist, {"name": "Focus"}, "play focus") == {}
    # every part said by the user: theirs, even when the description lists them
    mine = "Running, Focus"
    assert listed_choices(get_playlist, {"name": mine}, "running or focus, either") == {}
    # a list the description does not hold is not a copy
    assert listed_choices(find_note, {"query": "Running, Focus or Chill"}, "any") == {}
    assert listed_choices(get_playlist, {"name": "Running, Gym or Focus"}, "gym") == {}
    # an optional filter copied whole is left out too
    assert listed_choices(list_songs, {"mood": "calm, upbeat or sad"}, "play something") == {
        "mood": None
    }


async def test_the_call_runs_with_the_named_choice() -> None:
    seen: list[str] = []

    @tool
    def get_playlist(name: str, search: str | None = None) -> str:
        """The songs on one playlist.

        Args:
            name: The playlist: Running, Focus, Sunday kitchen or Road trip 2024.
            search: Only songs whose title or artist contains this text.
        """
        seen.append(name)
        return "none"

    model = FakeModel(
        one_call("get_playlist", {"name": CHOICES, "search": "Coastline Radio"}, ANSWER)
    )
    async with Agent(model, tools=[get_playlist]) as agent:
        await agent.run("Is Coastline Radio on the Running playlist?")
    assert seen == ["Running"]


async def test_a_required_choice_nobody_named_is_asked_for_not_run() -> None:
    seen: list[str] = []

    @tool
    def get_playlist(name: str) -> str:
        """The songs on one playlist.

        Args:
            name: The playlist: Running, Focus, Sunday kitchen or Road trip 2024.
        """
        seen.append(name)
        return "none"

    model = FakeModel(one_call("get_playlist", {"name": CHOICES}, ANSWER))
    async with Agent(model, tools=[get_playlist]) as agent:
        result = await agent.run("What's on my playlist?")
    assert seen == []
    step = next(s for s in result.steps if s.kind == "tool")
    assert step.skipped and "missing: name" in (step.result or "")
