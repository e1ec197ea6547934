"""The journal: writes each turn's progress to the store, and recovers interrupted turns.

Writes happen at the turn's own transitions (queued, running, awaiting confirmation, the end),
awaited in the actor, so a client hears about a result only after it is durable. Recovery turns
every record left unfinished by a crash into ``interrupted`` and adds an interrupted exchange to
the conversation's history, so the next turn (and the user) know the ask was cut off.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import outcome

from goliath.config import TurnRequest
from goliath.records import ConfirmRequest, RunResult

from .messages import TurnState
from .store import (
    Fence,
    FencedError,
    Store,
    TurnRecord,
    memory_key,
    with_interruption,
)
from .ticket import Ticket

__all__ = ["FenceFor", "Journal"]

FenceFor = Callable[[str | None], "Fence | None"]


class Journal:
    """Turn records and recovery over a :class:`~actors.store.Store`."""

    def __init__(
        self, store: Store, *, node: str | None = None, fence: FenceFor | None = None
    ) -> None:
        self.store = store
        self.node = node
        self._fence = fence

    def fence(self, conversation_id: str | None) -> Fence | None:
        return self._fence(conversation_id) if self._fence is not None else None

    def _record(
        self, request: TurnRequest, status: TurnState, created_at: float = 0.0, **fields: object
    ) -> TurnRecord:
        now = time.time()
        return TurnRecord(
            turn_id=request.turn_id,
            conversation_id=request.conversation_id,
            status=status,
            ask=request.ask,
            node=self.node,
            created_at=created_at or now,
            updated_at=now,
            **fields,  # type: ignore[arg-type]
        )

    async def begin(self, request: TurnRequest) -> TurnRecord | None:
        """Record a new turn; the existing record when its id is already known."""
        record = self._record(request, "queued")
        return await self.store.begin_turn(record, self.fence(request.conversation_id))

    async def forget(self, turn_id: str) -> None:
        """Drop the record of a run that was refused before it was queued."""
        await self.store.delete_turn(turn_id)

    async def update(
        self, ticket: Ticket, status: TurnState, pending: ConfirmRequest | None = None
    ) -> None:
        await self.store.update_turn(
            self._record(ticket.request, status, ticket.created_at, pending=pending),
            self.fence(ticket.conversation_id),
        )

    async def finish(self, ticket: Ticket, result: RunResult | None = None) -> None:
        """Write how the turn ended (its result, or why there is none)."""
        if result is not None:
            record = self._record(ticket.request, "done", ticket.created_at, result=result)
        else:
            error = ticket.outcome.error if isinstance(ticket.outcome, outcome.Error) else None
            record = self._record(
                ticket.request,
                ticket.status if ticket.status in ("cancelled", "failed") else "failed",
                ticket.created_at,
                error=str(error) if error is not None else None,
                error_code=ticket.error_code,
            )
        try:
            await self.store.update_turn(record, self.fence(ticket.conversation_id))
        except FencedError:
            pass  # the shard moved on; its new owner reports this turn as interrupted

    async def get(self, turn_id: str) -> TurnRecord | None:
        return await self.store.get_turn(turn_id)

    async def recover(
        self, shard: int | None = None, fence: Fence | None = None
    ) -> list[TurnRecord]:
        """Mark unfinished turns (all, or one shard's) interrupted, in their history too."""
        recovered = []
        for record in await self.store.unfinished_turns(shard):
            interrupted = TurnRecord(
                turn_id=record.turn_id,
                conversation_id=record.conversation_id,
                status="interrupted",
                ask=record.ask,
                node=record.node,
                created_at=record.created_at,
                updated_at=time.time(),
                error="the turn was interrupted by a crash or restart before it finished",
                error_code="interrupted",
            )
            await self.store.update_turn(interrupted, fence)
            key = memory_key(record.conversation_id)
            state = await self.store.load_memory(key)
            await self.store.save_memory(key, with_interruption(state, record), fence)
            recovered.append(interrupted)
        return recovered
