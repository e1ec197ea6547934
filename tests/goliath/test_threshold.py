"""A condition that compares a number is decided by the harness, not by a yes/no question."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, Tool, tool
from goliath.events import CheckEvent
from goliath.records import StepRecord
from goliath.testing import FakeModel
from goliath.turn.stages import STAGES
from goliath.turn.threshold import (
    PICK_SYSTEM,
    Comparison,
    compare,
    found_values,
    narrowed,
    stated_comparison,
)


def climate_tools(study_c: float) -> tuple[list[dict[str, Any]], list[Tool]]:
    """Three rooms' temperatures (read) and a setter (write) that records what it set."""
    set_to: list[dict[str, Any]] = []

    @tool
    def get_climate() -> list[dict[str, Any]]:
        """Each room's temperature and target."""
        return [
            {"zone": "Living room", "current_c": 19.5, "target_c": 20, "humidity_pct": 52},
            {"zone": "Bedroom", "current_c": 16.5, "target_c": 17, "humidity_pct": 60},
            {"zone": "Study", "current_c": study_c, "target_c": 18, "humidity_pct": 50},
        ]

    @tool(writes=True)
    def set_temperature(zone: str, celsius: float) -> dict[str, Any]:
        """Set a room's target temperature.

        Args:
            zone: The room.
            celsius: The new target in °C.
        """
        set_to.append({"zone": zone, "celsius": celsius})
        return {"zone": zone, "target_c": celsius}

    return set_to, [get_climate, set_temperature]


STUDY_ASK = "if the study is below 18 degrees, set it to 19.5"
PLAN = {"json": {"call": "get_climate", "then": "set_temperature"}}
GO_ON = {"json": {"call": "set_temperature"}}
SET_STUDY = {"json": {"zone": "Study", "celsius": 19.5}}


def checks(result: Any) -> list[tuple[str, bool]]:
    return [(e.check, e.passed) for e in result.trace if isinstance(e, CheckEvent)]


