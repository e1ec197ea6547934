"""The journal: writes each turn's progress to the store, and recovers interrupted turns.

Writes happen at the turn's own transitions (queued, running, a checkpoint before it asks for
approval, the answer, a write-ahead mark before a write runs, the write's end, the turn's end),
awaited in the actor, so a client hears about a result or an approval only after it is durable.
Recovery resumes turns paused at a write, and turns every other record left unfinished by a
crash into ``interrupted``. A turn that had started adds an interrupted exchange (with the steps
it took) to the conversation's history, so the next turn (and the user) know the ask was cut
off; one still queued never started and adds nothing. Nothing already remembered is trimmed
away: the next turn's scribe folds what no longer fits the recent window into the brief.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable

import msgspec
import outcome

from goliath.config import TurnRequest
from goliath.durable import PENDING_RESULT, mark_outcome_unknown, payload_fingerprint
from goliath.records import ConfirmRequest, RunResult
from goliath.snapshot import try_snapshot

from .messages import TicketStatus
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
        self, request: TurnRequest, status: TicketStatus, created_at: float = 0.0, **fields: object
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
            context=try_snapshot(request.context),
            payload=payload_fingerprint(request.ask, request.context),
            **fields,  # type: ignore[arg-type]
        )

    def _of(self, ticket: Ticket, status: TicketStatus, **fields: object) -> TurnRecord:
        """The record of ``ticket`` as it stands: steps, checkpoint, answer, write-ahead mark.

        Steps are copied here, in the Trio thread: the store encodes them in a worker thread
        while the turn may go on changing its own list.
        """
        checkpoint = ticket.checkpoint if status == "awaiting_confirmation" else None
        pending = None
        if checkpoint is not None:
            call = checkpoint.pending
            pending = ConfirmRequest(
                tool=call.tool,
                input=call.input,
                brief=call.brief,
                conversation_id=ticket.conversation_id,
                turn_id=ticket.turn_id,
                call_id=call.call_id,
                after_tool=call.after_tool,
                fingerprint=call.fingerprint,
            )
        return self._record(
            ticket.request,
            status,
            ticket.created_at,
            steps=[copy.copy(step) for step in ticket.steps],
            checkpoint=checkpoint,
            approval=ticket.approval if checkpoint is not None else None,
            executing=ticket.running_call,
            pending=pending,
            events=list(ticket.log),
            **fields,
        )

    async def begin(self, request: TurnRequest) -> TurnRecord | None:
        """Record a new turn; the existing record when its id is already known."""
        record = self._record(request, "queued")
        return await self.store.begin_turn(record, self.fence(request.conversation_id))

    async def forget(self, turn_id: str) -> None:
        """Drop the record of a run that was refused before it was queued."""
        await self.store.delete_turn(turn_id)

    async def update(self, ticket: Ticket, status: TicketStatus) -> None:
        """Write where the turn stands; raises (``FencedError``) when the shard moved on."""
        await self.store.update_turn(self._of(ticket, status), self.fence(ticket.conversation_id))

    async def finish(self, ticket: Ticket, result: RunResult | None = None) -> None:
        """Write how the turn ended (its result, or why there is none, with what it did)."""
        if result is not None:
            record = self._record(ticket.request, "done", ticket.created_at, result=result)
        else:
            error = ticket.outcome.error if isinstance(ticket.outcome, outcome.Error) else None
            record = self._of(
                ticket,
                ticket.status if ticket.status in ("cancelled", "failed") else "failed",
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
        """After a crash: unfinished turns (all, or one shard's) are settled.

        A turn paused at a write (a checkpoint) is returned to be resumed at that step. Any
        other is marked interrupted in its record; one that had started, in its conversation's
        history too, with the steps it took (a queued one never ran: no exchange); a write that was running when it was cut off is marked outcome-unknown
        and never run again.
        """
        resumable = []
        for record in await self.store.unfinished_turns(shard):
            if record.resumable:
                resumable.append(record)
                continue
            steps = [copy.copy(step) for step in record.steps]
            if record.executing is not None:
                for step in steps:
                    if step.writes and step.result == PENDING_RESULT:
                        mark_outcome_unknown(step)
            interrupted = msgspec.structs.replace(
                record,
                status="interrupted",
                updated_at=time.time(),
                error="the turn was interrupted by a crash or restart before it finished",
                error_code="interrupted",
                steps=steps,
                checkpoint=None,
                approval=None,
                executing=None,
            )
            await self.store.update_turn(interrupted, fence)
            if record.status == "queued":
                continue  # it never started: the conversation was not told of it, nor is now
            key = memory_key(record.conversation_id)
            state = await self.store.load_memory(key)
            await self.store.save_memory(key, with_interruption(state, interrupted), fence)
        return resumable
