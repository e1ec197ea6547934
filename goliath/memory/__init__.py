"""Conversation memory: a rolling brief and the last three exchanges.

A :class:`Memory` is anything with async ``load()`` and ``save(state)``. Goliath ships an
in-process one (the default, one per conversation), one over any key-value store, and a durable
SQLite one. Stores persist completed history only; a turn in flight lives in its actor.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..records import Exchange, MemoryState
from .inmemory import InMemory
from .keyvalue import KeyValueMemory, KeyValueStore
from .sqlite import SQLiteMemory

__all__ = [
    "Exchange",
    "InMemory",
    "KeyValueMemory",
    "KeyValueStore",
    "Memory",
    "MemoryState",
    "SQLiteMemory",
]


@runtime_checkable
class Memory(Protocol):
    """Where a conversation's memory lives between turns."""

    async def load(self) -> MemoryState: ...

    async def save(self, state: MemoryState) -> None: ...
