"""The part of the day an ask names: the answer is told which rows fall in it."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, tool
from goliath.records import StepRecord
from goliath.schema import DONE
from goliath.testing import FakeModel
from goliath.turn.part_of_day import part_of_day_note

WEDNESDAY = (
    "1. id: 205, date: 2025-03-12, start: 10:00, end: 10:15, title: Team sync\n"
    "2. id: 206, date: 2025-03-12, start: 19:30, end: 21:00, title: Climbing"
)


def read(result: str, **extra: Any) -> StepRecord:
    return StepRecord(
        index=0, kind="tool", brief="b", tool="list_events", input={}, result=result, **extra
    )


@pytest.mark.parametrize(
    ("ask", "note"),
    [
        (
            "Have I got anything on Wednesday night?",
            "Of the results above, at night (18:00 to 00:00): Climbing at 19:30.",
        ),
        (
            "what's on tonight",
            "Of the results above, in the evening (17:00 to 00:00): Climbing at 19:30.",
        ),
        (
            "anything wednesday morning?",
            "Of the results above, in the morning (05:00 to 12:00): Team sync at 10:00.",
        ),
        (
            "am I free on Wednesday afternoon?",
            "None of the results above is in the afternoon (12:00 to 17:00).",
        ),
        # no part named, two named, or a greeting
        ("what's on Wednesday?", None),
        ("anything on Wednesday morning or evening?", None),
        ("good morning! what's on Wednesday?", None),
        ("morning, what have I got on Wednesday", None),
    ],
)
def test_the_rows_in_the_named_part_of_the_day(ask: str, note: str | None) -> None:
    assert part_of_day_note(ask, [read(WEDNESDAY)]) == note


def test_no_note_when_every_row_is_on_one_side_or_nothing_was_read() -> None:
    evening = "1. start: 19:30, title: Climbing\n2. start: 21:00, title: Film"
    assert part_of_day_note("anything on tonight?", [read(evening)]) is None
    assert part_of_day_note("anything on tonight?", [read("none")]) is None
    assert part_of_day_note("anything on tonight?", [read(WEDNESDAY, failed=True)]) is None
    assert part_of_day_note("anything on tonight?", []) is None


async def test_the_answer_is_told_which_rows_are_the_night() -> None:
    @tool
    def list_events(date: str) -> str:
        """The events of a day.

        Args:
            date: The day.
        """
        return WEDNESDAY

    model = FakeModel(
        [
            {"json": {"call": "list_events", "then": DONE}},
            {"json": {"date": "Wednesday"}},
            {"text": "Yes: climbing at 19:30."},
        ]
    )
    async with Agent(model, tools=[list_events]) as agent:
        result = await agent.run("Have I got anything on Wednesday night?")
    assert result.text == "Yes: climbing at 19:30."
    answer = model.calls[-1]
    assert "at night (18:00 to 00:00): Climbing at 19:30." in answer.prompt
