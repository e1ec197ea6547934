"""The pick check: where the ask's words point at another function than the first plan's, the
model chooses between the two, once in each order, and the plan moves only when the other wins
both (goliath/turn/pick.py; docs/design.md, "The pick check")."""

from __future__ import annotations

from typing import Any

from goliath import Agent, tool
from goliath.events import CheckEvent
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.pick import PICK_SYSTEM, rival

from ..spec.helpers import args, text


def fitness_tools() -> tuple[list[dict[str, Any]], list[Tool]]:
    ran: list[dict[str, Any]] = []

    @tool
    def get_sleep(night: str) -> dict[str, Any]:
        """Last night's sleep: hours, deep sleep and wake-ups.

        Args:
            night: The night: a date, or last night.
        """
        return {"hours": 7.1}

    @tool
    def health_summary(day: str) -> dict[str, Any]:
        """One day's summary: steps, resting heart rate and active minutes.

        Args:
            day: The day: a date, today or yesterday.
        """
        return {"resting_hr": 57}

    @tool(writes=True)
    def start_timer(minutes: int) -> str:
        """Start a countdown timer.

        Args:
            minutes: How long it runs.
        """
        ran.append({"start_timer": minutes})
        return "started"

    @tool(writes=True)
    def log_workout(kind: str, minutes: int) -> str:
        """Log a workout that was done.

        Args:
            kind: What it was: yoga, running, cycling.
            minutes: How long it took.
        """
        ran.append({"log_workout": kind, "minutes": minutes})
        return "logged"

    return ran, [get_sleep, health_summary, start_timer, log_workout]


TOOLS = fitness_tools()[1]
YOGA = "log 30 minutes of yoga for today"


def choose(name: str, scores: dict[str, float] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"json": {"function": name}}
    if scores is not None:
        entry["scores"] = scores
    return entry


def test_the_rival_is_the_function_of_the_same_kind_the_words_name() -> None:
    # a write for a write: the yoga is logged, not timed (and never a read)
    assert rival("start_timer", TOOLS, YOGA) == "log_workout"
    # a read for a read: "resting heart rate" is in the summary's description, not the sleep's
    assert rival("get_sleep", TOOLS, "what was my resting heart rate yesterday?") == (
        "health_summary"
    )


def test_no_rival_where_the_words_agree_with_the_pick() -> None:
    assert rival("log_workout", TOOLS, YOGA) is None
    assert rival("get_sleep", TOOLS, "how did I sleep last night?") is None
    assert rival("no_such_function", TOOLS, YOGA) is None


async def test_the_plan_moves_when_the_other_wins_in_both_orders() -> None:
    ran, tools = fitness_tools()
    model = FakeModel(
        [
            {"json": {"call": "start_timer", "then": "answer_the_user"}},
            choose("log_workout", {"start_timer": -1.5, "log_workout": -0.5}),
            choose("log_workout", {"log_workout": -0.2, "start_timer": -2.2}),
            args(kind="yoga", minutes=30),
            text("You logged 30 minutes of yoga."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, pick_check=True) as agent:
        result = await agent.run(YOGA)
    assert ran == [{"log_workout": "yoga", "minutes": 30}]
    checks = [e for e in result.trace if isinstance(e, CheckEvent) and e.check == "pick"]
    assert [(c.passed, c.margin) for c in checks] == [(False, 1.5)]  # mean of 1.0 and 2.0
    pick_calls = [c for c in model.calls if c.label == "pick"]
    assert [c.system for c in pick_calls] == [PICK_SYSTEM, PICK_SYSTEM]  # byte-stable
    # shown in both orders, the pick first, then the other first
    assert pick_calls[0].schema["properties"]["function"]["enum"] == ["start_timer", "log_workout"]
    assert pick_calls[1].schema["properties"]["function"]["enum"] == ["log_workout", "start_timer"]
    assert YOGA in pick_calls[0].prompt and "Log a workout" in pick_calls[0].prompt


async def test_the_plan_stands_when_the_two_orders_disagree() -> None:
    ran, tools = fitness_tools()
    model = FakeModel(
        [
            {"json": {"call": "start_timer", "then": "answer_the_user"}},
            choose("log_workout"),
            choose("start_timer"),  # shown second, the pick wins: the model is unsure
            args(minutes=30),
            text("A 30-minute timer is running."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, pick_check=True) as agent:
        result = await agent.run(YOGA)
    assert ran == [{"start_timer": 30}]
    checks = [e for e in result.trace if isinstance(e, CheckEvent) and e.check == "pick"]
    assert [(c.passed, c.margin) for c in checks] == [(True, None)]  # unscored replies


async def test_no_question_where_the_words_agree_and_none_when_the_check_is_off() -> None:
    ran, tools = fitness_tools()
    model = FakeModel(
        [
            {"json": {"call": "log_workout", "then": "answer_the_user"}},
            args(kind="yoga", minutes=30),
            text("You logged 30 minutes of yoga."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, pick_check=True) as agent:
        await agent.run(YOGA)
    assert "pick" not in {c.label for c in model.calls}
    # off (a scripted model scores nothing, so off by default): the pick runs as planned
    off = FakeModel(
        [
            {"json": {"call": "start_timer", "then": "answer_the_user"}},
            args(minutes=30),
            text("A 30-minute timer is running."),
        ]
    )
    async with Agent(off, tools=tools, auto_approve=True) as agent:
        await agent.run(YOGA)
    assert "pick" not in {c.label for c in off.calls}
    assert ran[-1] == {"start_timer": 30}


async def test_a_switched_plan_drops_a_then_that_was_the_other() -> None:
    ran, tools = fitness_tools()
    model = FakeModel(
        [
            # "the timer, then the log": the log is now the first call, and the turn answers
            # after it as the plan said, with no second plan and no timer
            {"json": {"call": "start_timer", "then": "log_workout"}},
            choose("log_workout"),
            choose("log_workout"),
            args(kind="yoga", minutes=30),
            text("You logged 30 minutes of yoga."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, pick_check=True) as agent:
        result = await agent.run(YOGA)
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["log_workout"]
    assert ran == [{"log_workout": "yoga", "minutes": 30}]
    assert result.text == "You logged 30 minutes of yoga."
