"""The world check: a general-knowledge question is answered without a call (world.py)."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, tool
from goliath.errors import ConfigError
from goliath.models import Generation
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.world import WORLD_MARGIN, WORLD_SYSTEM, asks_the_world, read_world


def make(name: str, description: str, *, writes: bool = False) -> Tool:
    def run() -> str:
        return "name: Ana | phone: +49 30 1234"

    run.__name__ = name
    run.__doc__ = description
    return tool(writes=writes)(run)


TOOLS = [
    make("find_contact", "Find a contact by name: phone and email."),
    make("send_message", "Send a text message to a contact.", writes=True),
]
PLAN = {"json": {"call": "find_contact", "then": "answer_the_user"}}
ANSWER = {"text": "The answer."}


def world(lead: float | None, said: str = "world") -> dict[str, Any]:
    """The check's reply saying ``said``; with ``lead``, "world" scored that far above "mine"."""
    entry: dict[str, Any] = {"json": {"source": said}}
    if lead is not None:
        entry["scores"] = {"world": -0.1, "mine": -0.1 - lead}
    return entry


def tools_of(result: Any) -> list[str | None]:
    return [step.tool for step in result.steps if step.kind == "tool"]


async def run(model: FakeModel, ask: str, **options: Any) -> Any:
    options.setdefault("world_check", True)
    options.setdefault("auto_approve", True)
    async with Agent(model, tools=TOOLS, **options) as agent:
        return await agent.run(ask)


async def test_a_question_about_the_world_is_answered_with_no_call() -> None:
    model = FakeModel([world(WORLD_MARGIN + 0.5), ANSWER])
    result = await run(model, "what's the country code for Germany?")
    assert [call.label for call in model.calls] == ["world", "answer"]
    assert tools_of(result) == [] and result.handled_by == "device"
    assert model.calls[0].system == WORLD_SYSTEM  # one constant: byte-stable
    assert (model.calls[0].max_output_tokens, model.calls[0].max_string_length) == (16, 8)
    assert model.calls[0].prompt == "Question: what's the country code for Germany?"


async def test_a_question_about_the_users_things_goes_on_to_the_plan() -> None:
    model = FakeModel([world(-1.0, "mine"), PLAN, ANSWER])
    result = await run(model, "what's Ana's number?")
    assert [call.label for call in model.calls] == ["world", "conductor", "answer"]
    assert tools_of(result) == ["find_contact"]


async def test_a_lead_below_the_margin_goes_on_to_the_plan() -> None:
    # the generated word said "world", but its lead is under the (tuned or given) margin
    model = FakeModel([world(WORLD_MARGIN - 0.5), PLAN, ANSWER])
    result = await run(model, "who is Ana?")
    assert tools_of(result) == ["find_contact"]
    model = FakeModel([world(1.0), ANSWER])
    result = await run(model, "who is Ana?", world_margin=0.5)
    assert tools_of(result) == []


async def test_without_scores_the_generated_word_decides() -> None:
    model = FakeModel([world(None, "world"), ANSWER])
    assert tools_of(await run(model, "how many feet are in a mile?")) == []
    model = FakeModel([world(None, "mine"), PLAN, ANSWER])
    assert tools_of(await run(model, "who is Ana?")) == ["find_contact"]


async def test_a_request_is_not_asked_about() -> None:
    model = FakeModel([PLAN, ANSWER])
    await run(model, "Ana needs her number, look it up")
    assert model.calls[0].label == "conductor"


def test_only_a_question_naming_nothing_a_function_holds_is_asked_about() -> None:
    assert asks_the_world("what's the country code for Germany?", TOOLS)
    assert asks_the_world("PDF is short for what, exactly?", TOOLS)
    assert not asks_the_world("text Ana that I'm late", TOOLS)  # a request
    assert not asks_the_world("which contact is Ana?", TOOLS)  # names find_contact's noun
    assert not asks_the_world("any new messages?", TOOLS)  # names send_message's noun
    hotels = [make("search_hotels", "Find hotels in a city for dates.")]
    assert not asks_the_world("find hotels in Porto for 3 nights", hotels)


def test_the_verdict_reads_the_lead_of_world_over_mine() -> None:
    scored = Generation(text='{"source": "mine"}', scores={"world": -0.2, "mine": -3.0})
    verdict = read_world(scored)
    assert verdict.margin == pytest.approx(2.8)
    assert read_world(scored, margin=2.5).world is True
    assert read_world(scored, margin=3.0).world is False
    assert read_world(Generation(text="not json")).world is False


async def test_the_check_runs_after_the_hand_off_check_keeps_the_ask() -> None:
    kept = {
        "json": {"kind": "chat"},
        "scores": {"lookup": -2.0, "change": -3.0, "chat": -0.1, "purchase": -9.0},
    }
    model = FakeModel([kept, world(WORLD_MARGIN + 1.0), ANSWER])
    await run(model, "how many days are in a leap year?", hand_off_check=True)
    assert [call.label for call in model.calls] == ["handoff", "world", "answer"]


def test_the_check_is_on_by_default_for_a_model_that_scores_options() -> None:
    class Scoring(FakeModel):
        scores_options = True

    assert Agent(Scoring([]), tools=TOOLS).config.world_check is True
    assert Agent(FakeModel([]), tools=TOOLS).config.world_check is False
    with pytest.raises(ConfigError, match="world_check"):
        Agent(FakeModel([]), world_check="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="world_margin"):
        Agent(FakeModel([]), world_margin="high")  # type: ignore[arg-type]
