"""What one turn knows as it goes, so the story (``run.py``) and its stages share one record.

A :class:`TurnState` is built whole once the turn's window is known: its budgets and its model
caller exist from the start, so no stage ever finds them missing.
"""

from __future__ import annotations

from typing import Any

import msgspec
import trio

from .._origin import origin
from .._util import maybe_await
from ..budget import DEFAULT_WINDOW, EXCERPT_OMITTED, ContentBudgets, count_text
from ..config import AgentConfig, TurnRequest
from ..errors import ConfigError
from ..events import Event
from ..records import HandledBy, MemoryState, RunResult, StepRecord
from ..session import Session
from .generation import ModelCall, ModelCaller, ModelPort
from .hooks import ExtensionRunner, StopRun
from .phases import Phases

__all__ = ["TurnState", "resolve_window"]


class TurnState:
    """The data of one turn: its request, what it recalled, its steps and trace so far."""

    def __init__(
        self,
        config: AgentConfig,
        session: Session,
        request: TurnRequest,
        generate: ModelPort,
        *,
        window: int,
        hands_over: bool,
    ) -> None:
        self.config = config
        self.session = session
        self.request = request
        self.ask = request.ask
        self.instructions = config.instructions
        self.facts: dict[str, str] = {}
        self.output_schema = request.output_schema or config.output_schema
        self.steps: list[StepRecord] = []
        self.full_outputs: dict[int, Any] = {}
        """Raw outputs the record left out for size (``raw_output_bytes``), by step index: the
        turn's own rules still decide on them (:meth:`seen_steps`); never recorded."""
        self.planned: list[str] | None = None
        """The first plan's calls still to come (its reads run as planned; a write is offered
        alone, or the answer); ``None`` while the turn is planned one step at a time (a
        first plan of ``{"call"}`` alone, as scripts may send)."""
        self.hand_off_checked = False
        """The hand-off check ran (a first plan retried after a malformed reply asks it once)."""
        self.world_checked = False
        """The world check ran (once a turn, like the hand-off check)."""
        self.looked_up: set[str] = set()
        """Functions that already got a look-up for an id nothing had shown, or the read their
        condition names (``condition.condition_look``): once each."""
        self.lookup: Any = None
        """The look-up the next plan must make (a ``lookup.LookUp``), if any."""
        self.value_errors: set[int] = set()
        """Steps whose read failed on the form of a value (a ``ValueError`` or ``TypeError``)."""
        self.near_values: dict[int, dict[str, str]] = {}
        """For a step that failed on a near miss, the values its error names in place of the
        call's (``repair.near_match_values``): its repair takes them with no model call."""
        self.widened: set[str] = set()
        """Reads that already ran once more without the filters nobody named (once each)."""
        self.requeried: set[str] = set()
        """Searches that already ran once more with another word of the ask (once each)."""
        self.repaired: set[str] = set()
        """Reads that already got their one repair after such a failure (once each)."""
        self.repairing: str | None = None
        """The failed step's result while its repair's arguments are asked, else ``None``."""
        self.not_found: dict[int, tuple[str, ...]] = {}
        """Writes that failed "not found" (a ``LookupError``), by step: the parameters its error
        quotes, for the look-up that recovers it (after the repair, for a near miss)."""
        self.recovered: set[str] = set()
        """Writes that already got their look-up after such a failure (once each)."""
        self.recovering: tuple[str, Any] | None = None
        """The write waiting for its look-up to finish, and the failed call's input."""
        self.given: dict[str, dict[str, Any]] = {}
        """Arguments the harness fills itself for the next call of a function (the hit the ask
        names, for the read that opens it), taken once instead of an arguments call."""
        self.owed = False
        """The turn planned the write its check-then-act ask asks for after the planner chose to
        answer (``run._owed_write``, once a turn): that write runs only where the harness
        decides the condition itself."""
        self.notes: list[str] = []
        """What the answer must be told that no step shows plainly (a write the harness
        withheld; which rows fall in the part of the day the ask names)."""
        self.trace: list[Event] = []
        self.handled_by: HandledBy = "device"
        self.escalating = False
        self.remembered = False
        """This turn's exchange is in memory (so a late cancel does not save it twice)."""
        self.original = MemoryState()
        """Memory as loaded: the scribe folds this turn's exchange into it."""
        self.view = MemoryState()
        """Memory as prompts show it (after ``after_recall`` hooks)."""
        self.hands_over = hands_over
        """The session's breaker is open: the turn goes straight to the fallback."""
        self.extensions = ExtensionRunner(
            config.extensions,
            run_id=request.turn_id,
            conversation_id=request.conversation_id,
            context=request.context,
        )
        self.phases = Phases(self.extensions)
        self.window = window
        self.budgets = ContentBudgets.resolve(window, config.budgets)
        self.caller = ModelCaller(
            generate=generate,
            window=window,
            count_tokens=config.count_tokens,
            emit=self.emit,
            observe=self._observe_model_call if self.extensions.observes("on_model_call") else None,
            timeout=config.model_timeout,
            on_text=request.on_token,
        )

    def emit(self, event: Event) -> None:
        """Record an event and hand it to the callbacks; a raising callback rejects the run."""
        self.trace.append(event)
        with origin("event"):
            if self.config.on_event is not None:
                self.config.on_event(event)
            if self.request.on_event is not None:
                self.request.on_event(event)

    def seen_texts(self) -> list[str]:
        """Everything the turn has seen besides its own steps: the ask, the summary, the recent
        exchanges (and their steps' results) and the facts."""
        texts = [self.ask, self.view.summary, *self.facts.values()]
        for exchange in self.view.recent:
            texts += [exchange.ask, exchange.answer]
            texts += [step.result or "" for step in exchange.steps]
        return texts

    def seen_steps(self) -> list[StepRecord]:
        """The steps as the turn's rules read them: with every raw output the record left out
        for size put back. A search of a 2,000-email inbox (~240 KB) is over the record's cap,
        and with no output the rules saw no hits to read and answered from the first lines
        (docs/design.md, "The rules see what the tool returned"). Copies: the record keeps
        the cap."""
        if not self.full_outputs:
            return self.steps
        return [
            msgspec.structs.replace(step, output=self.full_outputs[step.index])
            if step.index in self.full_outputs
            else step
            for step in self.steps
        ]

    async def model_steps(self) -> list[StepRecord]:
        """Steps as prompts show them: older content excerpts over the aggregate budget omitted.

        Walks newest to oldest, so the latest excerpts stay; a smaller older excerpt can still
        fit after a larger one was left out. The run's own records keep every excerpt.
        """
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

    def result(
        self,
        text: str,
        *,
        output: Any = None,
        best_effort: bool = False,
        stopped: StopRun | None = None,
    ) -> RunResult:
        """The turn's result as it stands, with what the model did so far."""
        usage = self.caller.usage
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
            model_calls=usage.calls,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            queue_ms=round(usage.queue_ms, 3),
        )

    async def _observe_model_call(self, call: ModelCall) -> None:
        await self.extensions.observe(
            "on_model_call",
            {
                "label": call.label,
                "ms": call.ms,
                "max_output_tokens": call.max_output_tokens,
                "queue_ms": call.queue_ms,
                "input_tokens": call.input_tokens,
                "output_tokens": call.output_tokens,
                "error": call.error,
            },
        )


async def resolve_window(config: AgentConfig, session: Session, hands_over: bool) -> int:
    """The turn's token window; a dead turn never calls the window function."""
    cancelled = trio.current_effective_deadline() == -float("inf")
    if hands_over or cancelled:
        last = session.last_window
        default = config.window if isinstance(config.window, int) else DEFAULT_WINDOW
        window = last if last is not None else default
    else:
        source = config.window
        window = await maybe_await(source()) if callable(source) else source
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise ConfigError(f"window must be a positive integer token count, got {window!r}.")
    session.last_window = window
    return window
