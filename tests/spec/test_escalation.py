"""Answers, escalation and classification (design.md, D5)."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, GoliathError
from goliath.errors import (
    ContextWindowError,
    GuardrailError,
    ModelError,
    ModelUnavailableError,
)
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    calls,
    events,
    fail,
    hand_off,
    labels,
    reasons,
    run_turn,
    text,
    use,
)


class ProviderError(Exception):
    """A provider failure carrying a provider code, as SDKs raise them."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def wrapped(inner: BaseException, message: str = "generation failed") -> BaseException:
    """``inner`` hidden one level down the ``__cause__`` chain."""
    try:
        raise inner
    except BaseException as exc:
        try:
            raise RuntimeError(message) from exc
        except RuntimeError as outer:
            return outer


# ---------------------------------------------------------------- answers


async def test_empty_answer_is_re_asked_once_with_a_nudge() -> None:
    """An empty answer triggers exactly one re-ask with a nudge appended to the prompt."""
    model = FakeModel([text("   "), text("Here you go.")])
    result = await run_turn(model, "hi")
    first, second = calls(model, "answer")
    assert second.prompt.startswith(first.prompt + "\n\n")
    assert len(second.prompt) > len(first.prompt) + 2
    assert second.system == first.system
    assert result.text == "Here you go."
    assert reasons(result) == []


async def test_second_empty_answer_escalates_empty_answer() -> None:
    """A second empty answer escalates empty-answer."""
    model = FakeModel([text(""), text(" \n ")])
    fallback = RecordingFallback()
    result = await run_turn(model, "hi", fallback=fallback)
    assert labels(model) == ["answer", "answer"]
    assert reasons(result) == ["empty-answer"]
    assert fallback.requests[0].reason == "empty-answer"


async def test_answer_text_is_trimmed() -> None:
    """The device answer is the trimmed generated text."""
    result = await run_turn(FakeModel([text("  Hello.  \n")]), "hi")
    assert result.text == "Hello."


async def test_answer_call_uses_its_cap_and_label() -> None:
    """The answer call has label 'answer' and an output cap of 384."""
    model = FakeModel([text("Hi.")])
    await run_turn(model, "hi")
    [call] = model.calls
    assert (call.label, call.max_output_tokens, call.schema) == ("answer", 384, None)
    assert call.prompt.endswith("Ask: hi")


# ---------------------------------------------------------------- best effort


async def test_best_effort_answer_without_fallback(box: TaskBox) -> None:
    """Without a fallback, too-many-steps gets one best-effort call; best_effort=True."""
    model = FakeModel([use("list_tasks"), text("You have two tasks; I could not finish.")])
    result = await run_turn(model, tools=box.tools, max_steps=1)
    assert reasons(result) == ["too-many-steps"]
    assert labels(model) == ["conductor", "answer"]
    assert result.best_effort is True
    assert result.handled_by == "device"
    assert result.text == "You have two tasks; I could not finish."
    assert events(result, "answer")[0].text == result.text
    assert [s.kind for s in result.steps] == ["tool"]


async def test_best_effort_uses_its_own_system_prompt(box: TaskBox) -> None:
    """The best-effort call has a different system prompt starting with the instructions."""
    model = FakeModel([answer_plan(), text("Two."), use("list_tasks"), text("Partial.")])
    agent = Agent(model, tools=box.tools, max_steps=1)
    async with agent:
        await agent.run("one")
        await agent.run("two")
    normal, best_effort = calls(model, "answer")
    assert normal.system != best_effort.system
    assert best_effort.system.split("\n")[0] == normal.system.split("\n")[0]
    assert best_effort.max_output_tokens == 384


async def test_empty_best_effort_still_flags_best_effort(box: TaskBox) -> None:
    """best_effort is set even when the best-effort answer came back empty."""
    memory = InMemory()
    model = FakeModel([use("list_tasks"), text("  ")])
    result = await run_turn(model, tools=box.tools, max_steps=1, memory=memory)
    assert result.best_effort is True
    assert result.text == ""
    assert events(result, "answer") == []
    assert (await memory.load()).recent == []


@pytest.mark.parametrize(
    "stall",
    ["repeated-tool-call", "plan-invalid", "conductor-asked", "tool-prerequisite-missing"],
)
async def test_other_stalls_also_get_a_best_effort_answer(box: TaskBox, stall: str) -> None:
    """Other loop stalls without a fallback also produce one best-effort answer call."""
    from .helpers import make_tool, use

    guarded = make_tool("guarded", lambda a, c: "ok", requires=["search"])
    scripts = {
        "repeated-tool-call": [use("list_tasks"), use("list_tasks"), use("list_tasks")],
        "plan-invalid": [text("?"), text("??")],
        "conductor-asked": [hand_off()],
        "tool-prerequisite-missing": [use("guarded")],
    }
    model = FakeModel([*scripts[stall], text("Partial answer.")])
    result = await run_turn(model, tools=[*box.tools, guarded])
    assert reasons(result) == [stall]
    assert labels(model)[-1] == "answer"
    assert (result.text, result.best_effort) == ("Partial answer.", True)


