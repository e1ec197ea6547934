"""goliath.tracing on the hard paths: escalations, failures, skips, stops, cancellation, errors."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from goliath import Agent, Extension, Stop, tool
from goliath.errors import ModelError
from goliath.testing import FakeModel
from goliath.tracing import Tracing, model_name

from ..helpers import answer, answer_plan, task_tools, use
from .test_tracing import only, run, spans


def attrs_of(span: Any) -> dict[str, Any]:
    return dict(span.attributes or {})


async def test_a_failed_model_call_is_an_error_span_and_the_turn_names_the_escalation(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """A model error marks its chat span failed and the turn span records the reason and
    that the cloud handled the turn."""
    model = FakeModel([{"error": ModelError("the model crashed")}])
    _, tools = task_tools()
    agent = Agent(model, tools=tools, extensions=[Tracing(provider)], fallback=lambda r: "Cloud.")
    result = await run(agent)
    assert result.handled_by == "cloud"
    (chat,) = only(exporter, "chat")
    assert chat.status.status_code is StatusCode.ERROR
    assert chat.status.description == "ModelError"  # the message is content: left out
    assert attrs_of(chat)["error.type"] == "ModelError"
    assert "gen_ai.usage.input_tokens" not in attrs_of(chat)
    (turn,) = only(exporter, "invoke_agent")
    assert attrs_of(turn)["goliath.escalation.reason"] == "model-error"
    assert attrs_of(turn)["goliath.escalation.reasons"] == ("model-error",)
    assert attrs_of(turn)["goliath.handled_by"] == "cloud"
    assert "goliath.escalation.error" not in attrs_of(turn)


async def test_a_failing_tool_is_an_error_span_without_its_message(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """A tool that raises ends its span with error status; the message needs content capture."""

    @tool
    def flaky() -> str:
        """Fail."""
        raise RuntimeError("disk full at /home/alice")

    model = FakeModel([use("flaky"), answer_plan(), answer("Sorry.")])
    await run(Agent(model, tools=[flaky], extensions=[Tracing(provider)]))
    (span,) = only(exporter, "execute_tool")
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description is None
    assert attrs_of(span)["goliath.tool.outcome"] == "failed"
    assert attrs_of(span)["error.type"] == "tool_error"


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        ([{"json": {"title": "", "missing": "the title"}}], "missing"),
        ([{"json": {"title": "Buy bread"}}], "confirmation"),
    ],
)
async def test_skipped_steps_get_a_span_with_the_skip_reason(
    provider: TracerProvider, exporter: InMemorySpanExporter, script: list[Any], reason: str
) -> None:
    """Missing-argument skips (no before_tool) and declined writes both end as skipped spans."""
    _, tools = task_tools()
    model = FakeModel([use("create_task"), *script, answer_plan(), answer("Tell me more.")])
    agent = Agent(model, tools=tools, extensions=[Tracing(provider)], confirm=lambda r: False)
    await run(agent)
    (span,) = only(exporter, "execute_tool")
    assert attrs_of(span)["goliath.tool.outcome"] == "skipped"
    assert attrs_of(span)["goliath.tool.skip_reason"] == reason
    assert span.parent is not None


async def test_a_cached_read_says_which_step_it_repeats(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """The second identical read is a cached span pointing at the first step."""
    _, tools = task_tools()
    model = FakeModel([use("list_tasks"), use("list_tasks"), answer_plan(), answer("Two tasks.")])
    await run(Agent(model, tools=tools, extensions=[Tracing(provider)]))
    first, second = only(exporter, "execute_tool")
    assert attrs_of(first)["goliath.tool.outcome"] == "executed"
    assert attrs_of(second)["goliath.tool.outcome"] == "cached"
    assert attrs_of(second)["goliath.tool.cached_from"] == 0


async def test_a_stop_in_a_later_before_tool_ends_the_open_tool_span(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """When another extension stops the run after tracing's before_tool, every span still ends."""

    class Guard(Extension):
        name = "guard"

        def before_tool(self, ctx: Any) -> Stop:
            return Stop("Not today.", "closed")

    _, tools = task_tools()
    model = FakeModel([use("list_tasks")])
    agent = Agent(model, tools=tools, extensions=[Tracing(provider), Guard()])
    result = await run(agent)
    assert result.text == "Not today."
    (step,) = only(exporter, "execute_tool")
    assert attrs_of(step)["goliath.tool.outcome"] == "not_run"
    (turn,) = only(exporter, "invoke_agent")
    assert attrs_of(turn)["goliath.turn.status"] == "stopped"
    assert attrs_of(turn)["goliath.stopped.extension"] == "guard"
    assert attrs_of(turn)["goliath.stopped.reason"] == "closed"


