"""OpenTelemetry traces of Goliath turns, as an observer-only extension (the ``tracing`` extra).

One span per turn (``invoke_agent``), with a child span per model call (``chat``) and per tool
step (``execute_tool``), named and attributed after the OpenTelemetry GenAI semantic
conventions, plus Goliath's own ``goliath.*`` attributes (stage, escalation reason, handled by,
outcome). Prompts, answers, tool arguments and results stay out of spans unless content capture
is switched on.

Hooks run in the conversation actor's Trio task, not the caller's, so nothing here relies on
the implicit current context: every child span names the turn span as its parent explicitly,
and spans are kept in the extension's per-run ``state``. The one exception is deliberate: while
a tool runs, its span is the task's current span (so the tool's own instrumentation, and trace
context it sends to an MCP server, nest under it); the next hook restores the context, and
``on_finish`` — which runs for every outcome, cancellations included — ends whatever is open.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

from .extensions import Extension, HookContext

try:
    from opentelemetry import context as otel_context
    from opentelemetry import trace
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, SpanKind, Status, StatusCode, TracerProvider
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "goliath.tracing needs the OpenTelemetry API. Install it with "
        "`pip install 'goliath-harness[tracing]'` (and an SDK/exporter such as opentelemetry-sdk)."
    ) from exc

__all__ = ["CAPTURE_CONTENT_ENV", "Tracing", "model_name"]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The environment variable OpenTelemetry's GenAI instrumentations read for content capture."""
TRACER_NAME = "goliath.tracing"
_VERSION = "0.1.0"

# GenAI semantic conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/).
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
MAX_TOKENS = "gen_ai.request.max_tokens"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
AGENT_NAME = "gen_ai.agent.name"
CONVERSATION = "gen_ai.conversation.id"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_DESCRIPTION = "gen_ai.tool.description"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"

ParentSource = Callable[[Any], "Context | None"]


