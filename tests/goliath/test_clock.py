"""A clock time said in words keeps its minutes: "quarter past six" is 6:15 (clock.py)."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, tool
from goliath.testing import FakeModel
from goliath.turn.clock import spoken_minutes, spoken_times


@pytest.mark.parametrize(
    ("ask", "times"),
    [
        ("Wake me up at quarter past six tomorrow", {6: 15}),
        ("so it goes off at ten past seven", {7: 10}),
        ("dinner at half past eight", {8: 30}),
        ("the train leaves at twenty to nine", {8: 40}),
        ("five to twelve", {11: 55}),
        ("a quarter after 11", {11: 15}),
        ("25 minutes past 4", {4: 25}),
        ("twenty-five to three", {2: 35}),
    ],
)
def test_spoken_times_are_read(ask: str, times: dict[int, int]) -> None:
    assert spoken_times(ask) == times


@pytest.mark.parametrize(
    "ask",
    [
        "block 2 to 4 on Friday",  # a range of hours
        "I'm out from ten to four",  # a range said in words
        "half to six",  # no English time
        "at 6:15",  # written out: nothing to read
        "quarter past six or half past six",  # two minutes for one hour
    ],
)
def test_what_is_no_single_spoken_time_is_left(ask: str) -> None:
    assert spoken_times(ask) == {}


@pytest.mark.parametrize(
    ("values", "ask", "expected"),
    [
        ({"time": "06:30"}, "Wake me up at quarter past six", {"time": "06:15"}),
        ({"time": "18:30"}, "dinner at quarter past six", {"time": "18:15"}),  # evening stands
        ({"at": "2025-03-11T07:30"}, "ten past seven", {"at": "2025-03-11T07:10"}),
        ({"times": ["06:00"]}, "ten to seven", {"times": ["06:50"]}),
        ({"time": "07:30"}, "quarter past six", {"time": "07:30"}),  # another hour
        ({"old": "06:30", "new": "06:30"}, "move the 6:30 call to quarter past six", None),
    ],
)
def test_a_filled_time_gets_the_spoken_minutes(
    values: dict[str, Any], ask: str, expected: dict[str, Any] | None
) -> None:
    assert spoken_minutes(values, ask) == (values if expected is None else expected)


async def test_the_alarm_is_set_at_the_minutes_the_user_said() -> None:
    set_at: list[str] = []

    @tool(writes=True)
    def set_alarm(time: str, label: str = "") -> str:
        """Set an alarm.

        Args:
            time: HH:MM, 24-hour.
            label: What it is for.
        """
        set_at.append(time)
        return "set"

    model = FakeModel(
        [
            {"json": {"call": "set_alarm", "then": "answer_the_user"}},
            {"json": {"time": "06:30"}},
            {"text": "Alarm set."},
        ]
    )
    async with Agent(model, tools=[set_alarm], auto_approve=True) as agent:
        await agent.run("Wake me up at quarter past six tomorrow, please.")
    assert set_at == ["06:15"]
