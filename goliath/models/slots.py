"""Slot affinity: which server slot a model call should use, so a conversation stays on one.

A server with N slots (llama.cpp's ``--parallel N``) keeps one KV cache per slot, and with
``cache_prompt`` it reuses the longest prefix the slot's previous prompt shares with the next.
Sending a conversation's calls to the slot that served it last keeps that slot's cache its own.
The model worker says which conversation a call serves through :data:`CONVERSATION` (a context
variable set in the task that runs the call), so the ``Model`` protocol stays one method.

A pinned slot that is busy (another conversation took it meanwhile) is never waited for: the
call takes the free slot used longest ago and the conversation is pinned there instead, so
pinning never costs throughput. Pins are kept only for the slots' current owners (at most N).
"""

from __future__ import annotations

import contextvars
import itertools

__all__ = ["CONVERSATION", "SlotPins"]

CONVERSATION: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "goliath_model_conversation", default=None
)
"""The conversation the running model call serves (``None`` outside the model worker)."""


class SlotPins:
    """Hands out slot numbers ``0..slots-1``: a conversation's own slot when it is free.

    Not thread-safe; used from the Trio thread only (one bridge instance per event loop).
    """

    def __init__(self, slots: int) -> None:
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise ValueError(f"slots must be an int ≥ 1, got {slots!r}")
        self.slots = slots
        self._owner: list[str | None] = [None] * slots
        self._pin: dict[str, int] = {}
        self._busy = [0] * slots
        self._last_used = [0] * slots
        self._clock = itertools.count(1)

    def acquire(self, conversation: str | None) -> int:
        """The slot for the next call of ``conversation`` (None: any free slot, unpinned).

        With every slot busy (more calls in flight than slots) the least busy slot is shared:
        the server queues the call on it.
        """
        slot = self._pin.get(conversation) if conversation is not None else None
        if slot is None or self._busy[slot]:
            free = [index for index in range(self.slots) if not self._busy[index]]
            candidates = free or range(self.slots)
            slot = min(candidates, key=lambda index: (self._busy[index], self._last_used[index]))
            if conversation is not None:
                previous = self._owner[slot]
                if previous is not None and previous != conversation:
                    self._pin.pop(previous, None)
                old = self._pin.get(conversation)
                if old is not None and old != slot and self._owner[old] == conversation:
                    self._owner[old] = None
                self._owner[slot] = conversation
                self._pin[conversation] = slot
        self._busy[slot] += 1
        return slot

    def release(self, slot: int) -> None:
        """The call on ``slot`` finished (or failed, or was cancelled)."""
        self._busy[slot] -= 1
        self._last_used[slot] = next(self._clock)

    def pinned(self, conversation: str) -> int | None:
        """The slot ``conversation`` is pinned to, if any (for tests and statistics)."""
        return self._pin.get(conversation)
