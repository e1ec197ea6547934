"""The naive loop: the baseline every Goliath measurement is compared against.

It is what a competent, straightforward agent does: describe every tool in one system prompt,
replay the whole history (the ask, each reply, each full tool result) in every call, and let the
model pick a tool or answer until it answers or hits the step cap. Each reply is constrained to
a JSON Schema that is a union of one branch per tool (its name and its own argument schema) and
an answer branch, so the model cannot produce malformed arguments or an unknown tool.

For a fair comparison it calls the same model through the same :class:`~goliath.models.Model`
port, runs the same tools with the same confirm policy, respects the same step cap and window,
counts calls and tokens the same way, and returns a :class:`~goliath.records.RunResult` so the
same grader scores it. It hands a turn to the fallback only when it must: at the step cap, when
the history no longer fits the window, or when the model fails. It never chooses to escalate
(a naive loop has no such action), and it has no memory, judge, arguments stage or result compression.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import pydantic
import trio

from .._util import compact_json, maybe_await, message_of, named_message
from ..budget import (
    DEFAULT_WINDOW,
    PROMPT_OVERHEAD_TOKENS,
    ContentBudgets,
    ResultBudget,
    TokenCounter,
    count_text,
)
from ..classify import classify_model_error, is_invalid_output
from ..config import (
    DEFAULT_INSTRUCTIONS,
    DEFAULT_MAX_STEPS,
    ConfirmHandler,
    FactsSource,
    Fallback,
    WindowSource,
)
from ..errors import ConfigError, GoliathError
from ..events import AnswerEvent, ConfirmEvent, EscalateEvent, Event, ToolEvent
from ..models import GenerateRequest, Generation, Model
from ..records import ConfirmRequest, Decision, FallbackRequest, HandledBy, RunResult, StepRecord
from ..snapshot import try_snapshot
from ..tools import Tool, ToolContext, tools_by_name
from ..turn.arguments import validate_arguments

__all__ = ["ANSWER_CHARS", "MAX_OUTPUT_TOKENS", "NaiveLoop", "action_schema"]

MAX_OUTPUT_TOKENS = 512
"""Output cap of every call: enough for the longest tool arguments Goliath's arguments stage may write."""
ANSWER_CHARS = 800
"""``maxLength`` of the answer string, so a small model cannot loop inside it forever (llama.cpp's
grammar converter rejects much larger bounds: 1,200 fails, 1,000 works)."""
_TRACE_CHARS = 600


def action_schema(tools: Iterable[Tool]) -> dict[str, Any]:
    """The reply schema: ``{"tool": NAME, "arguments": {...}}`` per tool, or ``{"answer": TEXT}``."""
    options: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {
                "tool": {"type": "string", "enum": [tool.name]},
                "arguments": tool.schema,
            },
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    options.append(
        {
            "type": "object",
            "properties": {"answer": {"type": "string", "maxLength": ANSWER_CHARS}},
            "required": ["answer"],
            "additionalProperties": False,
        }
    )
    return {"anyOf": options}


def _system(
    instructions: str, tools: Iterable[Tool], facts: Mapping[str, str], max_steps: int
) -> str:
    lines = [
        instructions,
        "Help the user, calling tools when you need them. Reply with JSON only: "
        '{"tool": NAME, "arguments": {...}} calls one tool and shows you its result; '
        '{"answer": TEXT} replies to the user and ends the turn. '
        f"At most {max_steps} tool calls.",
        "Tools:",
    ]
    for tool in tools:
        writes = " Changes things." if tool.writes else ""
        lines.append(
            f"- {tool.name}: {tool.description}{writes} Arguments: {compact_json(tool.schema)}"
        )
    if facts:
        lines.append("Known:\n" + "\n".join(f"{key}: {value}" for key, value in facts.items()))
    return "\n".join(lines)


