"""The default memory: a Python object per conversation, as long-lived as the agent."""

from __future__ import annotations

from ..records import MemoryState
from .codec import copy_state

__all__ = ["InMemory"]


class InMemory:
    """Keeps a copy of the state in the process; ``load`` and ``save`` copy, so nothing aliases."""

    def __init__(self, initial: MemoryState | None = None) -> None:
        self._state = copy_state(initial) if initial is not None else MemoryState()

    async def load(self) -> MemoryState:
        return copy_state(self._state)

    async def save(self, state: MemoryState) -> None:
        self._state = copy_state(state)

    def __repr__(self) -> str:
        return f"InMemory(summary={self._state.summary!r}, recent={len(self._state.recent)})"
