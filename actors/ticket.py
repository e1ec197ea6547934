"""A turn inside the runtime: its request, its status, its cancel scope, how it ended.

A ticket is made by one of its named constructors — :meth:`Ticket.local` (an in-process caller
waits on it), :meth:`Ticket.remote` (its messages go to outboxes), :meth:`Ticket.resumed` (a
turn paused at a write, carried on after a restart) or :meth:`Ticket.from_record` (a turn known
only from the store) — and changes only through its own methods, like trio's memory channel
state: the runtime, the supervisor and the actor ask it to move on, none of them writes its
fields.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import attrs
import outcome
import trio
from outcome import Outcome

from goliath.config import TurnRequest
from goliath.durable import Checkpoint, payload_fingerprint
from goliath.errors import GoliathError, TurnCancelled
from goliath.events import Event
from goliath.records import ConfirmRequest, Decision, RunResult, StepRecord

from .messages import (
    ConfirmAsk,
    EventMessage,
    Failure,
    Outbound,
    Outbox,
    ResultMessage,
    TicketStatus,
    Token,
)
from .store import Approval, TurnRecord

__all__ = ["Approval", "ReplyWaiter", "Ticket", "TurnLog", "conversation_key"]


def conversation_key(conversation_id: str | None) -> str:
    """The registry key of a conversation (the default conversation is ``""``)."""
    return conversation_id or ""


@attrs.define(eq=False)
class ReplyWaiter:
    """Where a turn waits for the :class:`~actors.messages.ConfirmReply` to one of its asks.

    A waiter the turn stopped waiting on (its deadline passed, the turn was cancelled) is
    *expired*: a reply that comes later is refused, never taken as an answer.
    """

    call_id: str
    answered: trio.Event = attrs.field(factory=trio.Event)
    decision: Decision | None = None
    expired: bool = False

    def resolve(self, decision: Decision) -> bool:
        """Record the answer; ``False`` if it was already answered (or expired)."""
        if self.answered.is_set():
            return False
        self.decision = decision
        self.answered.set()
        return True

    def expire(self) -> None:
        """The turn stopped waiting: a later reply is too late."""
        if not self.answered.is_set():
            self.expired = True
            self.decision = Decision(approved=False, reason="no answer")
            self.answered.set()

    async def wait(self) -> Decision:
        """The answer, once there is one."""
        await self.answered.wait()
        assert self.decision is not None  # resolve() sets it before the event
        return self.decision


def _request_of(record: TurnRecord) -> TurnRequest:
    """The request a stored turn was made of (what a record keeps of it)."""
    return TurnRequest(
        ask=record.ask,
        turn_id=record.turn_id,
        conversation_id=record.conversation_id,
        context=record.context,
    )


class TurnLog(Protocol):
    """Where a turn's progress is made durable: the journal (``actors/journal.py``). The
    journal reads tickets, so a ticket knows it only by these two calls (no import back)."""

    async def update(self, ticket: Ticket, status: TicketStatus) -> None: ...

    async def finish(self, ticket: Ticket, result: RunResult | None = None) -> None: ...


@attrs.define(eq=False)
class Ticket:
    """One submitted turn, shared by the caller, the supervisor and the conversation actor.

    A remote turn (``is_remote``) sends its events, confirmation asks and final message to every
    subscribed outbox without blocking the turn — a client that reconnects with the same turn
    id subscribes again and is shown the pending confirmation at once — and waits for
    confirmation replies instead of calling a handler. In-process callers wait on :attr:`done`.

    The ticket is also the turn's :class:`~goliath.durable.TurnProgress`: it keeps the latest
    steps, the checkpoint of a paused write and the write-ahead mark, and with a journal writes
    them to the store.
    """

    request: TurnRequest
    key: str
    subscribers: list[Outbox] = attrs.field(factory=list)
    is_remote: bool = False
    """Its caller is elsewhere (:meth:`remote`, :meth:`resumed`): messages go to outboxes."""
    status: TicketStatus = "queued"
    done: trio.Event = attrs.field(factory=trio.Event)
    outcome: outcome.Outcome[RunResult] | None = None
    scope: trio.CancelScope | None = None
    cancel_reason: str | None = None
    pending: dict[str, ReplyWaiter] = attrs.field(factory=dict)
    error_code: str | None = None
    created_at: float = attrs.field(factory=time.time)
    journal: TurnLog | None = None
    steps: list[StepRecord] = attrs.field(factory=list)
    checkpoint: Checkpoint | None = None
    """The paused write while the turn awaits its confirmation."""
    approval: Approval | None = None
    """The answer to the paused write, once recorded."""
    running_call: str | None = None
    """The call id of a write that is running (the write-ahead mark)."""
    payload: str = ""
    """The fingerprint of the ask and context (a turn id names one request)."""
    parked: bool = False
    """Stopped at shutdown to be resumed from its checkpoint by the next start (or node)."""
    compact: bool = False
    """Stands for a finished turn whose whole result this process no longer keeps (its status
    and a bounded final message only): with a store, read the record for the rest."""
    on_done: Callable[[Ticket], None] | None = None
    """Told once, when the turn ends (the supervisor's byte budget of records)."""
    replaying: bool = False
    """Resumed after a restart and not yet back at its paused write: the events it emits on
    the way (its recall) were sent before the restart and are in :attr:`log` already."""
    log: list[EventMessage | ConfirmAsk] = attrs.field(factory=list)
    """A remote turn's events and confirmation asks so far, in the order sent (not its
    answer's tokens), journalled with its record: a client that comes back after a restart is
    shown them again, the pending question included. Emptied when the turn ends (its result
    keeps the trace)."""

    # ---------------------------------------------------------------- named constructors

    @classmethod
    def local(cls, request: TurnRequest, *, journal: TurnLog | None = None) -> Ticket:
        """A turn whose caller is in this process and waits on :attr:`done`; its handler (if
        any) answers confirmations, and the ticket takes its progress reports."""
        ticket = cls._new(request, journal)
        ticket.request = attrs.evolve(request, progress=ticket)
        return ticket

    @classmethod
    def remote(
        cls, request: TurnRequest, outbox: Outbox, *, journal: TurnLog | None = None
    ) -> Ticket:
        """A turn whose caller is elsewhere: its events, answer tokens, confirmation asks and
        last message go to ``outbox`` (and to later subscribers), and a write waits for a
        :class:`~actors.messages.ConfirmReply` instead of calling a handler here."""
        ticket = cls._new(request, journal, is_remote=True, subscribers=[outbox])
        ticket.request = ticket._remotely(request)
        return ticket

    @classmethod
    def resumed(cls, record: TurnRecord, *, journal: TurnLog | None) -> Ticket:
        """A turn paused at a write when its node stopped (or died), carried on from its
        checkpoint as a remote turn with no client yet; an answer already recorded is kept."""
        checkpoint = record.checkpoint
        if checkpoint is None:
            raise ValueError(f"turn {record.turn_id} has no checkpoint to resume from")
        request = _request_of(record)
        ticket = cls(
            request=request,
            key=conversation_key(record.conversation_id),
            is_remote=True,
            status="awaiting_confirmation",
            created_at=record.created_at,
            payload=record.payload,
            journal=journal,
            steps=list(checkpoint.steps),
            checkpoint=checkpoint,
            approval=record.approval,
            log=list(record.events),
            replaying=True,
        )
        ticket.request = attrs.evolve(ticket._remotely(request), resume=checkpoint)
        return ticket

    @classmethod
    def from_record(cls, record: TurnRecord, request: TurnRequest | None) -> Ticket:
        """A finished (or still unfinished elsewhere) turn known only from the store."""
        request = request or _request_of(record)
        ticket = cls(
            request=request,
            key=conversation_key(record.conversation_id),
            status=record.status,
            created_at=record.created_at,
            steps=list(record.steps),
            checkpoint=record.checkpoint,
            approval=record.approval,
            payload=record.payload,
        )
        if record.status == "done" and record.result is not None:
            ticket.outcome = outcome.Value(record.result)
            ticket.done.set()
        elif record.final:
            error = GoliathError(record.error or f"the turn is {record.status}")
            ticket.error_code = record.error_code or record.status
            ticket.outcome = outcome.Error(error)
            ticket.done.set()
        return ticket

    @classmethod
    def settled(
        cls,
        request: TurnRequest,
        *,
        status: TicketStatus,
        payload: str,
        error_code: str | None,
        created_at: float,
        ended: Outcome[RunResult],
    ) -> Ticket:
        """A finished turn kept only as its status and a bounded final message (``compact``:
        the supervisor's byte budget let go of its whole result; a store has the rest)."""
        ticket = cls(
            request=request,
            key=conversation_key(request.conversation_id),
            status=status,
            payload=payload,
            error_code=error_code,
            created_at=created_at,
            compact=True,
            outcome=ended,
        )
        ticket.done.set()
        return ticket

    @classmethod
    def _new(cls, request: TurnRequest, journal: TurnLog | None, **fields: Any) -> Ticket:
        return cls(
            request=request,
            key=conversation_key(request.conversation_id),
            payload=payload_fingerprint(request.ask, request.context),
            journal=journal,
            **fields,
        )

    def _remotely(self, request: TurnRequest) -> TurnRequest:
        """``request`` wired to this ticket: progress, confirmations, events and tokens."""
        return attrs.evolve(
            request,
            progress=self,
            confirm=self.confirm_remotely,
            on_event=self.publish,
            on_token=self.publish_token,
        )

    # ---------------------------------------------------------------- what it is

    @property
    def turn_id(self) -> str:
        return self.request.turn_id

    @property
    def conversation_id(self) -> str | None:
        return self.request.conversation_id

    @property
    def outbox(self) -> Outbox | None:
        """The first subscriber (the caller that started the turn), if any."""
        return self.subscribers[0] if self.subscribers else None

    @property
    def result(self) -> RunResult | None:
        if isinstance(self.outcome, outcome.Value):
            value: RunResult = self.outcome.value
            return value
        return None

    def succeed(self, result: RunResult) -> None:
        if not self.done.is_set():
            self.status = "done"
            self.steps = result.steps
            self.checkpoint = None
            self.log = []
            self.outcome = outcome.Value(result)
            self.done.set()
            self._ended()

    def fail(
        self, error: BaseException, *, status: TicketStatus = "failed", code: str = "error"
    ) -> None:
        if not self.done.is_set():
            self.status = status
            self.error_code = code
            self.checkpoint = None
            if status != "awaiting_confirmation":  # a parked turn keeps its log in its record
                self.log = []
            self.outcome = outcome.Error(error)
            self.done.set()
            self._ended()

    def tell_when_done(self, told: Callable[[Ticket], None]) -> None:
        """Call ``told`` once, when the turn ends (the supervisor's byte budget of records)."""
        self.on_done = told

    def _ended(self) -> None:
        told, self.on_done = self.on_done, None
        if told is not None:
            told(self)

    # ---------------------------------------------------------------- transitions

    def running_in(self, scope: trio.CancelScope) -> None:
        """The actor starts the turn under ``scope``: a cancel asked for already applies at
        once; a resumed turn stays awaiting its confirmation."""
        if self.request.resume is None:
            self.status = "running"
        self.scope = scope
        if self.cancel_reason is not None:
            scope.cancel()

    def stopped(self) -> None:
        """The actor's run of the turn is over: nothing is left to cancel through its scope."""
        self.scope = None

    def cancel_queued(self, reason: str) -> bool:
        """Mark a turn that never started as cancelled, so its actor skips it and its end can
        be recorded; ``False`` if a cancel was asked for already."""
        if self.cancel_reason is not None:
            return False
        self.cancel_reason = reason
        self.status = "cancelled"
        return True

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

    @property
    def parkable(self) -> bool:
        """Paused at a write with a durable checkpoint: shutdown may leave it for a restart."""
        return (
            self.is_remote
            and self.journal is not None
            and self.status == "awaiting_confirmation"
            and self.checkpoint is not None
            and not self.done.is_set()
        )

    def park(self, reason: str) -> None:
        """Stop a paused turn without ending it: its record stays awaiting confirmation."""
        self.parked = True
        self.cancel(reason)

    def unwrap(self) -> RunResult:
        """The result, or raise the turn's original exception (callable any number of times)."""
        assert self.outcome is not None, "the turn has not finished"
        if isinstance(self.outcome, outcome.Error):
            raise self.outcome.error
        assert isinstance(self.outcome, outcome.Value)
        value: RunResult = self.outcome.value
        return value

    # ---------------------------------------------------------------- the remote caller's side

    def subscribe(self, outbox: Outbox) -> None:
        """Send this turn's messages to ``outbox`` too, starting with its pending ask."""
        self.subscribers.append(outbox)
        ask = self.asking()
        if ask is not None:
            self._deliver(outbox, ask)

    def send(self, message: Outbound) -> None:
        if self.replaying and isinstance(message, EventMessage):
            return  # told before the restart (and in the log)
        asked_again = isinstance(message, ConfirmAsk) and message in self.log  # (a restart)
        if self.is_remote and isinstance(message, (EventMessage, ConfirmAsk)) and not asked_again:
            self.log.append(message)
        for outbox in list(self.subscribers):
            self._deliver(outbox, message)
        if isinstance(message, (ResultMessage, Failure)):
            self.subscribers.clear()  # said its last word: a kept record holds no stream

    def follow(self, outbox: Outbox) -> list[EventMessage | ConfirmAsk]:
        """Subscribe ``outbox`` to what comes next; returns what was sent so far (to replay
        first: the pending ask is in it, so it is not sent again)."""
        self.subscribers.append(outbox)
        return list(self.log)

    def _deliver(self, outbox: Outbox, message: Outbound) -> None:
        try:
            outbox(message)
        except Exception:  # a subscriber that went away is dropped; the turn goes on
            if outbox in self.subscribers:
                self.subscribers.remove(outbox)

    def publish(self, event: Event) -> None:
        """A remote caller's ``on_event``: the event goes out to every subscriber."""
        self.send(EventMessage(turn_id=self.turn_id, event=event))

    def publish_token(self, text: str) -> None:
        """A remote caller's ``on_token``: the answer's text goes out as it is written."""
        self.send(Token(turn_id=self.turn_id, text=text))

    def asking(self) -> ConfirmAsk | None:
        """The confirmation request this turn is waiting on, if any."""
        checkpoint = self.checkpoint
        if checkpoint is None or self.status != "awaiting_confirmation":
            return None
        pending = checkpoint.pending
        return ConfirmAsk(
            turn_id=self.turn_id,
            call_id=pending.call_id,
            tool=pending.tool,
            input=pending.input,
            brief=pending.brief,
            conversation_id=self.conversation_id,
            after_tool=pending.after_tool,
            fingerprint=pending.fingerprint,
        )

    async def confirm_remotely(self, request: ConfirmRequest) -> Decision:
        """A remote caller's ``confirm``: a :class:`~actors.messages.ConfirmAsk` goes to the
        subscribers, and the turn waits for the reply the runtime delivers. An answer already
        recorded for this very call (same fingerprint) — before a restart — is used at once."""
        approval = self.approval
        if (
            approval is not None
            and approval.call_id == request.call_id
            and approval.fingerprint == request.fingerprint
        ):
            self.replaying = False  # back at the paused write: what follows is new
            return Decision(approved=approval.approved, reason=approval.reason)
        self.replaying = False  # back at the paused write: what follows is new
        pending = self.pending.setdefault(request.call_id, ReplyWaiter(request.call_id))
        self.status = "awaiting_confirmation"
        ask = self.asking()
        if ask is None:  # no checkpoint (no progress port): ask with what the request says
            ask = ConfirmAsk(
                turn_id=self.turn_id,
                call_id=request.call_id,
                tool=request.tool,
                input=request.input,
                brief=request.brief,
                conversation_id=request.conversation_id,
                after_tool=request.after_tool,
                fingerprint=request.fingerprint,
            )
        self.send(ask)
        try:
            decision = await pending.wait()
        finally:
            pending.expire()  # a reply that comes after the deadline or a cancel is refused
            if self.status == "awaiting_confirmation":
                self.status = "running"
        return decision

    async def record_answer(self, call_id: str, decision: Decision) -> None:
        """Make a person's answer durable before it is delivered (a restart keeps it)."""
        checkpoint = self.checkpoint
        if checkpoint is None or checkpoint.pending.call_id != call_id:
            return
        self.approval = Approval(
            call_id=call_id,
            fingerprint=checkpoint.pending.fingerprint,
            approved=decision.approved,
            reason=decision.reason,
        )
        if self.journal is not None:
            await self.journal.update(self, "awaiting_confirmation")

    # ---------------------------------------------------------------- TurnProgress

    async def paused(self, checkpoint: Checkpoint) -> None:
        """The turn is about to ask for approval: a remote turn leaves a checkpoint."""
        self.steps = checkpoint.steps
        if not self.is_remote:
            return
        if self.approval is not None and self.approval.call_id != checkpoint.pending.call_id:
            self.approval = None
        self.checkpoint = checkpoint
        self.status = "awaiting_confirmation"
        if self.journal is not None:
            await self.journal.update(self, "awaiting_confirmation")

    async def executing(self, steps: list[StepRecord], call_id: str) -> None:
        """Write-ahead: the write is about to run. A journal that refuses means no write."""
        self.steps = steps
        self.checkpoint = None
        self.running_call = call_id
        if self.status == "awaiting_confirmation":
            self.status = "running"
        if self.journal is not None:
            await self.journal.update(self, "running")

    async def executed(self, steps: list[StepRecord]) -> None:
        """A tool step finished; a write's end is made durable (its mark is cleared)."""
        self.steps = steps
        self.checkpoint = None
        if self.status == "awaiting_confirmation":
            self.status = "running"  # declined, or answered from the record
        wrote, self.running_call = self.running_call is not None, None
        if self.journal is not None and (wrote or (steps and steps[-1].writes)):
            await self.journal.update(self, "running")
