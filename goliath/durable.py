"""What a turn leaves behind when it pauses or is cut off, so it can resume or be told truthfully.

A turn that waits for a person's approval of a write is *paused*: its :class:`Checkpoint` (the
steps so far and the :class:`PendingCall`) is enough to resume it at that very step after a
crash, a restart or a fail-over to another node. An approval is bound to the call's
*fingerprint* (:func:`call_fingerprint`: the turn, the call, the tool and its resolved
arguments), so a replayed or stale approval can never run a different write.

The turn reports its progress through a :class:`TurnProgress` port (the runtime's ticket): a
checkpoint before it asks, a write-ahead mark before a write runs, the steps once it ran. A write
marked as running but never reported done was cut off mid-run: its outcome is unknown, and it
is reported as such — never run again on Goliath's own initiative.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

import msgspec

from .records import StepRecord

__all__ = [
    "OUTCOME_UNKNOWN_RESULT",
    "PENDING_RESULT",
    "Checkpoint",
    "PendingCall",
    "TurnProgress",
    "call_fingerprint",
    "idempotency_key",
    "mark_outcome_unknown",
    "payload_fingerprint",
]

OUTCOME_UNKNOWN_RESULT = (
    "outcome unknown: the write was cut off while it ran; it may or may not have happened. "
    "Check before doing it again."
)
"""The result text of a write cut off mid-run (what the model and the person read)."""

PENDING_RESULT = "(tool execution did not complete)"
"""The result a tool step holds while its tool runs: a write still holding it when a turn is
cut off was running, so its outcome is unknown."""

_canonical = msgspec.json.Encoder(order="sorted")


class PendingCall(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A write waiting for approval, as stored: what a person is asked to decide.

    ``deadline`` is wall-clock time (seconds since the epoch) after which no answer is a
    decline (``confirm_timeout``, kept across restarts).
    """

    call_id: str
    tool: str
    input: dict[str, Any]
    brief: str
    fingerprint: str
    after_tool: str | None = None
    deadline: float | None = None


class Checkpoint(msgspec.Struct, kw_only=True):
    """A turn paused at a write: its steps so far and the call waiting for approval."""

    steps: list[StepRecord]
    pending: PendingCall
    planned: list[str] | None = None
    """The calls the first plan named after this one, still to come (the turn's ``planned``;
    ``None`` for a turn planned one step at a time)."""


class TurnProgress(Protocol):
    """Where a turn reports its progress (the runtime's ticket; ``None`` when embedded).

    ``executing`` is a write-ahead mark: if it raises (the store refused it, another node now
    owns the conversation), the write does not run. ``parked`` is true when the turn is being
    stopped only to be resumed from its checkpoint later (a restart): it then leaves nothing in
    memory, since the resumed turn will.
    """

    @property
    def parked(self) -> bool: ...

    async def paused(self, checkpoint: Checkpoint) -> None:
        """The turn is about to ask for approval of ``checkpoint.pending``."""
        ...

    async def executing(self, steps: list[StepRecord], call_id: str) -> None:
        """An approved write is about to run (its step is the last of ``steps``)."""
        ...

    async def executed(self, steps: list[StepRecord]) -> None:
        """A tool step finished (ran, failed, was skipped or served from cache)."""
        ...


def call_fingerprint(turn_id: str, call_id: str, tool: str, arguments: Any) -> str:
    """SHA-256 of the turn, the call, the tool and its resolved arguments (canonical JSON).

    An approval carries it; a call whose fingerprint differs is a different write.
    """
    data = _canonical.encode([turn_id, call_id, tool, arguments])
    return hashlib.sha256(data).hexdigest()


def idempotency_key(turn_id: str, call_id: str, fingerprint: str) -> str:
    """The key a write's tool receives (``ToolContext.idempotency_key``): the same for the same
    approved call across restarts and fail-over, different for any other write."""
    return f"goliath:{turn_id}:{call_id}:{fingerprint[:32]}"


def payload_fingerprint(ask: str, context: Any) -> str:
    """SHA-256 of a run's ask and context: a turn id names one request, never another."""
    try:
        data = _canonical.encode([ask, context])
    except (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError):
        data = _canonical.encode([ask, repr(context)])
    return hashlib.sha256(data).hexdigest()


def mark_outcome_unknown(step: StepRecord) -> None:
    """Mark a write step cut off while it ran: it may or may not have happened."""
    step.outcome_unknown = True
    step.failed = True
    step.result = OUTCOME_UNKNOWN_RESULT
