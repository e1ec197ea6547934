"""Trace events: what a turn reports as it goes.

Each event is a frozen msgspec Struct tagged by ``type``; the tag is also readable as the
``type`` attribute, so ``event.type == "plan"`` and the JSON form ``{"type": "plan", ...}``
agree. Events are appended to ``RunResult.trace`` and handed to ``on_event`` callbacks;
transports send them as they happen (Server-Sent Events, MessagePack frames).
"""

from collections.abc import Callable
from typing import Any, Literal

import msgspec

__all__ = [
    "REASONS",
    "AnswerEvent",
    "BudgetEvent",
    "CheckEvent",
    "ConfirmEvent",
    "EscalateEvent",
    "Event",
    "EventBase",
    "EventCallback",
    "MemoryErrorEvent",
    "PlanEvent",
    "RecallEvent",
    "RememberEvent",
    "ToolEvent",
    "event_types",
]


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
"""Every escalation reason code (``no-model`` is not one: design.md, D5)."""


class EventBase(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    """Base of every trace event; ``type`` is the event's tag."""

    @property
    def type(self) -> str:
        tag = self.__struct_config__.tag
        assert isinstance(tag, str)
        return tag


class RecallEvent(EventBase, tag="recall", frozen=True):
    """Memory was loaded: the rolling brief and how many recent exchanges came with it."""

    summary: str
    recent: int


class PlanEvent(EventBase, tag="plan", frozen=True):
    """The conductor chose the next step (an ``escalate`` plan is reported as ``answer``)."""

    index: int
    kind: Literal["tool", "answer"]
    brief: str
    tool: str | None = None


class ConfirmEvent(EventBase, tag="confirm", frozen=True):
    """A write was approved or declined; ``ms`` is how long the answer took (the person's wait)."""

    tool: str
    approved: bool
    reason: str | None = None
    ms: float = 0.0


class ToolEvent(EventBase, tag="tool", frozen=True):
    """A tool step finished (executed, failed, cached or skipped); ``result`` is what the model sees.

    ``ms`` times the tool's own run (0 when it did not run); filling its arguments and waiting
    for a confirmation are not in it (the ``confirm`` event reports that wait).
    """

    tool: str
    input: Any
    result: str
    ms: float


class AnswerEvent(EventBase, tag="answer", frozen=True):
    """The turn's final non-empty text (device, cloud or best-effort)."""

    text: str


class EscalateEvent(EventBase, tag="escalate", frozen=True):
    """The device could not finish: ``reason`` says why (one of ``goliath.events.REASONS``)."""

    reason: str
    error: str | None = None


class RememberEvent(EventBase, tag="remember", frozen=True):
    """Memory was saved; ``summary`` is the new rolling brief."""

    summary: str


class MemoryErrorEvent(EventBase, tag="memory_error", frozen=True):
    """The scribe or the memory store failed; the answer still stands."""

    error: str


class BudgetEvent(EventBase, tag="budget", frozen=True):
    """A model call's prompt was counted against its stage's input limit.

    Emitted once per attempted call, just before the model starts on it; ``queue_ms`` is how
    long the call waited for the model behind other conversations (0 when it did not wait).
    """

    label: str
    tokens: int
    limit: int
    source: Literal["tokenizer", "estimate"] = "estimate"
    queue_ms: float = 0.0


class CheckEvent(EventBase, tag="check", frozen=True):
    """One of the turn's checks decided: the hand-off (``passed``: kept on the device), the
    world check (``passed``: the question goes to the functions, not answered alone), the
    write intent, the condition or the harness's comparison of a found number with the
    ask's (``passed``: the write goes ahead), the answer check (``passed: False``: the
    answer named nothing found and was sent back once), the verb check (``passed: False``:
    a planned write gave way to its sibling whose verb is the change the ask says), the
    hit the ask describes (``passed: True``: the harness opened it, no arguments call), or a
    stray read (``passed: False``: the first plan opened with a read the ask never mentions
    and starts at the call it names), or the pick check (``passed: False``: the first
    plan's function gave way to the one the ask's words name, which won a choice between
    the two in both orders), or an id no result showed (``passed: False``: after a read, the
    arguments gave an id that no result held and were filled once more).

    ``margin`` is the log-probability gap the verdict was read from (the cloud's, or "no"'s,
    lead), ``None`` where the bridge reports no log-probabilities.
    """

    check: Literal[
        "handoff",
        "world",
        "intent",
        "condition",
        "comparison",
        "state",
        "day",
        "answer",
        "verb",
        "hit",
        "stray",
        "pick",
        "id",
    ]
    passed: bool
    margin: float | None = None


Event = (
    RecallEvent
    | PlanEvent
    | ConfirmEvent
    | ToolEvent
    | AnswerEvent
    | EscalateEvent
    | RememberEvent
    | MemoryErrorEvent
    | BudgetEvent
    | CheckEvent
)

EventCallback = Callable[[Event], Any]
"""Receives each trace event as the turn emits it (an agent's or a client's ``on_event``)."""


def event_types() -> tuple[str, ...]:
    """Every event tag, in the order a turn usually emits them."""
    return (
        "recall",
        "plan",
        "confirm",
        "tool",
        "answer",
        "escalate",
        "remember",
        "memory_error",
        "budget",
        "check",
    )
