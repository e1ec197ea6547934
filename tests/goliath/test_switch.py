"""An on/off switch takes the side the user's verb says (goliath/turn/switch.py)."""

from __future__ import annotations

import pytest

from goliath import tool
from goliath.turn.switch import switched


@tool(writes=True)
def set_light(name: str, on: bool) -> str:
    """Switch one light on or off.

    Args:
        name: The light's name.
        on: True to switch it on.
    """
    return "ok"


@tool(writes=True)
def set_alarm_state(alarm_id: int, enabled: bool, snooze: bool = False) -> str:
    """Turn an alarm on or off.

    Args:
        alarm_id: The alarm's id.
        enabled: Whether the alarm rings.
        snooze: Whether it may be snoozed.
    """
    return "ok"


@tool
def list_lights(on: bool = False) -> str:
    """The lights.

    Args:
        on: Only the lights that are on.
    """
    return ""


@pytest.mark.parametrize(
    ("ask", "side"),
    [
        ("if the porch light is still on, switch it off", False),
        ("turn off the hallway light", False),
        ("Could you switch the reading lamp on?", True),
        ("shut the kitchen lights off if they're on", False),
        ("put the porch light on please", True),
    ],
)
def test_the_verbs_side_sets_a_boolean_that_means_on(ask: str, side: bool) -> None:
    assert switched(set_light, {"name": "Porch", "on": not side}, ask)["on"] is side


def test_an_ask_naming_both_sides_or_none_is_left_to_the_model() -> None:
    both = "turn on the lamp and turn off the fan"
    assert switched(set_light, {"name": "Lamp", "on": False}, both)["on"] is False
    assert switched(set_light, {"name": "Lamp", "on": True}, "the porch light is on")["on"]
    assert switched(set_light, {"name": "Lamp", "on": True}, "dim the lamp")["on"] is True


def test_only_a_write_and_only_booleans_that_mean_on_are_touched() -> None:
    values = {"alarm_id": 202, "enabled": True, "snooze": True}
    assert switched(set_alarm_state, values, "turn my work alarm off") == {
        "alarm_id": 202,
        "enabled": False,
        "snooze": True,  # not a switch: left as filled
    }
    assert switched(list_lights, {"on": True}, "which lights are switched off?") == {"on": True}


def test_a_value_the_model_left_out_stays_out() -> None:
    assert switched(set_light, {"name": "Porch"}, "switch it off") == {"name": "Porch"}


@tool(writes=True)
def set_lamp(name: str, on: bool, brightness: int | None = None) -> str:
    """Switch one lamp on or off, optionally at a brightness.

    Args:
        name: The lamp's name.
        on: True to switch it on.
        brightness: 1-100, only for a lamp switched on.
    """
    return "ok"


def test_switched_off_keeps_no_optional_number_the_ask_does_not_say() -> None:
    values = {"name": "Porch", "on": True, "brightness": 100}
    assert switched(set_lamp, values, "if the porch light is still on, switch it off") == {
        "name": "Porch",
        "on": False,
    }
    on = switched(
        set_lamp, {"name": "Sofa", "on": False, "brightness": 40}, "turn the sofa lamp on at 40"
    )
    assert on == {"name": "Sofa", "on": True, "brightness": 40}
