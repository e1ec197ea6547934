"""A first plan that opens with a read the ask never mentions starts at the call the ask names
(goliath/turn/retrieval.py ``past_stray_read``; docs/design.md, "A read the ask never
mentions")."""

from __future__ import annotations

from typing import Any

from goliath import Agent, tool
from goliath.events import CheckEvent
from goliath.extensions import Plan
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.retrieval import past_stray_read

from ..spec.helpers import args, text


def home_tools() -> tuple[list[dict[str, Any]], list[Tool]]:
    switched: list[dict[str, Any]] = []

    @tool
    def list_lights() -> list[dict[str, Any]]:
        """List the lights with their room and whether they are on."""
        return [{"name": "Porch", "on": True}, {"name": "Hallway", "on": False}]

    @tool
    def get_thermostat() -> dict[str, Any]:
        """Read the thermostat: mode, indoor temperature and target temperature."""
        return {"mode": "heat", "indoor_c": 20.5, "target_c": 21}

    @tool
    def find_events(query: str) -> list[dict[str, Any]]:
        """Find calendar events by words of their title.

        Args:
            query: Words of the title.
        """
        return [{"id": 7, "title": "Eye test", "date": "Friday"}]

    @tool(writes=True)
    def set_light(name: str, on: bool) -> str:
        """Switch one light on or off.

        Args:
            name: The light's name.
            on: True to switch it on, false to switch it off.
        """
        switched.append({"name": name, "on": on})
        return "ok"

    @tool(writes=True)
    def cancel_event(title: str) -> str:
        """Cancel a calendar event.

        Args:
            title: The event's title.
        """
        return "cancelled"

    @tool(writes=True)
    def rename_light(light_id: str, name: str) -> str:
        """Give a light a new name.

        Args:
            light_id: The light's id.
            name: The new name.
        """
        return "ok"

    return switched, [
        list_lights,
        get_thermostat,
        find_events,
        set_light,
        cancel_event,
        rename_light,
    ]


TOOLS = home_tools()[1]


def plan(call: str, *then: str) -> Plan:
    return Plan(kind="tool", tool=call, then=then)


def test_a_read_the_ask_never_mentions_gives_way_to_the_named_read_after_it() -> None:
    ask = "did I leave the porch light on? turn it off if so"
    started = past_stray_read(plan("get_thermostat", "list_lights", "set_light"), TOOLS, ask)
    assert (started.tool, started.then) == ("list_lights", ("set_light",))
    assert started.brief  # the read's own description


def test_a_stray_read_before_a_write_is_skipped_only_for_the_read_its_condition_names() -> None:
    conditional = "did I leave the porch light on? turn it off if so"
    started = past_stray_read(plan("get_thermostat", "set_light"), TOOLS, conditional)
    assert (started.tool, started.then) == ("set_light", ())
    # no condition: the read may hold what the write needs ("an hour before my first meeting")
    plain = plan("get_thermostat", "set_light")
    assert past_stray_read(plain, TOOLS, "could you turn on the sofa light?") is plain


def test_a_read_that_may_feed_the_next_stays() -> None:
    @tool
    def get_location() -> dict[str, Any]:
        """Where the user is now: the city and its coordinates."""
        return {"city": "Porto"}

    @tool
    def get_weather(city: str) -> dict[str, Any]:
        """The weather forecast for a city.

        Args:
            city: The city.
        """
        return {"rain": False}

    @tool(writes=True)
    def send_email(to: str, body: str) -> str:
        """Send an email.

        Args:
            to: Who to.
            body: The text.
        """
        return "sent"

    tools = [get_location, get_weather, send_email, *TOOLS]
    weather = plan("get_location", "get_weather")
    assert past_stray_read(weather, tools, "what's the weather like where I am?") is weather
    # a write that carries content the read may give keeps it, condition or not
    email = plan("get_thermostat", "send_email")
    assert past_stray_read(email, tools, "if it's cold, send an email to Theo") is email


def test_the_plan_stands_where_the_read_is_mentioned_or_the_next_call_is_not_named() -> None:
    lights = plan("list_lights", "set_light")
    assert past_stray_read(lights, TOOLS, "is the porch light on? switch it off") is lights
    # "temperature" is in the thermostat's description: the ask mentions it
    warm = plan("get_thermostat", "set_light")
    assert past_stray_read(warm, TOOLS, "what temperature is it? and the light off") is warm
    # the ask names nothing of the next call either
    vague = plan("get_thermostat", "list_lights")
    assert past_stray_read(vague, TOOLS, "how cosy is it at home?") is vague
    alone = Plan(kind="tool", tool="get_thermostat")
    assert past_stray_read(alone, TOOLS, "the porch light") is alone


def test_a_look_the_write_rests_on_stays() -> None:
    # find_events and cancel_event are about the same thing: the look before the cancel
    cancel = plan("find_events", "cancel_event")
    assert past_stray_read(cancel, TOOLS, "cancel my eye test") is cancel
    # a write that takes an id gets it from the read before it
    rename = plan("get_thermostat", "rename_light")
    assert past_stray_read(rename, TOOLS, "rename the porch light to Door light") is rename


async def test_the_turn_starts_at_the_named_read_and_says_so() -> None:
    switched, tools = home_tools()
    model = FakeModel(
        [
            {"json": {"call": "get_thermostat", "then": "list_lights"}},
            {"json": {"call": "set_light"}},
            args(name="Porch", on=False),
            text("The porch light was on; I switched it off."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("Did I leave the porch light on? Turn it off if so.")
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "list_lights",
        "set_light",
    ]
    assert switched == [{"name": "Porch", "on": False}]
    assert any(isinstance(e, CheckEvent) and e.check == "stray" for e in result.trace)


def test_a_read_before_a_conditional_write_stays_unless_the_condition_names_another() -> None:
    @tool
    def get_list() -> list[dict[str, Any]]:
        """The shopping list."""
        return [{"title": "eggs", "qty": 12}]

    @tool(writes=True)
    def add_item(title: str) -> str:
        """Add an item.

        Args:
            title: The item.
        """
        return "added"

    # "unless I have three items" rests on the list, though the ask never says "list"
    first = plan("get_list", "add_item")
    assert past_stray_read(first, [get_list, add_item], "add milk unless I have 3 items") is first
    # "porch light on? turn it off if so" names the lights: they are read instead
    stray = plan("get_thermostat", "set_light")
    started = past_stray_read(stray, TOOLS, "Did I leave the porch light on? Turn it off if so.")
    assert started.tool == "set_light"
