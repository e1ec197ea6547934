"""goliath.tracing: one span per turn, children per model call and tool step, GenAI conventions."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from goliath import Agent, Extension, Stop, tool
from goliath.testing import FakeModel
from goliath.tracing import Tracing

from ..helpers import answer, answer_plan, task_tools, use

ASK = "what is on my list?"


def spans(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    """Finished spans in start order."""
    return sorted(exporter.get_finished_spans(), key=lambda span: span.start_time or 0)


def only(exporter: InMemorySpanExporter, prefix: str) -> list[ReadableSpan]:
    return [span for span in spans(exporter) if span.name.startswith(prefix)]


def every_value(exporter: InMemorySpanExporter) -> str:
    """All attribute values and status descriptions, as one searchable text."""
    parts: list[str] = []
    for span in exporter.get_finished_spans():
        parts.extend(str(value) for value in (span.attributes or {}).values())
        parts.append(span.status.description or "")
        parts.extend(str(event.attributes) for event in span.events)
    return "\n".join(parts)


async def run(agent: Agent, ask: str = ASK, **options: Any) -> Any:
    async with agent:
        return await agent.run(ask, **options)


class TestTurnShape:
    async def test_a_turn_is_one_span_with_model_and_tool_children(
        self, provider: TracerProvider, exporter: InMemorySpanExporter
    ) -> None:
        """The turn span parents every chat and execute_tool span of the turn, in one trace."""
        _, tools = task_tools()
        model = FakeModel([use("list_tasks"), answer_plan(), answer("Buy milk, call mom.")])
        tracing = Tracing(provider, model=model)
        agent = Agent(model, tools=tools, extensions=[tracing])
        result = await run(agent, conversation_id="c-1")
        (turn,) = only(exporter, "invoke_agent")
        assert turn.name == "invoke_agent goliath"
        assert turn.parent is None
        children = [span for span in spans(exporter) if span is not turn]
        assert [span.name for span in children] == [
            "chat FakeModel",
            "execute_tool list_tasks",
            "chat FakeModel",
            "chat FakeModel",
        ]
        for child in children:
            assert child.parent is not None
            assert child.parent.span_id == turn.context.span_id
            assert child.context.trace_id == turn.context.trace_id
            assert child.attributes is not None
            assert child.attributes["gen_ai.conversation.id"] == "c-1"
        assert turn.attributes == {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "goliath",
            "gen_ai.request.model": "FakeModel",
            "gen_ai.conversation.id": "c-1",
            "goliath.turn.id": result.turn_id,
            "goliath.turn.status": "completed",
            "goliath.model_calls": 3,
            "gen_ai.usage.input_tokens": result.input_tokens,
            "gen_ai.usage.output_tokens": result.output_tokens,
            "goliath.handled_by": "device",
            "goliath.best_effort": False,
            "goliath.steps": 2,
        }
        assert turn.status.status_code is StatusCode.UNSET

    async def test_model_call_spans_follow_the_genai_conventions(
        self, provider: TracerProvider, exporter: InMemorySpanExporter
    ) -> None:
        """Each chat span carries operation, model, stage, output cap and its own token usage."""
        _, tools = task_tools()
        model = FakeModel(
            [use("create_task"), {"json": {"title": "Buy bread"}}, answer_plan(), answer("Done.")]
        )
        await run(Agent(model, tools=tools, extensions=[Tracing(provider, model="smollm2")]))
        chats = only(exporter, "chat")
        assert [span.name for span in chats] == ["chat smollm2"] * 4
        stages = [span.attributes["goliath.stage"] for span in chats if span.attributes]
        assert stages == ["conductor", "arguments", "conductor", "answer"]
        filling = chats[1]
        assert filling.kind is SpanKind.CLIENT
        assert filling.attributes is not None
        assert filling.attributes["gen_ai.operation.name"] == "chat"
        assert filling.attributes["gen_ai.request.model"] == "smollm2"
        assert filling.attributes["gen_ai.request.max_tokens"] == 512
        assert filling.attributes["gen_ai.usage.input_tokens"] > 0
        assert filling.attributes["gen_ai.usage.output_tokens"] > 0
        (turn,) = only(exporter, "invoke_agent")
        assert turn.attributes is not None
        assert turn.attributes["gen_ai.usage.input_tokens"] == sum(
            span.attributes["gen_ai.usage.input_tokens"] for span in chats if span.attributes
        )

    async def test_tool_spans_describe_the_tool_and_its_outcome(
        self, provider: TracerProvider, exporter: InMemorySpanExporter
    ) -> None:
        """execute_tool carries the tool's name, description, call id, writes flag and outcome."""
        _, tools = task_tools()
        model = FakeModel(
            [use("create_task"), {"json": {"title": "Buy bread"}}, answer_plan(), answer("Done.")]
        )
        await run(Agent(model, tools=tools, auto_approve=True, extensions=[Tracing(provider)]))
        (span,) = only(exporter, "execute_tool")
        assert span.attributes == {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "create_task",
            "gen_ai.tool.description": "Add a task.",
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": "call-0",
            "goliath.step.index": 0,
            "goliath.tool.writes": True,
            "goliath.tool.outcome": "executed",
        }


