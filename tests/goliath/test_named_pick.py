"""A first plan whose function the ask never names is asked again among the ones it names
(goliath/turn/retrieval.py ``named_instead``, run.py ``_named``; docs/design.md, "A pick the
ask never names")."""

from __future__ import annotations

from typing import Any

from goliath import Agent, tool
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.retrieval import named_instead

from ..spec.helpers import args, text


class Home:
    """Lights and a thermostat, recording every switch."""

    def __init__(self) -> None:
        self.switched: list[dict[str, Any]] = []
        home = self

        @tool
        def list_lights() -> list[dict[str, Any]]:
            """List the lights with their room and whether they are on."""
            return [{"name": "Porch", "on": True}, {"name": "Hallway", "on": False}]

        @tool
        def get_thermostat() -> dict[str, Any]:
            """Read the thermostat: mode, indoor temperature and target temperature."""
            return {"mode": "heat", "indoor_c": 20.5, "target_c": 21}

        @tool(writes=True)
        def set_light(name: str, on: bool) -> str:
            """Switch one light on or off.

            Args:
                name: The light's name.
                on: True to switch it on, false to switch it off.
            """
            home.switched.append({"name": name, "on": on})
            return "ok"

        @tool(writes=True)
        def set_thermostat(target_c: float) -> str:
            """Change the heating's target temperature.

            Args:
                target_c: The new target in degrees Celsius.
            """
            return "ok"

        self.tools: list[Tool] = [list_lights, get_thermostat, set_light, set_thermostat]


TOOLS = Home().tools


def test_a_read_the_ask_never_names_gives_way_to_the_read_it_names() -> None:
    ask = "if the porch light is still on, switch it off"
    assert named_instead("get_thermostat", TOOLS, ask) == ["list_lights"]


def test_a_pick_sharing_a_word_with_the_ask_stands() -> None:
    assert named_instead("list_lights", TOOLS, "is the porch light still on?") == []
    # "temperature" is in the thermostat's description: the ask names it
    assert named_instead("get_thermostat", TOOLS, "what's the temperature at home?") == []


def test_only_functions_of_the_picks_kind_are_offered() -> None:
    # set_light is named ("light"), but it writes: a read stands in for a read
    assert named_instead("get_thermostat", TOOLS, "the hallway light") == ["list_lights"]
    # a write the ask never names gives way to a named write
    assert named_instead("set_thermostat", TOOLS, "turn the porch light off") == ["set_light"]


def test_nothing_named_keeps_the_pick() -> None:
    assert named_instead("get_thermostat", TOOLS, "how cosy is it inside?") == []
    assert named_instead("no_such_function", TOOLS, "the porch light") == []


def test_two_words_of_a_description_name_a_function() -> None:
    @tool
    def health_summary() -> str:
        """Daily health summaries: steps, sleep, resting heart rate."""
        return ""

    @tool
    def get_sleep() -> str:
        """One night's sleep: when the user fell asleep and woke."""
        return ""

    tools = [health_summary, get_sleep]
    assert named_instead("get_sleep", tools, "what was my resting heart rate yesterday?") == [
        "health_summary"
    ]
    assert named_instead("get_sleep", tools, "Can you tell me yesterday's resting heart rate?") == [
        "health_summary"
    ]  # the "s" of "yesterday's" and of "night's" names nothing
    # one word of a description is not enough ("steps" alone could be anything)
    assert named_instead("get_sleep", tools, "how many steps yesterday?") == []


async def test_the_first_plan_is_asked_again_among_the_named_functions() -> None:
    home = Home()
    model = FakeModel(
        [
            {"json": {"call": "get_thermostat", "then": "set_thermostat"}},
            {"json": {"call": "list_lights", "then": "set_light"}},
            {"json": {"call": "set_light"}},  # the planned write, after the read
            args(name="Porch", on=False),
            text("I switched the porch light off."),
        ]
    )
    async with Agent(model, tools=home.tools, auto_approve=True, named_pick_check=True) as agent:
        result = await agent.run("if the porch light is still on, switch it off")
    again = model.calls[1].schema
    assert again is not None
    assert again["properties"]["call"]["enum"] == ["list_lights"]
    assert "set_light" in again["properties"]["then"]["enum"]  # then: any function
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "list_lights",
        "set_light",
    ]
    assert home.switched == [{"name": "Porch", "on": False}]


async def test_a_named_pick_makes_no_second_call() -> None:
    model = FakeModel(
        [
            {"json": {"call": "list_lights", "then": "answer_the_user"}},
            text("The porch light is on."),
        ]
    )
    async with Agent(model, tools=TOOLS, named_pick_check=True) as agent:
        result = await agent.run("is the porch light on?")
    assert len(model.calls) == 2
    assert result.text == "The porch light is on."


async def test_the_check_is_off_by_default() -> None:
    class Scoring(FakeModel):
        scores_options = True

    # off by default, for every model: it lost three held-out asks and won none
    assert Agent(Scoring([]), tools=TOOLS).config.named_pick_check is False
    assert Agent("local", tools=TOOLS).config.named_pick_check is False  # llama.cpp, not loaded
    assert Agent(FakeModel([]), tools=TOOLS).config.named_pick_check is False
    model = FakeModel(
        [
            {"json": {"call": "get_thermostat", "then": "answer_the_user"}},
            text("It is 20.5 degrees inside."),
        ]
    )
    async with Agent(model, tools=TOOLS, named_pick_check=False) as agent:
        result = await agent.run("is the porch light on?")
    assert [step.tool for step in result.steps if step.kind == "tool"] == ["get_thermostat"]
    assert len(model.calls) == 2


def test_a_stem_that_begins_another_names_it() -> None:
    @tool
    def list_episodes() -> str:
        """A followed podcast's episodes, newest first."""
        return ""

    @tool
    def episode_notes() -> str:
        """An episode's show notes."""
        return ""

    tools = [list_episodes, episode_notes]
    # "episode" names list_episodes too (its stem is "episod"): nothing to overturn
    assert named_instead("list_episodes", tools, "what was the latest episode about?") == []


def test_a_short_stem_names_no_longer_word() -> None:
    @tool
    def find_restaurants() -> str:
        """Restaurants near a place."""
        return ""

    @tool
    def get_sleep() -> str:
        """One night's sleep."""
        return ""

    # "resting" stems to "rest": four letters begin "restaurant" but name nothing
    assert named_instead("get_sleep", [find_restaurants, get_sleep], "resting well?") == []