class _Escalate(Exception):
    """Internal: the loop cannot finish on the device."""

    def __init__(self, reason: str, error: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.error = error


class NaiveLoop:
    """A naive tool-calling agent with the same inputs and result shape as :class:`~goliath.Agent`.

    Args:
        model: a Model, or a zero-argument factory called for every model call (as ``Agent``).
        tools: the tools, all described in every prompt.
        fallback: the cloud hand-off (``FallbackRequest -> str``), used at the step cap, on a
            history that no longer fits the window, or when the model fails.
        confirm: asked before every write, exactly as ``Agent`` asks.
        window: the context window in tokens (default: the model's ``window()``, else 4096).
        count_tokens: a tokenizer (default: the model's ``count_tokens``, else the estimate).
        max_steps: the most replies (tool calls and unusable replies) before the hand-off.
        instructions: the first line of the system prompt.
        facts: what the agent knows (rendered like Goliath's ``Known:`` block).
    """

    def __init__(
        self,
        model: Any,
        tools: Iterable[Tool] | Mapping[str, Tool] = (),
        *,
        fallback: Fallback | None = None,
        confirm: ConfirmHandler | None = None,
        window: WindowSource | None = None,
        count_tokens: TokenCounter | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        instructions: str = DEFAULT_INSTRUCTIONS,
        facts: FactsSource | None = None,
    ) -> None:
        self._check_model(model)
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 0:
            raise ConfigError(f"max_steps must be a nonnegative integer, got {max_steps!r}.")
        self.model = model
        self.tools = tools_by_name(tools)
        self.fallback = fallback
        self.confirm = confirm
        has_generate = hasattr(model, "generate")
        model_window = getattr(model, "window", None) if has_generate else None
        model_counter = getattr(model, "count_tokens", None) if has_generate else None
        self.window: WindowSource = (
            window
            if window is not None
            else model_window
            if callable(model_window)
            else DEFAULT_WINDOW
        )
        self.count_tokens = (
            count_tokens
            if count_tokens is not None
            else model_counter
            if callable(model_counter)
            else None
        )
        self.max_steps = max_steps
        self.instructions = instructions
        self.facts = facts
        self.schema = action_schema(self.tools.values())

    def _check_model(self, model: Any) -> None:
        if model is None or not (hasattr(model, "generate") or callable(model)):
            raise ConfigError(
                f"model must be a goliath.models.Model or a zero-argument factory of one; "
                f"got {model!r}."
            )

    async def run(
        self, ask: str, *, context: Any = None, history: Iterable[tuple[str, str]] = ()
    ) -> RunResult:
        """Run one turn: call the model in a loop until it answers, then return the result.

        ``history`` holds earlier ``(ask, answer)`` exchanges of the conversation; they open the
        transcript, as a chat loop replays its whole history.

        Raises:
            Exception: the original error of a confirm handler or fallback (as ``Agent`` does).

        Cancellation: cancelling the caller cancels the model call or tool in progress.
        """
        return await _Turn(self, ask, context, history).run()


class _Turn:
    def __init__(
        self, loop: NaiveLoop, ask: str, context: Any, history: Iterable[tuple[str, str]] = ()
    ) -> None:
        self.loop = loop
        self.ask = ask
        self.context = context
        self.turn_id = uuid.uuid4().hex
        self.steps: list[StepRecord] = []
        self.trace: list[Event] = []
        self.transcript = [
            line for before, reply in history for line in (f"User: {before}", f"Assistant: {reply}")
        ]
        self.transcript.append(f"User: {ask}")
        self.replies = 0
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.window = DEFAULT_WINDOW

    async def run(self) -> RunResult:
        loop = self.loop
        source = loop.window
        window = await maybe_await(source()) if callable(source) else source
        if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
            raise ConfigError(f"window must be a positive integer token count, got {window!r}.")
        self.window = window
        facts = loop.facts
        resolved = await maybe_await(facts()) if callable(facts) else facts
        system = self._system_prompt(dict(resolved or {}))
        try:
            text = await self._loop(system)
        except _Escalate as escalation:
            return await self._escalate(escalation.reason, escalation.error)
        self.steps.append(
            StepRecord(index=len(self.steps), kind="answer", brief="answer", text=text)
        )
        self.trace.append(AnswerEvent(text=text))
        return self._result(text, "device")

    def _system_prompt(self, facts: Mapping[str, str]) -> str:
        loop = self.loop
        return _system(loop.instructions, loop.tools.values(), facts, loop.max_steps)

    async def _loop(self, system: str) -> str:
        while True:
            if self.replies >= self.loop.max_steps:
                raise _Escalate("too-many-steps")
            reply = await self._generate(system)
            self.replies += 1
            if reply is None:
                continue
            self.transcript.append(f"Assistant: {reply.text.strip()}")
            try:
                data = json.loads(reply.text, strict=False)
            except ValueError:
                self._note("your reply was not JSON")
                continue
            if isinstance(data, dict) and isinstance(data.get("tool"), str):
                await self._call_tool(data["tool"], data.get("arguments", {}))
                continue
            if isinstance(data, dict) and isinstance(data.get("answer"), str):
                if data["answer"].strip():
                    return str(data["answer"]).strip()
                self._note("your answer was empty")
                continue
            self._note('reply with {"tool": ..., "arguments": {...}} or {"answer": ...}')

    async def _generate(self, system: str) -> Generation | None:
        """One model call over the whole transcript; ``None`` for an unusable (malformed) reply."""
        prompt = "\n".join(self.transcript)
        counter = self.loop.count_tokens
        try:
            tokens = await count_text(counter, f"{system}\n\n{prompt}") + PROMPT_OVERHEAD_TOKENS
        except Exception as exc:
            raise _Escalate("model-error", named_message(exc)) from exc
        limit = self.window - MAX_OUTPUT_TOKENS
        if tokens > limit:
            raise _Escalate(
                "context-budget", f"the history needs {tokens} tokens; the window allows {limit}"
            )
        request = GenerateRequest(
            label="conductor",
            system=system,
            prompt=prompt,
            schema=self.loop.schema,
            max_output_tokens=MAX_OUTPUT_TOKENS,
        )
        model: Model = (
            self.loop.model if hasattr(self.loop.model, "generate") else self.loop.model()
        )
        try:
            generation = await model.generate(request)
        except Exception as exc:
            if is_invalid_output(exc):
                self.calls += 1
                self.transcript.append("Assistant: (unusable reply)")
                self._note(
                    f"your reply was not valid JSON for the schema ({message_of(exc)[:160]})"
                )
                return None
            classification = classify_model_error(exc)
            if classification == "guardrail":
                raise _Escalate("guardrail", named_message(exc)) from exc
            raise _Escalate(classification, named_message(exc)) from exc
        self.calls += 1
        self.input_tokens += generation.input_tokens
        self.output_tokens += generation.output_tokens
        return generation

    def _note(self, problem: str) -> None:
        self.transcript.append(f"Error: {problem}. Try again.")

    async def _call_tool(self, name: str, arguments: Any) -> None:
        tool = self.loop.tools.get(name)
        if tool is None:
            self._note(f"there is no tool {name!r}; the tools are {', '.join(self.loop.tools)}")
            return
        text = await self._run_tool(tool, arguments)
        self.transcript.append(f"Tool result: {text}")

    async def _run_tool(self, tool: Tool, arguments: Any) -> str:
        """Validate, confirm and run one call as a tool step; returns what the model is shown.

        Shared with the native-template loop, so both baselines run tools, ask for
        confirmation and record steps exactly alike.
        """
        name = tool.name
        started = trio.current_time()
        step = StepRecord(
            index=len(self.steps),
            kind="tool",
            brief=f"call {name}",
            tool=name,
            input=try_snapshot(arguments),
            writes=tool.writes,
            output_mode=tool.output_mode,
        )
        self.steps.append(step)
        ctx = ToolContext(
            turn_id=self.turn_id,
            context=self.context,
            steps=copy.deepcopy(self.steps[:-1]),
            result_budget=ResultBudget(
                max_tokens=ContentBudgets.resolve(self.window, None).tool_result_tokens,
                count_tokens=self.loop.count_tokens,
            ),
        )
        try:
            values = validate_arguments(tool, arguments)
            if tool.resolve_input is not None:
                values = validate_arguments(
                    tool, await maybe_await(tool.resolve_input(copy.deepcopy(values), ctx))
                )
        except (pydantic.ValidationError, ValueError, TypeError) as exc:
            step.failed = True
            text = f"error: invalid arguments: {message_of(exc)[:300]}"
        else:
            step.input = try_snapshot(values)
            text = await self._execute(tool, values, ctx, step)
        step.result = text
        elapsed = round((trio.current_time() - started) * 1000, 3)
        shown = text if len(text) <= _TRACE_CHARS else text[: _TRACE_CHARS - 1] + "…"
        self.trace.append(ToolEvent(tool=name, input=step.input, result=shown, ms=elapsed))
        return text

    async def _execute(
        self, tool: Tool, values: dict[str, Any], ctx: ToolContext, step: StepRecord
    ) -> str:
        if tool.writes:
            decision = await self._confirm(tool, values, step)
            if not decision.approved:
                step.skipped, step.skip_reason = True, "confirmation"
                reason = f": {decision.reason}" if decision.reason else ""
                return f"declined by the user{reason}"
        try:
            output = await tool.run(copy.deepcopy(values), ctx)
        except Exception as exc:
            step.failed = True
            return f"error: {message_of(exc)}"
        step.output = try_snapshot(output)
        if tool.to_model_output is not None:
            rendered = await maybe_await(tool.to_model_output(output))
            return rendered if isinstance(rendered, str) else str(rendered)
        if isinstance(output, str):
            return output
        snapshot = step.output if step.output is not None else str(output)
        return json.dumps(snapshot, ensure_ascii=False)

    async def _confirm(self, tool: Tool, values: dict[str, Any], step: StepRecord) -> Decision:
        """The same policy as ``Agent``: the handler decides; without one, only
        ``requires_confirmation`` writes are declined."""
        request = ConfirmRequest(
            tool=tool.name,
            input=copy.deepcopy(try_snapshot(values) or {}),
            brief=step.brief,
            turn_id=self.turn_id,
            call_id=f"call-{step.index}",
        )
        handler = self.loop.confirm
        raw: Any = (
            not tool.requires_confirmation
            if handler is None
            else await maybe_await(handler(request))
        )
        if isinstance(raw, bool):
            decision = Decision(approved=raw)
        elif isinstance(raw, Decision):
            decision = raw
        else:
            raise GoliathError(
                f"A confirm handler must return True/False or Decision(approved, reason); "
                f"got {raw!r}."
            )
        self.trace.append(
            ConfirmEvent(tool=tool.name, approved=decision.approved, reason=decision.reason)
        )
        return decision

    async def _escalate(self, reason: str, error: str | None) -> RunResult:
        self.trace.append(EscalateEvent(reason=reason, error=error))
        fallback = self.loop.fallback
        if reason == "guardrail" or fallback is None:
            return self._result(
                "", "device", best_effort=fallback is None and reason != "guardrail"
            )
        request = FallbackRequest(
            ask=self.ask,
            summary="",
            recent=[],
            steps=copy.deepcopy(self.steps),
            reason=reason,
            error=error,
        )
        reply = await maybe_await(fallback(request))
        if isinstance(reply, dict) and isinstance(reply.get("text"), str):
            reply = reply["text"]
        if not isinstance(reply, str):
            raise GoliathError(
                f"A fallback must return the cloud's answer as a str (or {{'text': str}}); "
                f"got {reply!r}."
            )
        if reply:
            self.trace.append(AnswerEvent(text=reply))
        return self._result(reply, "cloud")

    def _result(self, text: str, handled_by: HandledBy, *, best_effort: bool = False) -> RunResult:
        return RunResult(
            text=text,
            handled_by=handled_by,
            steps=self.steps,
            best_effort=best_effort,
            trace=self.trace,
            turn_id=self.turn_id,
            model_calls=self.calls,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
        )