async def study_turn(study_c: float, **options: Any) -> tuple[list[dict[str, Any]], Any, FakeModel]:
    """The study ask over a study at ``study_c``, the model naming the study's temperature."""
    set_to, tools = climate_tools(study_c)
    model = FakeModel(
        [
            PLAN,
            GO_ON,
            SET_STUDY,
            {"json": {"value": f"Study current_c: {study_c}"}},
            {"text": "Done."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, **options) as agent:
        result = await agent.run(STUDY_ASK)
    return set_to, result, model


async def test_a_found_number_below_the_line_lets_the_write_go() -> None:
    set_to, result, model = await study_turn(17.4)
    assert set_to == [{"zone": "Study", "celsius": 19.5}]
    assert checks(result) == [("comparison", True)]
    pick = model.calls[3]
    assert pick.label == "comparison" and pick.system == PICK_SYSTEM
    row = STAGES["comparison"]
    assert (pick.max_output_tokens, pick.max_string_length) == (
        row.output_tokens,
        row.string_length,
    )
    # the study's row only, and not its target of 18: that is the ask's own number
    assert pick.prompt.splitlines()[2:4] == [
        "- Study current_c: 17.4",
        "- Study humidity_pct: 50",
    ]
    assert pick.schema is not None
    assert pick.schema["properties"]["value"]["enum"] == [
        "Study current_c: 17.4",
        "Study humidity_pct: 50",
        "none of these",
    ]


async def test_a_found_number_over_the_line_withholds_the_write() -> None:
    set_to, result, model = await study_turn(18.5, condition_check=True)
    assert set_to == []
    assert checks(result) == [("comparison", False)]
    labels = [call.label for call in model.calls]
    assert "condition" not in labels  # the harness decided; no yes/no question
    answer = model.calls[-1].prompt
    assert "Study current_c: 18.5" in answer and "condition is not met" in answer


async def test_a_value_the_condition_names_is_taken_without_a_model_call() -> None:
    reminders: list[str] = []

    @tool
    def get_sleep() -> dict[str, Any]:
        """Last night's sleep."""
        return {"night_of": "2025-03-09", "duration": "7h 04m", "awake_min": 21, "score": 78}

    @tool(writes=True)
    def add_reminder(title: str, time: str) -> str:
        """Add a reminder.

        Args:
            title: What to remember.
            time: When, HH:MM.
        """
        reminders.append(f"{time} {title}")
        return "added"

    model = FakeModel(
        [
            {"json": {"call": "get_sleep", "then": "add_reminder"}},
            {"json": {"call": "add_reminder"}},
            {"json": {"title": "Go to bed early", "time": "22:00"}},
            {"text": "Your score was 78, so I added the reminder."},
        ]
    )
    async with Agent(model, tools=[get_sleep, add_reminder], auto_approve=True) as agent:
        result = await agent.run(
            "if my sleep score last night was under 80, remind me at 10pm to go to bed early"
        )
    assert reminders == ["22:00 Go to bed early"]
    assert checks(result) == [("comparison", True)]
    assert "comparison" not in [call.label for call in model.calls]


async def test_a_number_the_write_carries_is_its_content_not_its_condition() -> None:
    alerts: list[float] = []

    @tool
    def list_alerts() -> list[dict[str, Any]]:
        """The price alerts already set."""
        return [{"route": "AMS-LIS", "max_price_eur": 90}]

    @tool(writes=True)
    def create_alert(route: str, max_price_eur: float) -> str:
        """Alert the user when a fare drops to a price.

        Args:
            route: ORIGIN-DEST.
            max_price_eur: The price to alert at.
        """
        alerts.append(max_price_eur)
        return "set"

    model = FakeModel(
        [
            {"json": {"call": "list_alerts", "then": "create_alert"}},
            {"json": {"call": "create_alert"}},
            {"json": {"route": "AMS-KEF", "max_price_eur": 150}},
            {"json": {"go": "yes"}, "scores": {"yes": -0.1, "no": -3.0}},
            {"text": "I'll tell you when a fare drops below 150 euros."},
        ]
    )
    async with Agent(
        model, tools=[list_alerts, create_alert], auto_approve=True, condition_check=True
    ) as agent:
        result = await agent.run(
            "alert me if fares from Amsterdam to Reykjavik drop below 150 euros"
        )
    assert alerts == [150]
    assert checks(result) == [("condition", True)]


@pytest.mark.parametrize(
    ("ask", "expected"),
    [
        ("if it's under 19 degrees inside, put the heating up to 20.5", ("<", 19.0, True)),
        ("Is it colder than 18 °C in here? If it is, set the heating to 20.", ("<", 18.0, True)),
        ("Was my sleep score below 80? If so, remind me at 10pm.", ("<", 80.0, True)),
        ("if I've got more than €100 left for groceries, remind me", (">", 100.0, True)),
        ("set the study to 19.5 if it is below 18", ("<", 18.0, True)),
        ("add milk unless I already have at least 3 items", (">=", 3.0, False)),
        ("text Sam if the bill is at most 40,50", ("<=", 40.5, True)),
        ("if it's below -5, cover the plants", ("<", -5.0, True)),
        # not one the harness may decide alone
        ("if it's over 30 or under 10, tell me", None),  # two comparisons
        ("move the meeting to 10:30 if it's before noon", None),
        ("turn the heating up to 20 if I'm home", None),  # "up to" is a setting
        ("remind me at 9 if the shop is open", None),
        ("turn on the heating if it is not above 20", None),  # a negation
        ("don't turn on the heating if it's over 20", None),
        ("unless, as of now, it is over 20 degrees, turn it on", None),  # "unless" cut off
        ("if nothing clashes, book a table for over 4 people", None),  # not the condition
        ("remind me at least 2 days before the flight if it is on Friday", None),
        ("if my balance is over 2k, transfer 200", None),  # more after the number
        ("if it is over 1 000, transfer it", None),
        ("if the fare is under 2025-03-14 prices, book it", None),
        ("if it is over 18 and I am home, turn on the fan", None),  # a second condition
        ("if it's more than 2 degrees colder than yesterday, heat it", None),
        ("Is it colder than 18 in here? Set the heating to 20.", None),  # no "if so"
    ],
)
def test_the_ask_states_its_comparison(ask: str, expected: tuple[str, float, bool] | None) -> None:
    found = stated_comparison(ask)
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert (found.operator, found.number, found.go_when_true) == expected


@pytest.mark.parametrize(
    ("operator", "value", "holds"),
    [
        ("<", 17.9, True),
        ("<", 18.0, False),
        (">", 18.1, True),
        ("<=", 18.0, True),
        (">=", 17.9, False),
    ],
)
def test_compare(operator: Any, value: float, holds: bool) -> None:
    assert compare(value, Comparison(operator=operator, number=18.0, clause="")) is holds


def read(result: str) -> StepRecord:
    return StepRecord(index=0, kind="tool", brief="b", tool="x", result=result)


def test_only_plain_numbers_are_found_values() -> None:
    record = read(
        "night_of: 2025-03-09\nasleep: 23:48\nduration: 7h 04m\nscore: 78\n"
        "balance: €1,204\nhumidity_pct: 58%\nid: acc-1\ncurrent_c: 18.5 °C"
    )
    assert [(v.key, v.value) for v in found_values([record])] == [
        ("score", 78.0),
        ("balance", 1204.0),
        ("humidity_pct", 58.0),
        ("current_c", 18.5),
    ]


def test_rows_of_a_list_and_of_json_are_labelled_by_their_name() -> None:
    listed = read("1. zone: Study, current_c: 17.4\n2. zone: Bed room, current_c: 16.5")
    as_json = read('[{"category": "groceries", "left": 153.33}, {"category": "fuel", "left": 9}]')
    assert [v.line for v in found_values([listed, as_json])] == [
        "Study current_c: 17.4",
        "Bed room current_c: 16.5",
        "groceries left: 153.33",
        "fuel left: 9",
    ]


def test_the_condition_narrows_by_its_item_and_its_words() -> None:
    ask = "if I've got more than 100 left in the groceries budget, remind me on Saturday"
    comparison = stated_comparison(ask)
    assert comparison is not None
    values = found_values(
        [
            read(
                '[{"category": "groceries", "spent": 246.67, "left": 153.33}, '
                '{"category": "eating out", "spent": 183.4, "left": 16.6}]'
            )
        ]
    )
    kept = narrowed(values, comparison)
    assert kept is not None and [v.line for v in kept] == ["groceries left: 153.33"]


def test_the_new_setting_and_a_copied_threshold_are_not_candidates() -> None:
    comparison = stated_comparison("if it's under 19 degrees inside, put the heating up to 20.5")
    assert comparison is not None
    values = found_values([read("current_c: 18.5\ntarget_c: 19\nnext_target_c: 20.5")])
    kept = narrowed(values, comparison, {"target_c": 20.5})
    assert kept is not None and [v.line for v in kept] == ["current_c: 18.5"]


def test_a_value_on_the_line_of_at_most_is_left_to_the_yes_no_check() -> None:
    comparison = stated_comparison("if the study is at most 18 degrees, set it to 19.5")
    assert comparison is not None
    values = found_values([read("1. zone: Study, current_c: 18\n2. zone: Hall, current_c: 15")])
    assert narrowed(values, comparison, {"celsius": 19.5}) is None


def test_rows_are_named_by_a_name_key_and_same_lines_told_apart() -> None:
    named = read(
        '[{"id": "z1", "zone": "Living room", "current_c": 17.0}, '
        '{"id": "z2", "zone": "Study", "current_c": 18.4}]'
    )
    unnamed = read("1. zone_id: 1, current_c: 17.0\n2. zone_id: 2, current_c: 17.0")
    lines = [v.line for v in found_values([named])] + [v.line for v in found_values([unnamed])]
    assert lines[:2] == ["Living room current_c: 17.0", "Study current_c: 18.4"]
    assert len(set(lines[2:])) == len(lines[2:]) == 4


async def test_a_single_value_the_condition_does_not_name_is_picked_or_refused() -> None:
    items: list[str] = []

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
        items.append(title)
        return "added"

    model = FakeModel(
        [
            {"json": {"call": "get_list", "then": "add_item"}},
            {"json": {"call": "add_item"}},
            {"json": {"title": "milk"}},
            {"json": {"value": "none of these"}},
            {"text": "Added milk."},
        ]
    )
    async with Agent(model, tools=[get_list, add_item], auto_approve=True) as agent:
        result = await agent.run("add milk unless I already have at least 3 items")
    assert model.calls[3].label == "comparison"  # qty is not what "3 items" counts
    assert checks(result) == []  # named none: the harness did not decide (the check is off)
    assert items == ["milk"]
