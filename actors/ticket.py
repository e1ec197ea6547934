"""A turn inside the runtime: its request, its status, its cancel scope, how it ended."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs
import outcome
import trio

from goliath.config import TurnRequest
from goliath.errors import TurnCancelled
from goliath.events import Event
from goliath.records import ConfirmRequest, Decision, RunResult

from .messages import ConfirmAsk, EventMessage, Outbound, TurnState

if TYPE_CHECKING:
    from .journal import Journal
    from .store import TurnRecord

__all__ = ["ReplyWaiter", "Ticket"]


@attrs.define(eq=False)
class ReplyWaiter:
    """Where a turn waits for the :class:`~actors.messages.ConfirmReply` to one of its asks."""

    call_id: str
    answered: trio.Event = attrs.field(factory=trio.Event)
    decision: Decision | None = None

    def resolve(self, decision: Decision) -> bool:
        """Record the answer; ``False`` if it was already answered."""
        if self.answered.is_set():
            return False
        self.decision = decision
        self.answered.set()
        return True

    async def wait(self) -> Decision:
        """The answer, once there is one."""
        await self.answered.wait()
        assert self.decision is not None  # resolve() sets it before the event
        return self.decision


@attrs.define(eq=False)
class Ticket:
    """One submitted turn, shared by the caller, the supervisor and the conversation actor.

    ``outbox`` (remote callers) receives events, confirmation asks and the final message without
    blocking the turn; in-process callers just wait on :attr:`done`.
    """

    request: TurnRequest
    key: str
    outbox: Callable[[Outbound], None] | None = None
    status: TurnState = "queued"
    done: trio.Event = attrs.field(factory=trio.Event)
    outcome: outcome.Outcome[RunResult] | None = None
    scope: trio.CancelScope | None = None
    cancel_reason: str | None = None
    pending: dict[str, ReplyWaiter] = attrs.field(factory=dict)
    error_code: str | None = None
    created_at: float = attrs.field(factory=time.time)
    journal: Journal | None = None

    @property
    def turn_id(self) -> str:
        return self.request.turn_id

    @property
    def conversation_id(self) -> str | None:
        return self.request.conversation_id

    @property
    def result(self) -> RunResult | None:
        if isinstance(self.outcome, outcome.Value):
            value: RunResult = self.outcome.value
            return value
        return None

    def succeed(self, result: RunResult) -> None:
        if not self.done.is_set():
            self.status = "done"
            self.outcome = outcome.Value(result)
            self.done.set()

    def fail(
        self, error: BaseException, *, status: TurnState = "failed", code: str = "error"
    ) -> None:
        if not self.done.is_set():
            self.status = status
            self.error_code = code
            self.outcome = outcome.Error(error)
            self.done.set()

    def cancel(self, reason: str = "client") -> None:
        """Cancel: a running turn stops at its next checkpoint, a queued one ends now."""
        self.cancel_reason = reason
        if self.scope is not None:
            self.scope.cancel()
        elif not self.done.is_set():
            self.status = "cancelled"
            self.fail(
                TurnCancelled(f"turn {self.turn_id} was cancelled ({reason})"),
                status="cancelled",
                code="cancelled",
            )

    def unwrap(self) -> RunResult:
        """The result, or raise the turn's original exception (callable any number of times)."""
        assert self.outcome is not None, "the turn has not finished"
        if isinstance(self.outcome, outcome.Error):
            raise self.outcome.error
        assert isinstance(self.outcome, outcome.Value)
        value: RunResult = self.outcome.value
        return value

    @classmethod
    def from_record(cls, record: TurnRecord, request: TurnRequest | None) -> Ticket:
        """A finished (or still unfinished elsewhere) turn known only from the store."""
        from goliath.errors import GoliathError

        request = request or TurnRequest(
            ask=record.ask, turn_id=record.turn_id, conversation_id=record.conversation_id
        )
        ticket = cls(request=request, key=record.conversation_id or "", status=record.status)
        ticket.created_at = record.created_at
        if record.status == "done" and record.result is not None:
            ticket.outcome = outcome.Value(record.result)
            ticket.done.set()
        elif record.final:
            error = GoliathError(record.error or f"the turn is {record.status}")
            ticket.error_code = record.error_code or record.status
            ticket.outcome = outcome.Error(error)
            ticket.done.set()
        return ticket

    def send(self, message: Outbound) -> None:
        if self.outbox is not None:
            self.outbox(message)

    def publish(self, event: Event) -> None:
        """A remote caller's ``on_event``: the event goes out through the outbox."""
        self.send(EventMessage(turn_id=self.turn_id, event=event))

    async def confirm_remotely(self, request: ConfirmRequest) -> Decision:
        """A remote caller's ``confirm``: a :class:`~actors.messages.ConfirmAsk` goes out
        through the outbox, and the turn waits for the reply the runtime delivers."""
        pending = self.pending.setdefault(request.call_id, ReplyWaiter(request.call_id))
        self.status = "awaiting_confirmation"
        if self.journal is not None:
            await self.journal.update(self, "awaiting_confirmation", request)
        self.send(
            ConfirmAsk(
                turn_id=self.turn_id,
                call_id=request.call_id,
                tool=request.tool,
                input=request.input,
                brief=request.brief,
                conversation_id=request.conversation_id,
                after_tool=request.after_tool,
            )
        )
        try:
            decision = await pending.wait()
        finally:
            if self.status == "awaiting_confirmation":
                self.status = "running"
        if self.journal is not None:
            await self.journal.update(self, "running")
        return decision

    def info(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id,
            "conversation_id": self.conversation_id,
            "status": self.status,
        }