async def test_a_cancelled_turn_ends_its_spans_as_cancelled(
    provider: TracerProvider, exporter: InMemorySpanExporter, autojump_clock: Any
) -> None:
    """Cancelling the caller mid-tool ends the tool and turn spans with error status."""

    @tool
    async def slow() -> str:
        """Wait for ever."""
        await trio.sleep_forever()
        return "never"

    model = FakeModel([use("slow")])
    async with Agent(model, tools=[slow], extensions=[Tracing(provider)]) as agent:
        with trio.move_on_after(10):
            await agent.run(ASK_SLOW)
    (step,) = only(exporter, "execute_tool")
    assert attrs_of(step)["goliath.tool.outcome"] == "cancelled"
    assert step.status.status_code is StatusCode.ERROR
    (turn,) = only(exporter, "invoke_agent")
    assert attrs_of(turn)["goliath.turn.status"] == "aborted"
    assert attrs_of(turn)["error.type"] == "Cancelled"
    assert turn.status.status_code is StatusCode.ERROR
    assert step.end_time is not None and turn.end_time is not None


ASK_SLOW = "wait"


async def test_a_run_that_raises_records_the_error_type_and_origin(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """A confirm handler that raises fails the run; the turn span says where it came from."""

    def broken(_request: Any) -> bool:
        raise ValueError("no console")

    _, tools = task_tools()
    model = FakeModel([use("create_task"), {"json": {"title": "x"}}])
    agent = Agent(model, tools=tools, extensions=[Tracing(provider)], confirm=broken)
    with pytest.raises(ValueError, match="no console"):
        await run(agent)
    (turn,) = only(exporter, "invoke_agent")
    assert attrs_of(turn)["goliath.turn.status"] == "error"
    assert attrs_of(turn)["goliath.error.origin"] == "confirm"
    assert attrs_of(turn)["error.type"] == "ValueError"
    assert all(span.end_time is not None for span in spans(exporter))


async def test_tracing_keeps_budgets_lenient(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """Registering tracing alone does not turn an over-budget prompt into a BudgetError."""
    agent = Agent(FakeModel([]), extensions=[Tracing(provider)])
    result = await run(agent, "please " * 3000)
    (turn,) = only(exporter, "invoke_agent")
    assert result.text == ""
    assert attrs_of(turn)["goliath.escalation.reason"] == "context-budget"


async def test_a_parent_function_puts_turns_under_the_callers_span(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    """parent= receives the run's context and returns the OpenTelemetry context to nest under."""
    from opentelemetry import context as otel_context
    from opentelemetry import trace

    tracer = provider.get_tracer("app")
    tracing = Tracing(provider, parent=lambda app: app["otel"])
    agent = Agent(FakeModel([answer("Hi.")]), extensions=[tracing])
    async with agent:
        with tracer.start_as_current_span("request") as request:
            await agent.run("hi", context={"otel": otel_context.get_current()})
    (turn,) = only(exporter, "invoke_agent")
    assert turn.parent is not None
    assert turn.parent.span_id == request.get_span_context().span_id
    assert trace.get_current_span() is trace.INVALID_SPAN


class Named:
    name = "qwen2.5-1.5b"
    provider = "llama.cpp"


def test_the_model_name_comes_from_the_model() -> None:
    """A name/model attribute wins, then the class (or factory) name; strings pass through."""
    assert model_name(Named()) == "qwen2.5-1.5b"
    assert model_name(FakeModel([])) == "FakeModel"
    assert model_name(FakeModel) == "FakeModel"
    assert model_name("phi-4-mini") == "phi-4-mini"
    assert model_name(None) is None
    assert Tracing(model=Named()).provider == "llama.cpp"
