"""Structured output."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from goliath import Agent, Extension, Stop
from goliath.errors import InvalidOutputError, ModelError
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    calls,
    events,
    fail,
    labels,
    reasons,
    run_turn,
    text,
    use,
)


class Summary(pydantic.BaseModel):
    count: int
    first: str


class Verdict(pydantic.BaseModel):
    ok: bool


async def test_valid_structured_answer_sets_output_and_json_text(box: TaskBox) -> None:
    """A valid answer sets output to the validated value and text to the JSON text.

    (Python shape: ``output`` is an instance of the pydantic schema class.)
    """
    model = FakeModel(
        [use("list_tasks"), answer_plan(), {"json": {"count": 2, "first": "Buy milk"}}]
    )
    result = await run_turn(model, tools=box.tools, output_schema=Summary)
    assert json.loads(result.text) == {"count": 2, "first": "Buy milk"}
    assert result.text == json.dumps({"count": 2, "first": "Buy milk"})
    assert isinstance(result.output, Summary)
    assert result.output == Summary(count=2, first="Buy milk")
    [answer] = calls(model, "answer")
    assert answer.schema is not None
    assert set(answer.schema["properties"]) == {"count", "first"}
    assert answer.max_output_tokens == 384


async def test_structured_answer_uses_the_existing_answer_call() -> None:
    """Structured output uses the answer call itself; no extra call."""
    model = FakeModel([{"json": {"ok": True}}])
    result = await run_turn(model, "ok?", output_schema=Verdict)
    assert labels(model) == ["answer"]
    assert result.output == Verdict(ok=True)


async def test_schema_counts_toward_the_input_budget() -> None:
    """The serialized schema counts toward the answer's input budget: a larger schema costs
    more tokens for the same prompts."""
    small = await run_turn(FakeModel([{"json": {"ok": True}}]), "ok?", output_schema=Verdict)
    large = await run_turn(
        FakeModel([{"json": {"count": 2, "first": "Buy milk"}}]), "ok?", output_schema=Summary
    )
    [small_call] = events(small, "budget")
    [large_call] = events(large, "budget")
    assert large_call.tokens > small_call.tokens


async def test_invalid_first_answer_is_retried_with_a_correction_note() -> None:
    """An invalid first answer triggers one retry with a correction note appended."""
    model = FakeModel([{"json": {"count": "many"}}, {"json": {"count": 2, "first": "Buy milk"}}])
    result = await run_turn(model, "sum up", output_schema=Summary)
    first, second = calls(model, "answer")
    assert second.prompt.startswith(first.prompt + "\n\n")
    assert "JSON" in second.prompt[len(first.prompt) :]
    assert result.output == Summary(count=2, first="Buy milk")
    assert reasons(result) == []


@pytest.mark.parametrize(
    "invalid",
    [text("not json at all"), fail(InvalidOutputError("bad json"))],
    ids=["unparseable", "invalid-output-error"],
)
async def test_two_invalid_answers_escalate_answer_invalid(invalid: dict[str, Any]) -> None:
    """Two invalid answers escalate answer-invalid: empty text, no output, no best effort."""
    memory = InMemory()
    model = FakeModel([invalid, {"json": {"count": "x"}}, text("spare")])
    result = await run_turn(model, "sum up", output_schema=Summary, memory=memory)
    assert labels(model) == ["answer", "answer"]
    assert reasons(result) == ["answer-invalid"]
    assert (result.text, result.output, result.best_effort) == ("", None, False)
    assert (await memory.load()).recent == []


async def test_answer_invalid_goes_to_the_fallback() -> None:
    """Answer-invalid reaches the fallback when one is configured."""
    fallback = RecordingFallback()
    model = FakeModel([text("no"), text("still no")])
    result = await run_turn(model, output_schema=Summary, fallback=fallback)
    assert fallback.requests[0].reason == "answer-invalid"
    assert (result.handled_by, result.output) == ("cloud", None)


async def test_other_errors_are_not_retried() -> None:
    """A provider error other than invalid output propagates (no structured retry)."""
    model = FakeModel([fail(ModelError("crashed")), text("spare")])
    result = await run_turn(model, output_schema=Summary)
    assert labels(model) == ["answer"]
    assert reasons(result) == ["model-error"]


async def test_no_empty_answer_nudge_with_a_schema() -> None:
    """With a schema an empty text escalates empty-answer without the nudge re-ask."""
    fallback = RecordingFallback()
    model = FakeModel([text("   "), text("spare")])
    result = await run_turn(model, output_schema=Summary, fallback=fallback)
    assert labels(model) == ["answer"]
    assert reasons(result) == ["empty-answer"]


async def test_per_run_schema_overrides_the_configured_one() -> None:
    """The per-run output_schema overrides the configured one for that run."""
    model = FakeModel([{"json": {"ok": False}}, {"json": {"count": 1, "first": "a"}}])
    agent = Agent(model, output_schema=Summary)
    async with agent:
        overridden = await agent.run("ok?", output_schema=Verdict)
        default = await agent.run("sum")
    assert overridden.output == Verdict(ok=False)
    assert default.output == Summary(count=1, first="a")
    assert set(model.calls[0].schema["properties"]) == {"ok"}


async def test_after_answer_rewrites_text_but_not_output() -> None:
    """after_answer may rewrite text but does not change or revalidate output."""

    class Rewrite(Extension):
        name = "rewrite"

        def after_answer(self, ctx: Any) -> Any:
            return {"text": "rewritten"}

    model = FakeModel([{"json": {"ok": True}}])
    result = await run_turn(model, output_schema=Verdict, extensions=[Rewrite()])
    assert result.text == "rewritten"
    assert result.output == Verdict(ok=True)


async def test_cloud_answers_never_carry_output() -> None:
    """A cloud answer has no output even with a schema."""
    model = FakeModel([fail(ModelError("x"))])
    result = await run_turn(model, output_schema=Verdict, fallback=lambda r: '{"ok": true}')
    assert (result.handled_by, result.text, result.output) == ("cloud", '{"ok": true}', None)


async def test_extension_stops_never_carry_output() -> None:
    """An extension stop has no output."""

    class Gate(Extension):
        name = "gate"

        def after_answer(self, ctx: Any) -> Any:
            return Stop("stopped", "policy")

    result = await run_turn(
        FakeModel([{"json": {"ok": True}}]), output_schema=Verdict, extensions=[Gate()]
    )
    assert (result.text, result.output) == ("stopped", None)
    assert result.stopped is not None


async def test_best_effort_uses_the_schema(box: TaskBox) -> None:
    """Best-effort answers use the schema and yield output."""
    model = FakeModel([use("list_tasks"), {"json": {"count": 2, "first": "Buy milk"}}])
    result = await run_turn(model, tools=box.tools, max_steps=1, output_schema=Summary)
    assert reasons(result) == ["too-many-steps"]
    best_effort = calls(model, "answer")[0]
    assert best_effort.schema is not None
    assert result.best_effort is True
    assert result.output == Summary(count=2, first="Buy milk")


async def test_invalid_best_effort_emits_a_second_escalation(box: TaskBox) -> None:
    """Best-effort invalidity (after its retry) emits escalate answer-invalid; text is empty."""
    model = FakeModel([use("list_tasks"), text("nope"), text("nope again")])
    result = await run_turn(model, tools=box.tools, max_steps=1, output_schema=Summary)
    assert reasons(result) == ["too-many-steps", "answer-invalid"]
    assert labels(model) == ["conductor", "answer", "answer"]
    assert (result.text, result.output, result.best_effort) == ("", None, True)
