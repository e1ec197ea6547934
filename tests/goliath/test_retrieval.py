"""Tool retrieval: the first plan sees the few functions that best match the ask."""

from __future__ import annotations

from typing import Literal

import pytest

from goliath import Agent, tool
from goliath.errors import ConfigError
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.retrieval import retrieve_tools


def make(name: str, description: str, requires: tuple[str, ...] = ()) -> Tool:
    def run() -> str:
        return "ok"

    run.__name__ = name
    run.__doc__ = description
    return tool(run, requires=requires) if requires else tool(run)


TOOLS = [
    make("list_tasks", "List the tasks on the to-do list."),
    make("create_task", "Add a task to the to-do list."),
    make("list_events", "List calendar events for a day."),
    make("get_weather", "Today's weather forecast for a city."),
    make("play_song", "Play a song or an album."),
    make("set_alarm", "Set an alarm for a time."),
    make("find_contact", "Find a contact's phone number and email."),
    make("send_message", "Send a text message to a contact.", requires=("find_contact",)),
]


def names(tools: list[Tool]) -> list[str]:
    return [t.name for t in tools]


def test_the_best_matching_functions_are_kept_in_the_apps_order() -> None:
    kept = retrieve_tools(TOOLS, "will it rain in Lisbon? check the weather", 2)
    assert "get_weather" in names(kept) and len(kept) == 2
    assert names(retrieve_tools(TOOLS, "add a task: buy milk", 2))[0:2] == [
        "list_tasks",
        "create_task",
    ]


def test_a_kept_function_brings_the_ones_it_requires() -> None:
    kept = names(retrieve_tools(TOOLS, "send a text message to Ana", 1))
    assert kept == ["find_contact", "send_message"]


def test_a_word_only_a_parameter_carries_still_finds_the_function() -> None:
    """A word only a parameter carries: "put the reading lamp on" names ``set_light`` only
    through its parameter's description, "record a yoga session" names ``log_workout`` only
    through an enum value."""

    @tool
    def set_light(name: str, on: bool) -> str:
        """Switch one light on or off.

        Args:
            name: The light's name (e.g. "Sofa lamp").
            on: true to switch it on.
        """
        return "ok"

    @tool
    def log_workout(kind: Literal["run", "swim", "yoga"], minutes: int) -> str:
        """Log a workout that was done."""
        return "ok"

    tools = [*TOOLS, set_light, log_workout]
    assert "set_light" in names(retrieve_tools(tools, "put the reading lamp on", 2))
    assert names(retrieve_tools(tools, "record a yoga session", 1)) == ["log_workout"]


def test_an_ask_that_shares_no_word_with_any_function_sees_them_all() -> None:
    """Nothing to rank on: the app's order would hide the function as likely as show it."""
    assert retrieve_tools(TOOLS, "when do I have to pay Vodafone?", 3) == TOOLS


def test_a_small_toolset_is_shown_whole() -> None:
    assert retrieve_tools(TOOLS, "anything", 8) == TOOLS
    assert retrieve_tools(TOOLS[:3], "weather", 5) == TOOLS[:3]


async def test_the_first_plan_offers_only_the_retrieved_functions() -> None:
    model = FakeModel(
        [{"json": {"call": "get_weather", "then": "answer_the_user"}}, {"text": "Sunny."}]
    )
    async with Agent(model, tools=TOOLS, tool_retrieval=3) as agent:
        result = await agent.run("what's the weather forecast for Lisbon?")
    schema = model.calls[0].schema
    assert schema is not None
    offered = schema["properties"]["call"]["enum"]
    assert "get_weather" in offered and len(offered) == 3 + 2
    assert "play_song" not in model.calls[0].system
    assert result.text == "Sunny."


async def test_the_hand_off_check_still_sees_every_function() -> None:
    """Whether the phone can do an ask depends on all its functions, not on the few the plan is
    shown; the check's prompt stays the same for every ask (its KV cache stays warm)."""
    model = FakeModel(
        [
            {"json": {"kind": "lookup"}},
            {"json": {"call": "get_weather", "then": "answer_the_user"}},
            {"text": "Sunny."},
        ]
    )
    async with Agent(model, tools=TOOLS, tool_retrieval=3, hand_off_check=True) as agent:
        result = await agent.run("check the weather forecast for Lisbon")
    check, plan = model.calls[0], model.calls[1]
    assert check.label == "handoff" and plan.label == "conductor"
    assert all(tool.name in check.system for tool in TOOLS)
    assert "play_song" not in plan.system
    assert result.text == "Sunny."


def test_tool_retrieval_must_be_a_positive_count() -> None:
    with pytest.raises(ConfigError, match="tool_retrieval"):
        Agent(FakeModel([]), tool_retrieval=0)