class TestContent:
    async def test_no_prompt_or_tool_content_by_default(
        self, provider: TracerProvider, exporter: InMemorySpanExporter
    ) -> None:
        """Without content capture no span holds the ask, the answer, arguments or results."""
        _, tools = task_tools()
        model = FakeModel(
            [
                use("create_task"),
                {"json": {"title": "Secret plan"}},
                answer_plan(),
                answer("Added it."),
            ]
        )
        await run(Agent(model, tools=tools, extensions=[Tracing(provider, capture_content=False)]))
        text = every_value(exporter)
        for private in (ASK, "Secret plan", "Added it."):
            assert private not in text

    async def test_content_capture_records_messages_arguments_and_results(
        self, provider: TracerProvider, exporter: InMemorySpanExporter
    ) -> None:
        """With capture_content the turn has its messages and the tool its arguments and result."""
        _, tools = task_tools()
        model = FakeModel(
            [
                use("create_task"),
                {"json": {"title": "Secret plan"}},
                answer_plan(),
                answer("Added it."),
            ]
        )
        await run(
            Agent(
                model,
                tools=tools,
                auto_approve=True,
                extensions=[Tracing(provider, capture_content=True)],
            )
        )
        (turn,) = only(exporter, "invoke_agent")
        (step,) = only(exporter, "execute_tool")
        assert turn.attributes is not None and step.attributes is not None
        assert turn.attributes["gen_ai.input.messages"] == (
            '[{"role": "user", "parts": [{"type": "text", "content": "what is on my list?"}]}]'
        )
        assert "Added it." in str(turn.attributes["gen_ai.output.messages"])
        assert step.attributes["gen_ai.tool.call.arguments"] == '{"title": "Secret plan"}'
        assert step.attributes["gen_ai.tool.call.result"] == "ok: true\ntitle: Secret plan"

    async def test_the_environment_variable_switches_capture_on(
        self, monkeypatch: pytest.MonkeyPatch, provider: TracerProvider
    ) -> None:
        """capture_content=None follows OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT."""
        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        assert Tracing(provider).capture_content is True
        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "false")
        assert Tracing(provider).capture_content is False


class TestCurrentSpan:
    async def test_a_running_tool_sees_its_own_span_as_current(
        self, provider: TracerProvider, exporter: InMemorySpanExporter
    ) -> None:
        """Async tools (in the conversation's task) and sync ones (in a thread) both run under
        their step's span, so their own instrumentation nests under it."""
        seen: list[int] = []

        @tool
        async def fetch() -> str:
            """Fetch."""
            seen.append(trace.get_current_span().get_span_context().span_id)
            return "fetched"

        @tool
        def compute() -> str:
            """Compute."""
            seen.append(trace.get_current_span().get_span_context().span_id)
            return "computed"

        model = FakeModel([use("fetch"), use("compute"), answer_plan(), answer("Done.")])
        await run(Agent(model, tools=[fetch, compute], extensions=[Tracing(provider)]))
        steps = only(exporter, "execute_tool")
        assert seen == [span.context.span_id for span in steps]

    async def test_no_span_stays_current_after_a_step_that_never_finished(
        self, provider: TracerProvider, exporter: InMemorySpanExporter
    ) -> None:
        """A run stopped inside a tool step leaves the conversation task's context clean for
        the next run."""
        current: list[bool] = []

        class Guard(Extension):
            name = "guard"

            def before_run(self, ctx: Any) -> None:
                current.append(trace.get_current_span().get_span_context().is_valid)

            def before_tool(self, ctx: Any) -> Stop:
                return Stop("Not now.", "closed")

        _, tools = task_tools()
        model = FakeModel([use("list_tasks"), answer_plan(), answer("Hi.")])
        async with Agent(model, tools=tools, extensions=[Tracing(provider), Guard()]) as agent:
            assert (await agent.run("list")).text == "Not now."
            assert (await agent.run("hello")).text == "Hi."
        assert current == [False, False]
