"""The scribe: folds exchanges that leave the recent window into a rolling brief.

Most turns cost no scribe call: the last three exchanges are kept verbatim, and only the one
pushed out by a fourth is folded, in one small call, into a brief of at most 60 words with fixed
slots (Goal, Done, Decisions, Pending, Next). After the device itself failed, nothing is folded:
the failing model is not called again, and the evicted exchange is simply dropped.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from .._origin import origin_of
from .._util import message_of
from ..budget import brief_allowance, clip_tokens
from ..events import Event, MemoryErrorEvent
from ..records import RECENT_KEEP, Exchange, MemoryState
from .generation import ModelCaller
from .prompts import scribe_system, scribe_user

__all__ = ["RECENT_KEEP", "fold_memory"]


async def fold_memory(
    caller: ModelCaller,
    original: MemoryState,
    exchange: Exchange,
    *,
    instructions: str,
    device_failed: bool,
    emit: Callable[[Event], None],
) -> MemoryState:
    """The memory to save after ``exchange``: recent trimmed to three, evictions folded."""
    allowance = brief_allowance(caller.window)
    recent = [*msgspec.structs.replace(original).recent, exchange]
    summary = clip_tokens(original.summary, allowance)
    folding = not device_failed
    system = scribe_system(instructions)
    while len(recent) > RECENT_KEEP:
        evicted = recent.pop(0)
        if not folding:
            continue
        try:
            prompt = scribe_user(summary=summary, exchange=evicted)
            generation = await caller.call("scribe", system, _fixed(prompt), compactable=False)
        except Exception as exc:
            if origin_of(exc) not in ("model", "budget"):
                raise
            emit(MemoryErrorEvent(error=message_of(exc)))
            folding = False
            continue
        brief = generation.text.strip()
        if brief:
            summary = clip_tokens(brief, allowance)
    return MemoryState(summary=summary, recent=recent)


def _fixed(text: str) -> Callable[[bool], str]:
    """A prompt that compaction cannot change (the scribe's is never compacted)."""
    return lambda _compact: text
