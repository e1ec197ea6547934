"""Durable state of a daemon: conversation memory and turn records (design.md, D10).

A store keeps what must survive a crash: every conversation's memory, and a record per turn
(status, the pending confirmation, the result). After a crash or restart, turns that were
queued, running or waiting for a confirmation are reported as ``interrupted`` — to a client that
asks by turn id, and in the conversation's own history — never lost silently and never run
twice. Two implementations: SQLite (embedded, one node) and PostgreSQL (a fleet, with fencing
tokens so a node that lost a shard cannot change it).
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import msgspec

from goliath.durable import Checkpoint
from goliath.memory.codec import appended
from goliath.records import ConfirmRequest, Exchange, MemoryState, RunResult, StepRecord

from .messages import ConfirmAsk, EventMessage, TicketStatus

__all__ = [
    "DEFAULT_MEMORY_KEY",
    "FINAL_STATES",
    "Approval",
    "Fence",
    "FencedError",
    "Store",
    "StoreMemory",
    "TurnRecord",
    "interrupted_exchange",
    "memory_key",
]

FINAL_STATES: frozenset[TicketStatus] = frozenset({"done", "cancelled", "failed", "interrupted"})
INTERRUPTED_ANSWER = ""


class FencedError(Exception):
    """A write was refused: this node no longer owns the conversation's shard (stale epoch)."""


class Approval(msgspec.Struct, frozen=True, kw_only=True):
    """A person's answer to one paused call, bound to the call's fingerprint (stored)."""

    call_id: str
    fingerprint: str
    approved: bool
    reason: str | None = None


class TurnRecord(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What the store knows of one turn. New fields get defaults (records outlive versions)."""

    turn_id: str
    conversation_id: str | None
    status: TicketStatus
    ask: str = ""
    result: RunResult | None = None
    error: str | None = None
    error_code: str | None = None
    pending: ConfirmRequest | None = None
    """The write the turn waits on (records of older versions hold its first four fields)."""
    node: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    context: Any = None
    """The run's application context (a JSON snapshot), for a turn that resumes."""
    payload: str = ""
    """The fingerprint of the ask and context: the same turn id with another ask is refused."""
    steps: list[StepRecord] = msgspec.field(default_factory=list)
    """What the turn did so far (written at each write, and at its end)."""
    checkpoint: Checkpoint | None = None
    """A turn paused at a write: enough to resume it at that step after a restart."""
    approval: Approval | None = None
    """The person's answer to the paused write, recorded before it was acted on."""
    executing: str | None = None
    """The call id of a write that was running: if the turn is cut off, its outcome is unknown."""
    events: list[EventMessage | ConfirmAsk] = msgspec.field(default_factory=list)
    """A remote turn's events and asks so far, in order (a client that comes back after a
    restart is shown them again, ``GET /v1/turns/{id}/events``); empty once it ended."""

    @property
    def resumable(self) -> bool:
        """Paused at a write when it was cut off: it can carry on from its checkpoint."""
        return self.status == "awaiting_confirmation" and self.checkpoint is not None

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATES


Fence = tuple[int, int]
"""``(shard, epoch)``: the ownership a write must still hold to be applied."""


class Store(Protocol):
    """Where a daemon keeps memory and turn records.

    ``fence`` arguments are ``None`` on a single node; in a fleet every write carries the
    shard's epoch the writer believes it holds, and a stale one raises :class:`FencedError`.
    """

    async def open(self) -> None: ...

    async def aclose(self) -> None: ...

    async def load_memory(self, key: str) -> MemoryState: ...

    async def save_memory(
        self, key: str, state: MemoryState, fence: Fence | None = None
    ) -> None: ...

    async def begin_turn(self, record: TurnRecord, fence: Fence | None = None) -> TurnRecord | None:
        """Insert a new record; return the existing one instead if the turn id is known."""
        ...

    async def update_turn(self, record: TurnRecord, fence: Fence | None = None) -> None: ...

    async def delete_turn(self, turn_id: str) -> None: ...

    async def get_turn(self, turn_id: str) -> TurnRecord | None: ...

    async def unfinished_turns(self, shard: int | None = None) -> list[TurnRecord]:
        """Turns not in a final state (all of them, or those of one shard)."""
        ...


DEFAULT_MEMORY_KEY = ""
"""The default conversation's memory row: blank, which no conversation id can be, so no
caller can ever name it (earlier versions kept it under ``default``, which the
conversation ``"default"`` shared; :data:`LEGACY_DEFAULT_KEY`)."""
LEGACY_DEFAULT_KEY = "default"
"""Where older versions kept the default conversation's memory; a store moves that row to
:data:`DEFAULT_MEMORY_KEY` once, when it first opens (:data:`KEYS_MIGRATION`)."""
KEYS_MIGRATION = "default-memory-key"
"""The name of that one-time move in the store's ``goliath_meta`` table."""


def memory_key(conversation_id: str | None) -> str:
    """The memory row of a conversation: its id, or :data:`DEFAULT_MEMORY_KEY` for the default
    conversation — a row no conversation id names (``"default"`` is an ordinary id)."""
    return DEFAULT_MEMORY_KEY if conversation_id is None else conversation_id


def interrupted_exchange(record: TurnRecord) -> Exchange:
    """The history entry that tells the conversation a turn was cut off, and what it did."""
    return Exchange(
        ask=record.ask,
        answer=INTERRUPTED_ANSWER,
        at=time.time(),
        best_effort=True,
        steps=[step for step in record.steps if step.kind == "tool"],
        interrupted=True,
    )


def with_interruption(state: MemoryState, record: TurnRecord) -> MemoryState:
    """``state`` with the cut-off turn added; nothing is trimmed unsummarised: the next turn's
    scribe folds what falls out of the recent window (:func:`goliath.memory.codec.appended`)."""
    return appended(state, interrupted_exchange(record))


class StoreMemory:
    """A conversation's :class:`~goliath.memory.Memory` backed by a store (and its fence).

    ``reloads`` tells the runtime it may drop the object when the conversation goes idle:
    everything it holds is in the store.
    """

    reloads = True

    def __init__(
        self,
        store: Store,
        conversation_id: str | None,
        fence: Any = None,
    ) -> None:
        self.store = store
        self.key = memory_key(conversation_id)
        self.conversation_id = conversation_id
        self._fence = fence  # a function of the conversation id returning the current Fence

    async def load(self) -> MemoryState:
        return await self.store.load_memory(self.key)

    async def save(self, state: MemoryState) -> None:
        fence = self._fence(self.conversation_id) if self._fence is not None else None
        await self.store.save_memory(self.key, state, fence)


_record_encoder = msgspec.json.Encoder()
_record_decoder = msgspec.json.Decoder(TurnRecord)


def encode_record(record: TurnRecord) -> str:
    return _record_encoder.encode(record).decode()


def decode_record(text: str | bytes) -> TurnRecord:
    return _record_decoder.decode(text)
