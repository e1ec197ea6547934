"""What a turn leaves in memory: the exchange after an answer, or what ran before a cancel.

Apart from the story in run.py because it is bookkeeping, not a stage: the scribe folds an
evicted exchange into the brief, ``before_remember`` hooks may change or skip the save, and a
failed save is an event, never a failed turn.
"""

from __future__ import annotations

import copy
import time

import trio

from .._util import message_of
from ..budget import clip_tokens
from ..events import MemoryErrorEvent, RememberEvent
from ..memory.codec import appended, copy_state
from ..records import Exchange
from .scribe import RECENT_KEEP, fold_memory
from .state import TurnState

__all__ = ["remember", "remember_what_ran"]


async def remember(turn: TurnState, text: str, *, best_effort: bool, device_failed: bool) -> None:
    """Save the finished exchange (the scribe folds what falls out of the recent three)."""
    exchange = Exchange(
        ask=turn.ask,
        answer=text,
        at=time.time(),
        best_effort=best_effort,
        steps=copy.deepcopy(turn.steps),
    )
    await trio.lowlevel.checkpoint_if_cancelled()
    candidate = await fold_memory(
        turn.caller,
        turn.original,
        exchange,
        instructions=turn.instructions,
        device_failed=device_failed,
        emit=turn.emit,
    )
    kept = await turn.phases.before_remember(candidate, exchange)
    if kept is None:
        return
    kept.recent = kept.recent[-RECENT_KEEP:]
    kept.summary = clip_tokens(kept.summary, turn.window // 8)
    await trio.lowlevel.checkpoint_if_cancelled()
    try:
        await turn.session.memory.save(copy_state(kept))
    except Exception as exc:
        turn.emit(MemoryErrorEvent(error=message_of(exc)))
        return
    turn.remembered = True
    turn.emit(RememberEvent(summary=kept.summary))


async def remember_what_ran(turn: TurnState) -> None:
    """A cancelled turn that wrote something leaves that in memory (design.md, D6).

    Nothing half-done is saved — but a write that ran (or was cut off while it ran) is not
    half-done: the next turn, and the person, must know of it. The exchange is marked
    interrupted and carries the steps; the scribe is not called (no model call while
    cancelling) and ``before_remember`` hooks do not run. Nothing is trimmed unsummarised: the
    next turn's scribe folds what falls out of the recent window.
    """
    progress = turn.request.progress
    if turn.remembered or not turn.steps or (progress is not None and progress.parked):
        return  # parked: the turn resumes from its checkpoint and remembers then
    tool_steps = [step for step in turn.steps if step.kind == "tool"]
    wrote = any(step.writes and not (step.skipped or step.cached) for step in tool_steps)
    if not wrote:
        return
    exchange = Exchange(
        ask=turn.ask,
        answer="",
        at=time.time(),
        best_effort=True,
        steps=copy.deepcopy(tool_steps),
        interrupted=True,
    )
    state = appended(copy_state(turn.original), exchange)  # the next turn's scribe folds
    try:
        await turn.session.memory.save(state)
    except Exception:
        return  # the turn is cancelled either way; its record keeps the steps
    turn.remembered = True