async def test_best_effort_guardrail_emits_a_second_escalation(box: TaskBox) -> None:
    """A guardrail error in the best-effort call emits escalate guardrail; text is empty."""
    model = FakeModel([use("list_tasks"), fail(GuardrailError("blocked"))])
    result = await run_turn(model, tools=box.tools, max_steps=1)
    assert reasons(result) == ["too-many-steps", "guardrail"]
    assert result.text == ""
    assert result.best_effort is True


async def test_best_effort_provider_error_yields_empty_text(box: TaskBox) -> None:
    """Another provider error in the best-effort call yields empty text, no rejection."""
    model = FakeModel([use("list_tasks"), fail(ModelError("crashed"))])
    result = await run_turn(model, tools=box.tools, max_steps=1)
    assert reasons(result) == ["too-many-steps"]
    assert (result.text, result.best_effort) == ("", True)


# ---------------------------------------------------------------- device failures


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ModelError("model crashed"), "model-error"),
        (ModelUnavailableError("not installed"), "model-unavailable"),
        (ProviderError("nope", code="UNSUPPORTED_OS"), "model-unavailable"),
        (ContextWindowError("too long"), "context-budget"),
        (ProviderError("overflow", code="CONTEXT_WINDOW_EXCEEDED"), "context-budget"),
    ],
)
async def test_device_failures_return_empty_text_without_fallback(
    box: TaskBox, error: BaseException, reason: str
) -> None:
    """Without a fallback these failures give empty text on device and no further call."""
    memory = InMemory()
    model = FakeModel([fail(error), text("should not be used")])
    result = await run_turn(model, tools=box.tools, memory=memory)
    assert reasons(result) == [reason]
    assert (result.text, result.handled_by, result.best_effort) == ("", "device", False)
    assert len(model.calls) == 1
    assert events(result, "answer") == []
    assert (await memory.load()).recent == []


async def test_context_budget_without_fallback_returns_empty_text() -> None:
    """A context-budget escalation (prompt over the limit) returns empty text."""
    model = FakeModel([text("never")])
    result = await run_turn(model, "x " * 20000)
    assert reasons(result) == ["context-budget"]
    assert (result.text, result.handled_by, result.best_effort) == ("", "device", False)
    assert model.calls == []


@pytest.mark.parametrize(
    "message",
    [
        "Guardrail violation",
        "blocked by SAFETY filter",
        "content filter triggered",
        "content_filter",
        "Detected content likely to be unsafe",
    ],
)
async def test_guardrail_stays_on_device(box: TaskBox, message: str) -> None:
    """A guardrail-like provider error ends the turn on device; no fallback call."""
    fallback = RecordingFallback()
    memory = InMemory()
    model = FakeModel([fail(ProviderError(message))])
    result = await run_turn(model, tools=box.tools, fallback=fallback, memory=memory)
    assert reasons(result) == ["guardrail"]
    assert (result.text, result.handled_by) == ("", "device")
    assert fallback.requests == []
    assert (await memory.load()).recent == []


async def test_guardrail_code_counts_as_guardrail(box: TaskBox) -> None:
    """The '<code> <message>' string is matched, so a guardrail code classifies too."""
    model = FakeModel([fail(ProviderError("refused", code="GUARDRAIL_VIOLATION"))])
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    assert reasons(result) == ["guardrail"]


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("CONTEXT_WINDOW_EXCEEDED", "context-budget"),
        ("MODEL_UNAVAILABLE", "model-unavailable"),
        ("UNSUPPORTED_OS", "model-unavailable"),
        ("SOMETHING_ELSE", "model-error"),
    ],
)
async def test_provider_codes_anywhere_in_the_cause_chain(
    box: TaskBox, code: str, reason: str
) -> None:
    """A provider code anywhere along the cause chain decides the classification."""
    fallback = RecordingFallback()
    model = FakeModel([fail(wrapped(ProviderError("inner", code=code)))])
    result = await run_turn(model, tools=box.tools, fallback=fallback)
    assert reasons(result) == [reason]
    assert fallback.requests[0].reason == reason


async def test_guardrail_wins_over_codes(box: TaskBox) -> None:
    """Guardrail takes priority over every code."""
    model = FakeModel(
        [fail(ProviderError("safety system refused", code="CONTEXT_WINDOW_EXCEEDED"))]
    )
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    assert reasons(result) == ["guardrail"]


@pytest.mark.parametrize("stage", ["conductor", "arguments", "answer"])
async def test_no_model_call_is_retried_after_a_provider_failure(box: TaskBox, stage: str) -> None:
    """A provider failure is never retried with the same input."""
    scripts = {
        "conductor": [fail(ModelError("x"))],
        "arguments": [use("search"), fail(ModelError("x"))],
        "answer": [answer_plan(), fail(ModelError("x"))],
    }
    model = FakeModel([*scripts[stage], text("spare"), text("spare")])
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    assert reasons(result) == ["model-error"]
    assert labels(model).count(stage) == 1
    assert labels(model)[-1] == stage


