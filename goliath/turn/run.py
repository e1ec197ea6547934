"""One turn, top to bottom: recall → plan → worker → tool → judge → answer → remember.

This module is the state machine; each stage's details live in its own module (conductor,
worker, judge, answer, scribe, prompts, budget, compress). A turn knows nothing of actors: the
conversation actor calls :func:`run_turn` with a ``generate`` port that reaches the model worker.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Mapping
from typing import Any

import msgspec
import pydantic
import trio

from .._origin import Origin, origin, origin_of
from .._util import maybe_await, message_of, named_message, try_snapshot
from ..budget import (
    DEFAULT_WINDOW,
    EXCERPT_OMITTED,
    ContentBudgets,
    ResultBudget,
    clip_tokens,
    count_text,
    fit_excerpt,
)
from ..classify import classify_model_error
from ..compress import RESULT_CHARS, clip, summarize_tool_result
from ..config import AgentConfig, TurnRequest
from ..errors import BudgetError, ConfigError, ExtensionError, GoliathError
from ..events import (
    AnswerEvent,
    ConfirmEvent,
    EscalateEvent,
    Event,
    MemoryErrorEvent,
    PlanEvent,
    RecallEvent,
    RememberEvent,
    ToolEvent,
)
from ..extensions import OBSERVER_SECONDS, Denied, ExtensionRunner, RunOutcome, StopRun
from ..memory._codec import copy_state
from ..records import (
    ConfirmRequest,
    Decision,
    Exchange,
    FallbackRequest,
    HandledBy,
    MemoryState,
    RunResult,
    StepRecord,
)
from ..session import Session
from ..tools import Tool, ToolContext
from .answer import AnswerInvalid, compose_answer
from .conductor import InvalidPlan, Plan, request_plan
from .generation import Generate, ModelCall, ModelCaller
from .judge import cap_reached, duplicate_verdict, last_two_failed, prerequisites_met
from .phases import Phases
from .prompts import (
    answer_system,
    answer_user,
    arguments_correction,
    compact_steps,
    conductor_system,
    conductor_user,
    worker_system,
)
from .scribe import RECENT_KEEP, fold_memory
from .worker import (
    Arguments,
    Malformed,
    Missing,
    context_steps,
    request_arguments,
    validate_arguments,
)

__all__ = ["DEVICE_FAILED", "REASONS", "run_turn"]

REASONS = (
    "model-unavailable",
    "too-many-steps",
    "repeated-tool-call",
    "empty-answer",
    "answer-invalid",
    "plan-invalid",
    "conductor-asked",
    "tool-args-invalid",
    "tool-error",
    "guardrail",
    "context-budget",
    "tool-prerequisite-missing",
    "model-error",
)
"""Every escalation reason code (BEHAVIOR §2.8; ``no-model`` is not one, Decision D5)."""

DEVICE_FAILED = frozenset({"model-error", "model-unavailable", "context-budget"})
"""Reasons after which the device model is not called again in this turn (not even the scribe)."""

NO_BEST_EFFORT = DEVICE_FAILED | {"answer-invalid"}
PENDING_RESULT = "(tool execution did not complete)"
PROCESSING_RESULT = "(tool executed; output processing did not complete)"
UNSUMMARIZABLE = "completed (result could not be summarized)"
CONTENT_CANDIDATE_CHARS = 16384


async def run_turn(
    config: AgentConfig, session: Session, request: TurnRequest, generate: Generate
) -> RunResult:
    """Run one turn of ``request`` in ``session`` and return its result.

    Raises the original exception of a tool hook, memory store, confirm handler, fallback or
    event callback; ``trio.Cancelled`` when cancelled (after ``on_error``/``on_finish`` ran).
    """
    turn = Turn(config, session, request, generate)
    return await turn.run()


class Turn:
    """The state of one turn. Methods appear in the order a turn reaches them."""

    def __init__(
        self, config: AgentConfig, session: Session, request: TurnRequest, generate: Generate
    ) -> None:
        self.config = config
        self.session = session
        self.request = request
        self.generate = generate
        self.ask = request.ask
        self.instructions = config.instructions
        self.facts: dict[str, str] = {}
        self.output_schema = request.output_schema or config.output_schema
        self.steps: list[StepRecord] = []
        self.trace: list[Event] = []
        self.handled_by: HandledBy = "device"
        self.escalating = False
        self.original = MemoryState()
        self.view = MemoryState()
        self.hands_over = False
        self.extensions = ExtensionRunner(
            config.extensions,
            run_id=request.turn_id,
            conversation_id=request.conversation_id,
            context=request.context,
        )
        self.phases = Phases(self.extensions)
        self.window = 0
        self.budgets: ContentBudgets | None = None
        self.caller: ModelCaller | None = None

    # ------------------------------------------------------------------ the run

    async def run(self) -> RunResult:
        await self._prepare()
        try:
            result = await self._recall_and_loop()
        except StopRun as stop:
            result = self._result(stop.text, stopped=stop)
            await self._finish(RunOutcome("stopped", result=result))
            return self._with_diagnostics(result)
        except BaseException as exc:
            await self._fail(exc)
            raise
        if not self.hands_over:
            model_error = any(
                isinstance(event, EscalateEvent) and event.reason == "model-error"
                for event in self.trace
            )
            self.session.record_turn(model_error=model_error)
        await self._finish(RunOutcome("completed", result=result))
        return self._with_diagnostics(result)

    async def _prepare(self) -> None:
        """Resolve the window and budgets; failures here reject the run before any hook."""
        config = self.config
        self.hands_over = self.session.hands_over(
            has_fallback=config.fallback is not None, retry_after=config.session_retry_after
        )
        cancelled = trio.current_effective_deadline() == -float("inf")
        if self.hands_over or cancelled:  # never call the window function for a dead turn
            last = self.session.last_window
            default = config.window if isinstance(config.window, int) else DEFAULT_WINDOW
            window = last if last is not None else default
        else:
            source = config.window
            window = await maybe_await(source()) if callable(source) else source
        if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
            raise ConfigError(f"window must be a positive integer token count, got {window!r}.")
        self.session.last_window = self.window = window
        self.budgets = ContentBudgets.resolve(window, config.budgets)
        self.caller = ModelCaller(
            generate=self.generate,
            window=window,
            count_tokens=config.count_tokens,
            emit=self.emit,
            observe=self._observe_model_call if self.extensions.observes("on_model_call") else None,
            timeout=config.model_timeout,
        )

    async def _recall_and_loop(self) -> RunResult:
        await trio.lowlevel.checkpoint_if_cancelled()
        with origin("config"):
            facts = self.config.facts
            resolved = await maybe_await(facts()) if callable(facts) else facts
            self.facts = dict(resolved or {})
        self.ask, self.instructions, self.facts = await self.phases.before_run(
            self.ask, self.instructions, self.facts
        )
        await trio.lowlevel.checkpoint_if_cancelled()
        with origin("memory"):
            loaded = await self.session.memory.load()
        self.original = copy_state(loaded)
        self.view = await self.phases.after_recall(copy_state(loaded))
        self.emit(RecallEvent(summary=self.view.summary, recent=len(self.view.recent)))
        if self.hands_over:
            return await self._escalate("model-error", "session fallback")
        try:
            return await self._loop()
        except Exception as exc:
            return await self._escalate_failure(exc)

    async def _escalate_failure(self, exc: Exception) -> RunResult:
        """Turn a failure escaping the loop into an escalation, or let it reject the run (§2.7)."""
        if self.escalating:
            raise exc
        if isinstance(exc, BudgetError) and not self.extensions.strict_budgets:
            return await self._escalate("context-budget", str(exc))
        if origin_of(exc) != "model":
            raise exc
        classification = classify_model_error(exc)
        if classification == "guardrail":
            self.emit(EscalateEvent(reason="guardrail", error=named_message(exc)))
            return self._result("")
        return await self._escalate(classification, named_message(exc))

    # ------------------------------------------------------------------ the step loop

    async def _loop(self) -> RunResult:
        retried = False
        failed: InvalidPlan | None = None  # the malformed plan the retry corrects
        attempt = 0
        while True:
            await trio.lowlevel.checkpoint_if_cancelled()
            if cap_reached(self.steps, self.config.max_steps):
                return await self._escalate("too-many-steps")
            available, context_text = await self.phases.before_plan(
                list(self.config.tools.values()), self.ask, self.steps, attempt
            )
            plan = await self._plan(available, context_text, failed)
            if isinstance(plan, InvalidPlan):
                if retried:
                    return await self._escalate("plan-invalid")
                retried, failed, attempt = True, plan, attempt + 1
                continue
            plan = await self.phases.after_plan(plan, available, self.steps, attempt)
            retried, failed, attempt = False, None, 0
            self.emit(
                PlanEvent(
                    index=len(self.steps),
                    kind="tool" if plan.kind == "tool" else "answer",
                    tool=plan.tool,
                    why=plan.why,
                    brief=plan.brief,
                )
            )
            if plan.kind == "escalate":
                return await self._escalate("conductor-asked")
            if plan.kind == "answer":
                return await self._answer(plan)
            escalation = await self._tool_step(plan, {tool.name: tool for tool in available})
            if escalation is not None:
                return escalation

    async def _plan(
        self, available: list[Tool], context_text: str | None, failed: InvalidPlan | None
    ) -> Plan | InvalidPlan:
        if not available:
            return Plan(kind="answer", brief="reply")
        system = conductor_system(
            instructions=self.instructions,
            context_text=context_text,
            max_steps=self.config.max_steps,
            tools=available,
            facts=self.facts,
            examples=self.config.examples,
        )

        projected = await self._model_steps()

        def prompt(compact: bool) -> str:
            return conductor_user(
                ask=self.ask,
                summary=self.view.summary,
                recent=self.view.recent,
                steps=compact_steps(projected) if compact else projected,
                max_steps=self.config.max_steps,
                window=self.window,
                hint=failed.hint if failed is not None else None,
            )

        assert self.caller is not None
        return await request_plan(
            self.caller,
            system=system,
            prompt=prompt,
            tool_names=[t.name for t in available],
            require_tool=failed is not None and failed.needs_tool,
        )

    # ------------------------------------------------------------------ a tool step

    async def _tool_step(self, plan: Plan, available: Mapping[str, Tool]) -> RunResult | None:
        tool = available.get(plan.tool or "")
        if tool is None:
            return await self._escalate("plan-invalid")
        if not prerequisites_met(tool, self.steps):
            return await self._escalate("tool-prerequisite-missing")
        ctx = self._tool_context()
        started = trio.current_time()

        filled = await self._arguments(tool, plan.brief)
        if filled is None:
            return await self._escalate("tool-args-invalid")
        skip: tuple[str, str, str | None] | None = None  # (reason, result text, extension)
        if isinstance(filled, Missing):
            tool_input = filled.values
            skip = ("missing", filled.result, None)
        else:
            tool_input = filled.values
            decision = await self.phases.before_tool(tool, tool_input, plan.brief, self.steps)
            if isinstance(decision, Denied):
                text = (
                    f"denied by extension {decision.extension}: {clip(decision.reason, 160)}. "
                    "Do not retry unless asked."
                )
                skip = ("policy", text, decision.extension)
            else:
                tool_input = decision
        if skip is None and tool.resolve_input is not None:
            try:
                resolved = await maybe_await(tool.resolve_input(copy.deepcopy(tool_input), ctx))
                tool_input = validate_arguments(tool, resolved)
            except Exception:
                return await self._escalate("tool-args-invalid")
        await trio.lowlevel.checkpoint_if_cancelled()

        input_snapshot = try_snapshot(tool_input)
        earlier: StepRecord | None = None
        if skip is None:
            verdict, earlier = duplicate_verdict(self.steps, tool, input_snapshot)
            if verdict == "repeat":
                return await self._escalate("repeated-tool-call")
            if verdict == "execute":
                earlier = None
        if skip is None and earlier is None and tool.writes:
            decision_made = await self._confirm(tool, tool_input, plan.brief)
            if not decision_made.approved:
                reason = f": {decision_made.reason}" if decision_made.reason else ""
                skip = (
                    "confirmation",
                    f"declined by the user{reason}. Do not retry unless asked.",
                    None,
                )
        await trio.lowlevel.checkpoint_if_cancelled()

        step = StepRecord(
            index=len(self.steps),
            kind="tool",
            brief=plan.brief,
            tool=tool.name,
            input=input_snapshot,
            writes=tool.writes,
            output_mode=tool.output_mode,
            result=PENDING_RESULT,
            output=earlier.output if earlier is not None else None,
        )
        self.steps.append(step)
        outcome: dict[str, Any]
        if skip is not None:
            step.skipped, step.skip_reason, step.extension = True, skip[0], skip[2]  # type: ignore[assignment]
            text = skip[1]
            outcome = {"status": "skipped", "reason": skip[0], "extension": skip[2]}
        elif earlier is not None:
            step.cached = True
            text = (
                earlier.result or ""
                if tool.output_mode == "content"
                else f"same as step {earlier.index + 1}"
            )
            outcome = {"status": "cached", "from_step": earlier.index}
        else:
            text, outcome = await self._execute(tool, tool_input, ctx, step)
        text = await self.phases.after_tool(tool, input_snapshot, text, outcome, self.steps[:-1])
        text = await self._fit_result(tool, text)
        step.result = text
        elapsed = 0.0 if step.cached else round((trio.current_time() - started) * 1000, 3)
        self.emit(ToolEvent(tool=tool.name, input=input_snapshot, result=text, ms=elapsed))
        if last_two_failed(self.steps):
            return await self._escalate("tool-error", text)
        return None

    async def _arguments(self, tool: Tool, brief: str) -> Arguments | Missing | None:
        """The worker fills the tool's arguments; one retry for malformed replies (D1)."""
        if not tool.has_arguments:
            try:
                return Arguments(validate_arguments(tool, {}))
            except pydantic.ValidationError:
                return None
        system = worker_system(instructions=self.instructions, brief=brief)
        shown = context_steps(tool, await self._model_steps())
        notes: tuple[str, ...] = ()
        for _attempt in range(2):

            def prompt(_compact: bool, notes: tuple[str, ...] = notes) -> str:
                return answer_user(
                    ask=self.ask,
                    summary=self.view.summary,
                    recent=self.view.recent,
                    steps=shown,
                    window=self.window,
                    notes=notes,
                )

            assert self.caller is not None
            reply = await request_arguments(self.caller, tool, system=system, prompt=prompt)
            if not isinstance(reply, Malformed):
                return reply
            notes = (arguments_correction(reply.error),)
        return None

    async def _confirm(self, tool: Tool, tool_input: dict[str, Any], brief: str) -> Decision:
        """Ask before a write; no answer within ``confirm_timeout`` is a decline (D8)."""
        await trio.lowlevel.checkpoint_if_cancelled()
        request = ConfirmRequest(
            tool=tool.name,
            input=copy.deepcopy(try_snapshot(tool_input) or {}),
            brief=brief,
            conversation_id=self.request.conversation_id,
            turn_id=self.request.turn_id,
            call_id=f"call-{len(self.steps)}",
        )
        handler = self.request.confirm or self.config.confirm
        timeout = self.config.confirm_timeout
        decision = Decision(approved=False, reason="no answer")
        with trio.move_on_after(timeout if timeout is not None else float("inf")):
            with origin("confirm"):
                if handler is None:
                    raw: Any = not tool.requires_confirmation
                else:
                    raw = await maybe_await(handler(request))
                decision = _decision(raw)
        self.emit(ConfirmEvent(tool=tool.name, approved=decision.approved, reason=decision.reason))
        return decision

    async def _execute(
        self, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext, step: StepRecord
    ) -> tuple[str, dict[str, Any]]:
        try:
            output = await self._run_tool(tool, tool_input, ctx)
        except Exception as exc:
            step.failed = True
            message = message_of(exc)
            text = f"error: {clip(message, 160)}. Try different arguments or another tool."
            return text, {"status": "failed", "error": message}
        step.output = try_snapshot(output)
        step.result = PROCESSING_RESULT
        await trio.lowlevel.checkpoint_if_cancelled()
        return await self._format(tool, output), {"status": "executed", "output": step.output}

    async def _run_tool(self, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        """Run the tool on a copy of its input, within ``tool_timeout`` (a hang fails the step).

        A sync tool runs in a thread that Trio cannot interrupt: it stops at the deadline only
        if it calls ``ctx.check_cancelled()``; otherwise the step waits for it to return.
        """
        timeout = self.config.tool_timeout
        try:
            with trio.fail_after(timeout if timeout is not None else math.inf):
                return await tool.run(copy.deepcopy(tool_input), ctx)
        except trio.TooSlowError:
            raise TimeoutError(f"{tool.name} did not finish within {timeout:g} s") from None

    async def _format(self, tool: Tool, output: Any) -> str:
        """What the model sees of an output: ``to_model_output`` or the structural summary."""
        try:
            if tool.to_model_output is not None:
                text = await maybe_await(tool.to_model_output(output))
                if not isinstance(text, str):
                    raise TypeError(f"to_model_output returned {type(text).__name__}, not str")
                return text
            if tool.output_mode == "content":
                if isinstance(output, str):
                    return output
                return summarize_tool_result(output, CONTENT_CANDIDATE_CHARS)
            return summarize_tool_result(output)
        except Exception:
            return UNSUMMARIZABLE

    async def _fit_result(self, tool: Tool, text: str) -> str:
        if tool.output_mode != "content":
            return clip(text, RESULT_CHARS)
        assert self.budgets is not None
        return await fit_excerpt(text, self.budgets.tool_result_tokens, self.config.count_tokens)

    def _tool_context(self) -> ToolContext:
        assert self.budgets is not None
        return ToolContext(
            conversation_id=self.request.conversation_id,
            turn_id=self.request.turn_id,
            context=self.request.context,
            steps=copy.deepcopy(self.steps),
            recent=copy.deepcopy(self.view.recent),
            result_budget=ResultBudget(
                max_tokens=self.budgets.tool_result_tokens, count_tokens=self.config.count_tokens
            ),
        )

    async def _model_steps(self) -> list[StepRecord]:
        """Steps as prompts show them: older content excerpts over the aggregate budget omitted.

        Walks newest to oldest, so the latest excerpts stay; a smaller older excerpt can still
        fit after a larger one was left out. The run's own records keep every excerpt.
        """
        assert self.budgets is not None
        remaining = self.budgets.retrieved_context_tokens
        projected = list(self.steps)
        for position in range(len(projected) - 1, -1, -1):
            step = projected[position]
            if step.output_mode != "content" or not step.result:
                continue
            cost = await count_text(self.config.count_tokens, step.result)
            if cost <= remaining:
                remaining -= cost
            else:
                projected[position] = msgspec.structs.replace(step, result=EXCERPT_OMITTED)
        return projected

    # ------------------------------------------------------------------ answers

    async def _answer(self, plan: Plan) -> RunResult:
        try:
            text, output = await self._compose(best_effort=False)
        except AnswerInvalid:
            return await self._escalate("answer-invalid")
        if not text.strip():
            return await self._escalate("empty-answer")
        return await self._finish_answer(text, brief=plan.brief, output=output)

    async def _compose(self, *, best_effort: bool) -> tuple[str, Any]:
        system = answer_system(
            instructions=self.instructions,
            structured=self.output_schema is not None,
            best_effort=best_effort,
        )

        projected = await self._model_steps()

        def prompt(notes: tuple[str, ...], compact: bool) -> str:
            return answer_user(
                ask=self.ask,
                summary=self.view.summary,
                recent=self.view.recent,
                steps=compact_steps(projected) if compact else projected,
                window=self.window,
                notes=notes,
            )

        assert self.caller is not None
        return await compose_answer(
            self.caller,
            system=system,
            prompt=prompt,
            output_schema=self.output_schema,
            nudge_when_empty=not best_effort,
        )

    async def _finish_answer(
        self,
        text: str,
        *,
        brief: str | None = None,
        output: Any = None,
        persist: bool = True,
        best_effort: bool = False,
        device_failed: bool = False,
    ) -> RunResult:
        await trio.lowlevel.checkpoint_if_cancelled()
        if text.strip():
            text = await self.phases.after_answer(text, self.handled_by, best_effort, self.steps)
        if brief is not None:
            self.steps.append(
                StepRecord(index=len(self.steps), kind="answer", brief=brief, text=text)
            )
        if text:
            self.emit(AnswerEvent(text=text))
        if persist:
            await self._remember(text, best_effort=best_effort, device_failed=device_failed)
        return self._result(text, output=output, best_effort=best_effort)

    async def _remember(self, text: str, *, best_effort: bool, device_failed: bool) -> None:
        exchange = Exchange(
            ask=self.ask,
            answer=text,
            at=time.time(),
            best_effort=best_effort,
            steps=copy.deepcopy(self.steps),
        )
        await trio.lowlevel.checkpoint_if_cancelled()
        assert self.caller is not None
        candidate = await fold_memory(
            self.caller,
            self.original,
            exchange,
            instructions=self.instructions,
            device_failed=device_failed,
            emit=self.emit,
        )
        kept = await self.phases.before_remember(candidate, exchange)
        if kept is None:
            return
        kept.recent = kept.recent[-RECENT_KEEP:]
        kept.summary = clip_tokens(kept.summary, self.window // 8)
        await trio.lowlevel.checkpoint_if_cancelled()
        try:
            await self.session.memory.save(copy_state(kept))
        except Exception as exc:
            self.emit(MemoryErrorEvent(error=message_of(exc)))
            return
        self.emit(RememberEvent(summary=kept.summary))

    # ------------------------------------------------------------------ escalation

    async def _escalate(self, reason: str, error: str | None = None) -> RunResult:
        """Hand the turn over: to the fallback when there is one, else a best-effort answer."""
        self.escalating = True
        self.emit(EscalateEvent(reason=reason, error=error))
        fallback = self.config.fallback
        if fallback is None:
            if reason in NO_BEST_EFFORT:
                return self._result("")
            text, output = await self._best_effort()
            return await self._finish_answer(
                text, output=output, persist=bool(text.strip()), best_effort=True
            )
        request = FallbackRequest(
            ask=self.ask,
            summary=self.view.summary,
            recent=copy.deepcopy(self.view.recent),
            steps=copy.deepcopy(self.steps),
            reason=reason,
            error=error,
            conversation_id=self.request.conversation_id,
        )
        request = await self.phases.before_fallback(request)
        await trio.lowlevel.checkpoint_if_cancelled()
        self.handled_by = "cloud"
        with origin("fallback"):
            reply = await maybe_await(fallback(request))
            text = _fallback_text(reply)
        return await self._finish_answer(text, device_failed=reason in DEVICE_FAILED)

    async def _best_effort(self) -> tuple[str, Any]:
        try:
            return await self._compose(best_effort=True)
        except AnswerInvalid:
            self.emit(EscalateEvent(reason="answer-invalid"))
        except BudgetError:
            if self.extensions.strict_budgets:
                raise
        except Exception as exc:
            if origin_of(exc) != "model":
                raise
            if classify_model_error(exc) == "guardrail":
                self.emit(EscalateEvent(reason="guardrail", error=named_message(exc)))
        return "", None

    # ------------------------------------------------------------------ results and outcomes

    def emit(self, event: Event) -> None:
        """Record an event and hand it to the callbacks; a raising callback rejects the run."""
        self.trace.append(event)
        with origin("event"):
            if self.config.on_event is not None:
                self.config.on_event(event)
            if self.request.on_event is not None:
                self.request.on_event(event)

    def _result(
        self,
        text: str,
        *,
        output: Any = None,
        best_effort: bool = False,
        stopped: StopRun | None = None,
    ) -> RunResult:
        usage = self.caller.usage if self.caller is not None else None
        return RunResult(
            text=text,
            handled_by=self.handled_by,
            steps=self.steps,
            output=output if self.handled_by == "device" else None,
            best_effort=best_effort,
            stopped=(
                {"extension": stopped.extension, "phase": stopped.phase, "reason": stopped.reason}
                if stopped is not None
                else None
            ),
            trace=self.trace,
            conversation_id=self.request.conversation_id,
            turn_id=self.request.turn_id,
            model_calls=usage.calls if usage else 0,
            input_tokens=usage.input_tokens if usage else 0,
            output_tokens=usage.output_tokens if usage else 0,
            queue_ms=round(usage.queue_ms, 3) if usage else 0.0,
        )

    def _with_diagnostics(self, result: RunResult) -> RunResult:
        result.diagnostics = list(self.extensions.diagnostics)
        return result

    async def _fail(self, exc: BaseException) -> None:
        """Let ``on_error`` then ``on_finish`` observe a failed or cancelled run."""
        aborted = isinstance(exc, trio.Cancelled)
        if aborted:
            where: Origin = "harness"
        elif isinstance(exc, StopRun):  # pragma: no cover - handled by run()
            return
        else:
            where = _origin_for(exc)
        outcome = RunOutcome(
            "aborted" if aborted else "error",
            error=exc,
            origin=where,
            steps=self.steps,
            trace=self.trace,
        )
        with trio.CancelScope(shield=aborted) as scope:
            if aborted:
                scope.deadline = trio.current_time() + OBSERVER_SECONDS
            await self.extensions.observe(
                "on_error",
                {"error": exc, "origin": where, "steps": self.steps, "trace": self.trace},
            )
            await self._finish(outcome)

    async def _observe_model_call(self, call: ModelCall) -> None:
        await self.extensions.observe(
            "on_model_call",
            {
                "label": call.label,
                "ms": call.ms,
                "queue_ms": call.queue_ms,
                "input_tokens": call.input_tokens,
                "output_tokens": call.output_tokens,
                "error": call.error,
            },
        )

    async def _finish(self, outcome: RunOutcome) -> None:
        with trio.move_on_after(OBSERVER_SECONDS):
            await self.extensions.observe("on_finish", {"outcome": outcome})


# ---------------------------------------------------------------------- helpers


def _decision(raw: Any) -> Decision:
    if isinstance(raw, Decision):
        return raw
    if isinstance(raw, bool):
        return Decision(approved=raw)
    if isinstance(raw, dict) and isinstance(raw.get("approved"), bool):
        reason = raw.get("reason")
        return Decision(approved=raw["approved"], reason=str(reason) if reason else None)
    raise GoliathError(
        f"A confirm handler must return True/False or Decision(approved, reason); got {raw!r}."
    )


def _fallback_text(reply: Any) -> str:
    if isinstance(reply, str):
        return reply
    if isinstance(reply, dict) and isinstance(reply.get("text"), str):
        return str(reply["text"])
    raise GoliathError(
        f"A fallback must return the cloud's answer as a str (or {{'text': str}}); got {reply!r}."
    )


def _origin_for(exc: BaseException) -> Origin:
    if isinstance(exc, ExtensionError):
        return "extension"
    if isinstance(exc, BudgetError):
        return "budget"
    found = origin_of(exc)
    return found if found is not None else "harness"
