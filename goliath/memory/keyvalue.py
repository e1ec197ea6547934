"""Memory over any key-value store with async (or sync) ``get(key)`` and ``set(key, value)``."""

from __future__ import annotations

from typing import Any, Protocol

from .._util import maybe_await
from ..records import MemoryState
from .codec import decode_state, encode_state

__all__ = ["DEFAULT_KEY", "KeyValueMemory", "KeyValueStore"]

DEFAULT_KEY = "goliath.memory"


class KeyValueStore(Protocol):
    def get(self, key: str) -> Any: ...

    def set(self, key: str, value: str) -> Any: ...


class KeyValueMemory:
    """Stores the state as JSON text under ``key``; corrupt or malformed text reads as empty.

    Use a distinct key per conversation, e.g. ``lambda cid: KeyValueMemory(store, f"m:{cid}")``.
    """

    def __init__(self, store: KeyValueStore, key: str = DEFAULT_KEY) -> None:
        self.store = store
        self.key = key

    async def load(self) -> MemoryState:
        return decode_state(await maybe_await(self.store.get(self.key)))

    async def save(self, state: MemoryState) -> None:
        await maybe_await(self.store.set(self.key, encode_state(state)))