# ---------------------------------------------------------------- classification details


async def test_guardrail_error_in_arguments_stays_on_device(box: TaskBox) -> None:
    """A guardrail failure anywhere in the loop stays on device."""
    fallback = RecordingFallback()
    model = FakeModel([use("search"), fail(GuardrailError("unsafe"))])
    result = await run_turn(model, tools=box.tools, fallback=fallback)
    assert reasons(result) == ["guardrail"]
    assert fallback.requests == []
    [escalation] = events(result, "escalate")
    assert escalation.error == "GuardrailError: unsafe"


async def test_model_factory_failure_is_a_model_error_not_no_model() -> None:
    """D5: no-model is never emitted; a failing model source escalates model-error."""

    def factory() -> Any:
        raise ModelError("weights missing")

    result = await run_turn(factory, "hi", fallback=RecordingFallback())
    assert reasons(result) == ["model-error"]


def test_model_none_is_a_config_error() -> None:
    """D5: a missing model is a ConfigError at construction, not a no-model escalation."""
    with pytest.raises(GoliathError):
        Agent(None)


async def test_non_provider_errors_reject_without_fallback(box: TaskBox) -> None:
    """Failures outside a provider call (tool hooks, events…) reject; no fallback."""

    class Oops(Exception):
        pass

    def explode(event: Any) -> None:
        if event.type == "plan":
            raise Oops("observer")

    fallback = RecordingFallback()
    with pytest.raises(Oops):
        await run_turn(
            FakeModel([answer_plan(), text("Hi.")]),
            tools=box.tools,
            fallback=fallback,
            on_event=explode,
        )
    assert fallback.requests == []


async def test_best_effort_over_budget_without_extensions_is_empty(box: TaskBox) -> None:
    """Without extensions a budget error in the best-effort call yields empty text."""
    model = FakeModel([text("never")])
    result = await run_turn(model, "please " * 3000, tools=box.tools, max_steps=0)
    assert reasons(result) == ["too-many-steps"]
    assert (result.text, result.best_effort) == ("", True)
    assert model.calls == []


async def test_best_effort_over_budget_with_extensions_rejects(box: TaskBox) -> None:
    """With extensions configured a budget error in the best-effort call rejects the run."""
    from goliath import BudgetError, Extension

    class Noop(Extension):
        name = "noop"

    with pytest.raises(BudgetError) as caught:
        await run_turn(
            FakeModel([]), "please " * 3000, tools=box.tools, max_steps=0, extensions=[Noop()]
        )
    assert caught.value.phase == "answer"


async def test_after_answer_sees_cloud_and_best_effort_answers(box: TaskBox) -> None:
    """after_answer runs for cloud and best-effort answers with handled_by/best_effort."""
    from goliath import Extension

    seen: list[tuple[str, bool, str]] = []

    class Watch(Extension):
        name = "watch"

        def after_answer(self, ctx: Any) -> None:
            seen.append((ctx.handled_by, ctx.best_effort, ctx.text))

    await run_turn(
        FakeModel([fail(ModelError("x"))]),
        tools=box.tools,
        fallback=lambda r: "cloud",
        extensions=[Watch()],
    )
    await run_turn(
        FakeModel([use("list_tasks"), text("partial")]),
        tools=box.tools,
        max_steps=1,
        extensions=[Watch()],
    )
    assert seen == [("cloud", False, "cloud"), ("device", True, "partial")]


@pytest.mark.parametrize("message", ["content--filter", "contents-filter", "guard rail"])
async def test_near_miss_messages_are_not_guardrails(box: TaskBox, message: str) -> None:
    """Only 'content' + at most one character + 'filter' (etc.) counts as a guardrail."""
    model = FakeModel([fail(ProviderError(message))])
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    assert reasons(result) == ["model-error"]


async def test_provider_code_along_the_context_chain(box: TaskBox) -> None:
    """The provider code is read along __context__ (implicit chaining) too."""

    def implicit() -> BaseException:
        try:
            raise ProviderError("inner", code="MODEL_UNAVAILABLE")
        except ProviderError:
            try:
                raise RuntimeError("while handling")
            except RuntimeError as outer:
                return outer

    model = FakeModel([fail(implicit())])
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    assert reasons(result) == ["model-unavailable"]


async def test_cloud_and_best_effort_answers_push_no_answer_step(box: TaskBox) -> None:
    """Answer steps are pushed only for device answers from an answer plan."""
    cloud = await run_turn(
        FakeModel([use("list_tasks"), fail(ModelError("x"))]),
        tools=box.tools,
        fallback=lambda r: "c",
    )
    assert [s.kind for s in cloud.steps] == ["tool"]