class Tracing(Extension):
    """Record every turn as OpenTelemetry spans.

    Args:
        tracer_provider: where spans go; the global provider when ``None``.
        model: the agent's model (its ``name``/``model`` attribute, else its class name, becomes
            ``gen_ai.request.model``) or the model name as a string.
        provider: ``gen_ai.provider.name`` (e.g. ``"llama.cpp"``); read from the model's
            ``provider`` attribute when not given, left out when unknown.
        agent_name: ``gen_ai.agent.name`` and the turn span's name suffix.
        capture_content: put the ask, the answer, tool arguments and results, and error
            messages in spans. ``None`` reads ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
            (``"true"`` switches it on); off by default, because they may hold personal data.
        parent: a function of the run's application ``context`` returning the OpenTelemetry
            ``Context`` to parent each turn span under (the caller's span lives in another
            task, so it is not picked up implicitly).
        name: the extension's name (change it to register two tracers).

    Tracing only observes (``observer_only``): it never changes a run, and it leaves budgets
    lenient (an over-budget prompt still escalates ``context-budget``).
    """

    name = "tracing"
    observer_only = True

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        *,
        model: Any = None,
        provider: str | None = None,
        agent_name: str = "goliath",
        capture_content: bool | None = None,
        parent: ParentSource | None = None,
        name: str | None = None,
    ) -> None:
        if name is not None:
            self.name = name
        self.tracer = trace.get_tracer(TRACER_NAME, _VERSION, tracer_provider=tracer_provider)
        self.model = model_name(model)
        self.provider = provider or _attribute(model, "provider")
        self.agent_name = agent_name
        if capture_content is None:
            capture_content = os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"
        self.capture_content = capture_content
        self.parent = parent

    # ------------------------------------------------------------------ hooks

    def before_run(self, ctx: HookContext) -> None:
        span = self._turn(ctx)
        if self.capture_content:
            span.set_attribute(INPUT_MESSAGES, _messages("user", ctx.ask))

    def on_model_call(self, ctx: HookContext) -> None:
        """A model call finished (or failed) ``ctx.ms`` ago; record it as a ``chat`` span."""
        end = time.time_ns()
        start = end - int(ctx.ms * 1_000_000)
        self._close_tools(ctx.state, "not_run", at=start)
        attributes: dict[str, Any] = {
            OPERATION: "chat",
            "goliath.stage": ctx.label,
            "goliath.queue_ms": float(ctx.queue_ms),
            MAX_TOKENS: ctx.max_output_tokens,
            **self._model_attributes(),
            **_conversation(ctx),
        }
        if ctx.error is None:
            attributes[INPUT_TOKENS] = ctx.input_tokens
            attributes[OUTPUT_TOKENS] = ctx.output_tokens
        usage = ctx.state.setdefault("usage", [0, 0, 0])
        usage[0] += ctx.error is None  # as RunResult.model_calls: the calls that answered
        usage[1] += ctx.input_tokens
        usage[2] += ctx.output_tokens
        span = self.tracer.start_span(
            f"chat {self.model}" if self.model else "chat",
            context=trace.set_span_in_context(self._turn(ctx)),
            kind=SpanKind.CLIENT,
            attributes=attributes,
            start_time=start,
        )
        if ctx.error is not None:
            self._error(span, ctx.error)
        span.end(end_time=end)

    def before_tool(self, ctx: HookContext) -> None:
        """Start the step's span and make it current while the tool runs, so spans the tool
        makes (an HTTP client's, the MCP client's) and trace context it sends nest under it."""
        index = len(ctx.steps)
        self._close_tools(ctx.state, "not_run")
        span = self._start_tool(ctx, index)
        ctx.state.setdefault("tools", {})[index] = span
        ctx.state["attached"] = otel_context.attach(trace.set_span_in_context(span))

    def after_tool(self, ctx: HookContext) -> None:
        """End the step's span; a step skipped for missing arguments never saw ``before_tool``."""
        index = len(ctx.steps)
        _detach(ctx.state)
        span = ctx.state.setdefault("tools", {}).pop(index, None)
        if span is None:
            span = self._start_tool(ctx, index)
        outcome = ctx.outcome
        status = outcome.get("status")
        span.set_attribute("goliath.tool.outcome", str(status))
        if status == "skipped":
            span.set_attribute("goliath.tool.skip_reason", str(outcome.get("reason")))
            if outcome.get("extension"):
                span.set_attribute("goliath.tool.denied_by", str(outcome["extension"]))
        elif status == "cached":
            span.set_attribute("goliath.tool.cached_from", int(outcome.get("from_step", -1)))
        elif status == "failed":
            span.set_attribute(ERROR_TYPE, "tool_error")
            message = str(outcome.get("error", "")) if self.capture_content else None
            span.set_status(Status(StatusCode.ERROR, message))
        if self.capture_content:
            span.set_attribute(TOOL_RESULT, str(ctx.result))
        span.end()

    def on_finish(self, ctx: HookContext) -> None:
        """End the turn span with its outcome; end any tool span the turn left open."""
        outcome = ctx.outcome
        aborted = outcome.status == "aborted"
        self._close_tools(ctx.state, "cancelled" if aborted else "not_run", error=aborted)
        span = self._turn(ctx)
        calls, input_tokens, output_tokens = ctx.state.get("usage", [0, 0, 0])
        span.set_attribute("goliath.turn.status", outcome.status)
        span.set_attribute("goliath.model_calls", calls)
        span.set_attribute(INPUT_TOKENS, input_tokens)
        span.set_attribute(OUTPUT_TOKENS, output_tokens)
        result = outcome.result
        trace_events = result.trace if result is not None else outcome.trace
        reasons = [e.reason for e in trace_events if getattr(e, "type", None) == "escalate"]
        if reasons:
            span.set_attribute("goliath.escalation.reason", reasons[0])
            span.set_attribute("goliath.escalation.reasons", reasons)
            errors = [e.error for e in trace_events if getattr(e, "type", None) == "escalate"]
            if self.capture_content and errors[0]:
                span.set_attribute("goliath.escalation.error", errors[0])
        if result is not None:
            span.set_attribute("goliath.handled_by", result.handled_by)
            span.set_attribute("goliath.best_effort", bool(result.best_effort))
            span.set_attribute("goliath.steps", len(result.steps))
            if result.stopped:
                span.set_attribute("goliath.stopped.extension", result.stopped["extension"])
                span.set_attribute("goliath.stopped.reason", result.stopped["reason"])
            if self.capture_content and result.text:
                span.set_attribute(OUTPUT_MESSAGES, _messages("assistant", result.text))
        else:
            span.set_attribute("goliath.error.origin", str(outcome.origin))
            if outcome.error is not None:
                self._error(span, outcome.error)
        span.end()
        ctx.state.pop("turn", None)

    # ------------------------------------------------------------------ spans

    def _turn(self, ctx: HookContext) -> Span:
        """The turn's span, started by the first hook that sees the run."""
        span: Span | None = ctx.state.get("turn")
        if span is None:
            attributes: dict[str, Any] = {
                OPERATION: "invoke_agent",
                AGENT_NAME: self.agent_name,
                "goliath.turn.id": ctx.run_id,
                **self._model_attributes(),
                **_conversation(ctx),
            }
            span = self.tracer.start_span(
                f"invoke_agent {self.agent_name}",
                context=self.parent(ctx.context) if self.parent is not None else None,
                kind=SpanKind.INTERNAL,
                attributes=attributes,
            )
            ctx.state["turn"] = span
        return span

    def _start_tool(self, ctx: HookContext, index: int) -> Span:
        info = ctx.tool
        attributes: dict[str, Any] = {
            OPERATION: "execute_tool",
            TOOL_NAME: info["name"],
            TOOL_DESCRIPTION: info["description"],
            TOOL_TYPE: "function",
            TOOL_CALL_ID: f"call-{index}",
            "goliath.step.index": index,
            "goliath.tool.writes": bool(info["writes"]),
            **_conversation(ctx),
        }
        if self.capture_content:
            attributes[TOOL_ARGUMENTS] = _json(ctx.input)
        return self.tracer.start_span(
            f"execute_tool {info['name']}",
            context=trace.set_span_in_context(self._turn(ctx)),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
        )

    def _close_tools(
        self, state: dict[str, Any], outcome: str, *, at: int | None = None, error: bool = False
    ) -> None:
        """End tool spans whose step ended without ``after_tool`` (escalated, stopped, cancelled)."""
        _detach(state)
        open_spans: dict[int, Span] = state.get("tools", {})
        for span in open_spans.values():
            span.set_attribute("goliath.tool.outcome", outcome)
            if error:
                span.set_attribute(ERROR_TYPE, "Cancelled")
                span.set_status(Status(StatusCode.ERROR, "the turn was cancelled"))
            span.end(end_time=at)
        open_spans.clear()

    def _model_attributes(self) -> dict[str, Any]:
        attributes: dict[str, Any] = {}
        if self.model:
            attributes[REQUEST_MODEL] = self.model
        if self.provider:
            attributes[PROVIDER] = self.provider
        return attributes

    def _error(self, span: Span, error: BaseException) -> None:
        """Mark a span failed: the error's type always, its message only with content capture."""
        kind = type(error).__qualname__
        span.set_attribute(ERROR_TYPE, kind)
        span.set_status(Status(StatusCode.ERROR, str(error) if self.capture_content else kind))
        if self.capture_content:
            span.record_exception(error)


def model_name(model: Any) -> str | None:
    """A model's name for ``gen_ai.request.model``: a string as is, else its ``name``/``model``
    attribute, else the class (or factory) name."""
    if model is None:
        return None
    if isinstance(model, str):
        return model
    named = _attribute(model, "name") or _attribute(model, "model")
    if named:
        return named
    if isinstance(model, type) or (callable(model) and not hasattr(model, "generate")):
        return str(getattr(model, "__name__", type(model).__name__))
    return type(model).__name__


def _detach(state: dict[str, Any]) -> None:
    """Restore the conversation task's context: a tool span is current only while it runs."""
    token = state.pop("attached", None)
    if token is not None:
        otel_context.detach(token)


def _attribute(value: Any, name: str) -> str | None:
    found = getattr(value, name, None)
    return found if isinstance(found, str) and found else None


def _conversation(ctx: HookContext) -> dict[str, str]:
    return {CONVERSATION: ctx.conversation_id} if ctx.conversation_id else {}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _messages(role: str, text: str) -> str:
    """One message in the GenAI conventions' JSON shape for ``gen_ai.*.messages``."""
    return _json([{"role": role, "parts": [{"type": "text", "content": text}]}])
