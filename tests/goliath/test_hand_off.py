"""The hand-off decision: the first plan's scored options, weighed (docs/design.md)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from goliath import Agent
from goliath.models._choices import ChoiceScorer, enum_of
from goliath.testing import FakeModel
from goliath.turn import conductor
from goliath.turn.conductor import Plan, weigh_options
from tests.helpers import answer, task_tools

NAMES = ["list_tasks", "create_task"]
HAND_OFF = "beyond_these_functions"
NO_TOOL = "general_knowledge_or_chat"


def first_plan(call: str, then: str = "answer_the_user", **scores: float) -> dict[str, Any]:
    return {"json": {"call": call, "then": then}, "scores": scores}


# ---------------------------------------------------------------- the scorer, without a model

VOCAB = {'"': 1, "list": 2, "_tasks": 3, "beyond": 4, '"list': 5, "b": 6, "general": 7}


def token_ids(text: str) -> list[int]:
    return [VOCAB[text]] if text in VOCAB else []


def scorer() -> ChoiceScorer:
    return ChoiceScorer("call", ["list_tasks", "list_events", HAND_OFF, NO_TOOL], token_ids)


def by_id(values: dict[int, float]) -> Any:
    return lambda ids: [values.get(i, -50.0) for i in ids]


def test_the_options_are_scored_at_the_token_where_the_value_starts() -> None:
    """Tokens before the value are passed over; at the value's first token every option gets
    the log-probability of the tokens there that start it (shared tokens shared, prefixes
    summed)."""
    s = scorer()
    for piece in ['{"', "call", '":', ' "']:
        s.observe(piece, by_id({}))
        assert s.pending
    s.observe("list", by_id({2: math.log(0.5), 4: math.log(0.2), 6: math.log(0.1)}))
    assert s.scores is not None and not s.pending
    assert s.scores["list_tasks"] == pytest.approx(math.log(0.5))
    assert s.scores["list_events"] == pytest.approx(math.log(0.5))
    assert s.scores[HAND_OFF] == pytest.approx(math.log(0.3))  # "beyond" + "b"
    assert s.scores[NO_TOOL] == pytest.approx(-50.0)


def test_a_token_that_carries_the_opening_quote_is_scored_with_it() -> None:
    s = scorer()
    for piece in ['{"', "call", '":']:
        s.observe(piece, by_id({}))
    s.observe('"list', by_id({5: math.log(0.9), 1: math.log(0.05)}))
    assert s.scores is not None
    assert s.scores["list_tasks"] == pytest.approx(math.log(0.9))
    assert s.scores[HAND_OFF] == -math.inf  # no token here starts it after the quote


def test_a_reply_whose_first_field_is_another_scores_nothing() -> None:
    s = scorer()
    for piece in ['{"', "then", '":', ' "', "list"]:
        s.observe(piece, by_id({2: 0.0}))
    assert s.scores is None and not s.pending


def test_enum_of_reads_a_top_level_enum_only() -> None:
    schema = {"type": "object", "properties": {"call": {"type": "string", "enum": ["a", "b"]}}}
    assert enum_of(schema, "call") == ["a", "b"]
    assert enum_of(schema, "then") == []
    assert enum_of(None, "call") == []


# ---------------------------------------------------------------- weighing


def scored(kind: str, tool: str | None = None, **scores: float) -> Plan:
    return Plan(kind=kind, brief="", tool=tool, scores=scores)  # type: ignore[arg-type]


def test_without_scores_the_generated_plan_stands() -> None:
    assert weigh_options(Plan(kind="tool", brief="", tool="list_tasks"), NAMES) == "keep"


def test_a_bias_moves_the_line_between_a_function_and_the_hand_off() -> None:
    plan = scored("tool", "list_tasks", list_tasks=-0.5, beyond_these_functions=-1.5)
    assert weigh_options(plan, NAMES, hand_off_bias=0.0) == "keep"
    assert weigh_options(plan, NAMES, hand_off_bias=1.5) == "escalate"


def test_a_hand_off_close_to_a_function_becomes_a_plan_among_the_functions() -> None:
    plan = scored("escalate", None, create_task=-1.0, beyond_these_functions=-0.7)
    assert weigh_options(plan, NAMES, hand_off_bias=0.0) == "keep"
    assert weigh_options(plan, NAMES, hand_off_bias=-0.5) == "tool"


def test_the_no_function_option_is_weighed_by_its_own_bias() -> None:
    plan = scored("answer", None, list_tasks=-0.9, general_knowledge_or_chat=-0.6)
    assert weigh_options(plan, NAMES, no_tool_bias=0.0) == "keep"
    assert weigh_options(plan, NAMES, no_tool_bias=-1.0) == "tool"
    plan = scored("answer", None, general_knowledge_or_chat=-0.6, beyond_these_functions=-2.0)
    assert weigh_options(plan, NAMES, hand_off_bias=2.0) == "escalate"


# ---------------------------------------------------------------- in a turn


@pytest.fixture
def biases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conductor, "HAND_OFF_BIAS", 1.0)
    monkeypatch.setattr(conductor, "NO_TOOL_BIAS", 0.0)


async def test_the_first_plan_asks_the_bridge_to_score_its_call(biases: None) -> None:
    _, tools = task_tools()
    model = FakeModel([first_plan(NO_TOOL), answer("Hi!")])
    async with Agent(model, tools=tools) as agent:
        await agent.run("hi")
    assert model.calls[0].score == "call"
    assert model.calls[1].score is None


async def test_a_function_the_hand_off_nearly_beat_hands_the_turn_over(biases: None) -> None:
    """With the hand-off within its bias of the generated function, no tool runs."""
    tasks, tools = task_tools()
    model = FakeModel(
        [first_plan("create_task", create_task=-0.6, beyond_these_functions=-1.2, list_tasks=-3)]
    )

    async def cloud(_request: Any) -> str:
        return "cloud"

    async with Agent(model, tools=tools, fallback=cloud) as agent:
        result = await agent.run("wire 200 dollars to Priya")
    assert result.handled_by == "cloud"
    assert [e.reason for e in result.trace if e.type == "escalate"] == ["conductor-asked"]
    assert result.steps == [] and len(model.calls) == 1
    assert tasks == [{"title": "Buy milk"}, {"title": "Call mom"}]


async def test_a_hand_off_a_function_outscores_is_planned_among_the_functions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The re-plan offers only the functions, and its whole plan is followed."""
    monkeypatch.setattr(conductor, "HAND_OFF_BIAS", -1.0)
    _, tools = task_tools()
    model = FakeModel(
        [
            first_plan(HAND_OFF, list_tasks=-0.9, beyond_these_functions=-0.5),
            {"json": {"call": "list_tasks", "then": "answer_the_user"}},
            answer("Buy milk and call mom."),
        ]
    )
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("what's on my list?")
    retry = model.calls[1]
    assert retry.schema is not None
    assert retry.schema["properties"]["call"]["enum"] == NAMES
    assert retry.score is None
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["list_tasks"]
    assert result.handled_by == "device" and result.text == "Buy milk and call mom."
