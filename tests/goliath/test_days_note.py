"""The answer is told which day "tomorrow" and "yesterday" are (goliath/turn/same_day.py
``days_note``; run.py ``_compose``)."""

from __future__ import annotations

import datetime
from typing import Any

from goliath import Agent, tool
from goliath.testing import FakeModel

MONDAY = datetime.date(2025, 3, 10)


def test_tomorrow_and_yesterday_are_named_by_weekday_and_date() -> None:
    from goliath.turn.same_day import days_note

    assert days_note("which alarm wakes me tomorrow?", MONDAY) == (
        "In the ask, tomorrow is Tuesday 11 March 2025 (2025-03-11)."
    )
    assert days_note("my resting heart rate yesterday, and tmrw's plan", MONDAY) == (
        "In the ask, yesterday is Sunday 9 March 2025 (2025-03-09) and tomorrow is "
        "Tuesday 11 March 2025 (2025-03-11)."
    )


def test_no_near_day_or_no_today_means_no_note() -> None:
    from goliath.turn.same_day import days_note

    assert days_note("what's on my list today?", MONDAY) == ""  # today is in the facts
    assert days_note("what did I do yesterday?", None) == ""


@tool
def list_alarms() -> list[dict[str, Any]]:
    """All alarms with their times and repeat days."""
    return [{"time": "06:45", "repeat": "Mon, Wed, Fri"}, {"time": "07:30", "repeat": "weekdays"}]


async def _answer_prompt(ask: str) -> str:
    model = FakeModel(
        [{"json": {"call": "list_alarms", "then": "answer_the_user"}}, {"text": "At 07:30."}]
    )
    facts = {"today": "Monday 10 March 2025"}
    async with Agent(model, tools=[list_alarms], facts=facts) as agent:
        await agent.run(ask)
    answer = next(call for call in model.calls if call.label == "answer")
    return answer.prompt


async def test_the_answer_after_a_read_is_told_the_day() -> None:
    prompt = await _answer_prompt("which alarm is going to wake me tomorrow?")
    assert "tomorrow is Tuesday 11 March 2025 (2025-03-11)" in prompt
    assert "tomorrow is" not in await _answer_prompt("which alarms do I have?")
