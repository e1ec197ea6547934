"""The runtime of one agent: a supervisor of conversation actors and a model worker.

``Runtime.serve`` speaks the nursery start protocol (``await nursery.start(runtime.serve)``),
so the caller knows it is ready and nothing it starts runs unowned.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

import attrs
import msgspec
import outcome
import trio

from goliath.config import AgentConfig, TurnRequest
from goliath.errors import (
    BusyError,
    ConfigError,
    ConversationFailedError,
    DrainingError,
    GoliathError,
)
from goliath.ids import check_conversation_id
from goliath.models import GenerateRequest, TextSink
from goliath.records import Decision, MemoryState
from goliath.session import Session

from .journal import FenceFor, Journal
from .messages import (
    Ack,
    Cancel,
    ConfirmReply,
    DeleteMemory,
    Failure,
    FailureCode,
    GetMemory,
    GetTurn,
    Inbound,
    MemoryReply,
    Outbound,
    ResultMessage,
    Run,
    TurnStatus,
)
from .model_worker import ModelSource, ModelWorker, RunningCall
from .store import Store
from .supervisor import Supervisor, conversation_key
from .ticket import Ticket

__all__ = ["Outbox", "RequestError", "Runtime", "RuntimeLimits", "failure_code", "final_message"]

Outbox = Callable[[Outbound], None]
"""Where a remote caller's replies go; called without blocking the turn."""


@attrs.frozen(kw_only=True)
class RuntimeLimits:
    """Bounds of the runtime, with units.

    Attributes:
        run_mailbox: runs that may wait per conversation (one more is refused as busy).
        idle_timeout: seconds an idle conversation actor lives before it is passivated.
        restart_limit: crashes within ``restart_window`` seconds that stop a conversation.
        restart_window: seconds over which crashes are counted.
        turn_records: finished turns remembered for at-most-once delivery and status queries.
        model_slots: model calls that may run at once (1 for an on-device model).
        model_queue: model calls that may wait at once across all conversations.
        drain_grace: seconds running turns may take to finish on shutdown before cancellation.
    """

    run_mailbox: int = 16
    idle_timeout: float = 300.0
    restart_limit: int = 3
    restart_window: float = 60.0
    turn_records: int = 10_000
    model_slots: int = 1
    model_queue: int = 10_000
    drain_grace: float = 10.0


class Runtime:
    """Supervisor + model worker for one agent configuration."""

    def __init__(
        self,
        *,
        config: AgentConfig,
        model: ModelSource,
        make_session: Callable[[str | None], Awaitable[Session]],
        limits: RuntimeLimits | None = None,
        sessions: dict[str, Session] | None = None,
        store: Store | None = None,
        node: str | None = None,
        fence: FenceFor | None = None,
        recover_on_start: bool = True,
    ) -> None:
        self.limits = limits or RuntimeLimits()
        self.store = store
        self.journal = Journal(store, node=node, fence=fence) if store is not None else None
        self._recover_on_start = recover_on_start
        self.model_worker = ModelWorker(
            model, slots=self.limits.model_slots, queue_limit=self.limits.model_queue
        )
        self.supervisor = Supervisor(
            config=config,
            make_session=make_session,
            start=self._start,
            mailbox_size=self.limits.run_mailbox,
            idle_timeout=self.limits.idle_timeout,
            restart_limit=self.limits.restart_limit,
            restart_window=self.limits.restart_window,
            turn_records=self.limits.turn_records,
            sessions=sessions,
        )
        self.ready = False

    async def _start(
        self, request: GenerateRequest, key: str, turn_id: str, on_text: TextSink | None
    ) -> RunningCall:
        return await self.model_worker.start(
            request, conversation=key, turn_id=turn_id, on_text=on_text
        )

    async def serve(
        self, *, task_status: trio.TaskStatus[Runtime] = trio.TASK_STATUS_IGNORED
    ) -> NoReturn:
        if self.store is not None:
            await self.store.open()
            if self._recover_on_start:
                assert self.journal is not None
                await self.journal.recover()
        async with trio.open_nursery() as nursery:
            await nursery.start(self.model_worker.serve)
            await nursery.start(self.supervisor.serve)
            self.ready = True
            task_status.started(self)
            await trio.sleep_forever()
        raise AssertionError("unreachable")  # pragma: no cover

    # ---------------------------------------------------------------- the one door for runs

    async def submit(self, request: TurnRequest, outbox: Outbox | None = None) -> Ticket:
        """Queue a run and return its ticket: the one way in, for ``Agent.run`` and transports.

        At most once: a turn id seen before — in memory or, with a store, in its records — is
        answered from that turn, never run again (a turn id belongs to one conversation). With a
        store the run is recorded before it is queued, so it survives a crash as ``interrupted``.

        ``outbox`` is for remote callers: the turn's events, its answer's text as it is written
        (:class:`~actors.messages.Token`), confirmation asks and its last message go there, and a write waits for a :class:`~actors.messages.ConfirmReply`
        (delivered with :meth:`confirm`) instead of calling a handler in this process. Without
        one the caller waits on ``ticket.done``.

        Raises:
            RequestError: the turn id belongs to another conversation (``conflict``).
            BusyError, DrainingError, ConversationFailedError: the run is refused.
        """
        ticket = await self._seen(request)
        if ticket is None:
            ticket = Ticket(request=request, key=conversation_key(request.conversation_id))
            if outbox is not None:
                ticket.outbox = outbox
                ticket.request = attrs.evolve(
                    request,
                    confirm=ticket.confirm_remotely,
                    on_event=ticket.publish,
                    on_token=ticket.publish_token,
                )
            ticket = await self._enqueue(ticket)
        if ticket.conversation_id != request.conversation_id:
            raise RequestError(
                "conflict", f"turn id {request.turn_id!r} belongs to another conversation"
            )
        if outbox is not None and ticket.outbox is not outbox:  # answered from an earlier run
            await ticket.done.wait()
            outbox(final_message(ticket))
        return ticket

    async def _seen(self, request: TurnRequest) -> Ticket | None:
        """The turn this id already names: queued, running, recent, or finished in the store."""
        known = self.supervisor.resubmitted(request.turn_id)
        if known is None and self.journal is not None:
            record = await self.journal.get(request.turn_id)
            if record is not None and record.final:
                known = Ticket.from_record(record, None)
        return known

    async def _enqueue(self, ticket: Ticket) -> Ticket:
        """Queue a new turn; with a store, record it first (a racing twin answers instead)."""
        if self.journal is None:
            self.supervisor.enqueue(ticket)
            return ticket
        self.supervisor.check_accepting(ticket.conversation_id)
        existing = await self.journal.begin(ticket.request)
        if existing is not None:
            return self.supervisor.ticket(ticket.turn_id) or Ticket.from_record(existing, None)
        try:
            self.supervisor.enqueue(ticket)
        except BaseException:
            with trio.CancelScope(shield=True):
                await self.journal.forget(ticket.turn_id)  # refused: a retry may reuse the id
            raise
        ticket.journal = self.journal
        return ticket

    # ---------------------------------------------------------------- fleet hooks

    async def claimed(self, shard: int, epoch: int) -> None:
        """A shard became ours: its turns left unfinished by the last owner are interrupted."""
        if self.journal is not None:
            await self.journal.recover(shard, (shard, epoch))

    async def release(self, shard: int, shard_of: Callable[[str | None], int]) -> None:
        """A shard is being handed over: wait for its turns to finish (the caller bounds it)."""
        for ticket in self.supervisor.running():
            if shard_of(ticket.conversation_id) == shard:
                await ticket.done.wait()

    def cancel(self, turn_id: str, reason: str = "client") -> bool:
        return self.supervisor.cancel(turn_id, reason)

    def confirm(self, turn_id: str, call_id: str, decision: Decision) -> str:
        return self.supervisor.confirm(turn_id, call_id, decision)

    async def drain(self, grace: float | None = None) -> None:
        await self.supervisor.drain(self.limits.drain_grace if grace is None else grace)

    # ---------------------------------------------------------------- requests from transports

    async def handle(self, message: Inbound, outbox: Outbox) -> Ticket | None:
        """Carry out one request from a transport; replies go to ``outbox``.

        A ``Run`` returns its ticket (its events, confirmation asks and end follow through
        ``outbox``); other requests answer once. Refusals raise :class:`RequestError`.
        """
        match message:
            case Run(turn_id=turn_id, ask=ask, conversation_id=conversation_id, context=context):
                try:
                    request = TurnRequest(
                        ask=ask, turn_id=turn_id, conversation_id=conversation_id, context=context
                    )
                    return await self.submit(request, outbox)
                except (BusyError, DrainingError, ConversationFailedError, ConfigError) as exc:
                    raise RequestError(failure_code(exc), str(exc)) from exc
            case Cancel(turn_id=turn_id, reason=reason, conversation_id=conversation_id):
                self._owned(turn_id, conversation_id)
                self.cancel(turn_id, reason)
                outbox(Ack(turn_id=turn_id))
            case ConfirmReply(turn_id=turn_id, call_id=call_id, conversation_id=conversation_id):
                self._owned(turn_id, conversation_id)
                answer = self.confirm(
                    turn_id, call_id, Decision(approved=message.approved, reason=message.reason)
                )
                if answer == "unknown":
                    raise RequestError(
                        "not_found", f"turn {turn_id!r} has no pending call {call_id!r}"
                    )
                if answer == "answered":
                    raise RequestError("conflict", f"call {call_id!r} was already answered")
                outbox(Ack(turn_id=turn_id))
            case GetTurn(turn_id=turn_id):
                found = self.supervisor.ticket(turn_id)
                if found is None and self.journal is not None:
                    record = await self.journal.get(turn_id)
                    if record is not None:
                        found = Ticket.from_record(record, None)
                if found is None:
                    raise RequestError("not_found", f"there is no turn {turn_id!r}")
                outbox(
                    TurnStatus(
                        turn_id=turn_id,
                        conversation_id=found.conversation_id,
                        status=found.status,
                        result=found.result,
                    )
                )
            case GetMemory(turn_id=turn_id, conversation_id=conversation_id):
                _checked(conversation_id)
                session = await self.supervisor.session(conversation_id)
                state = await session.memory.load()
                outbox(MemoryReply(turn_id=turn_id, conversation_id=conversation_id, state=state))
            case DeleteMemory(turn_id=turn_id, conversation_id=conversation_id):
                _checked(conversation_id)
                session = await self.supervisor.session(conversation_id)
                await session.memory.save(MemoryState())
                outbox(Ack(turn_id=turn_id))
            case _:
                raise RequestError("invalid", f"{message.type!r} is not a request")
        return None

    def _owned(self, turn_id: str, conversation_id: str | None) -> Ticket:
        ticket = self.supervisor.ticket(turn_id)
        if ticket is None or (
            conversation_id is not None and ticket.conversation_id != conversation_id
        ):
            where = f" in conversation {conversation_id!r}" if conversation_id is not None else ""
            raise RequestError("not_found", f"there is no turn {turn_id!r}{where}")
        return ticket


def _checked(conversation_id: str | None) -> None:
    """Refuse a malformed conversation id as an invalid request (never a crash of the caller)."""
    try:
        check_conversation_id(conversation_id)
    except ConfigError as exc:
        raise RequestError("invalid", str(exc)) from exc


class RequestError(GoliathError):
    """A request the runtime refuses; ``code`` is a :data:`~actors.messages.FailureCode`."""

    def __init__(self, code: FailureCode, message: str) -> None:
        super().__init__(message)
        self.code: FailureCode = code
        self.message = message


def final_message(ticket: Ticket) -> Outbound:
    """The last message of a finished turn: its result, or why there is none."""
    result = ticket.result
    if result is not None:
        return ResultMessage(turn_id=ticket.turn_id, result=result)
    error = ticket.outcome.error if isinstance(ticket.outcome, outcome.Error) else None
    code: Any = ticket.error_code or "error"
    return Failure(turn_id=ticket.turn_id, code=code, message=str(error) if error else "no result")


def failure_code(error: BaseException) -> FailureCode:
    """The wire code for an error raised while submitting a run."""
    if isinstance(error, BusyError):
        return "busy"
    if isinstance(error, DrainingError):
        return "draining"
    if isinstance(error, ConversationFailedError):
        return "conversation_failed"
    if isinstance(error, (ConfigError, msgspec.ValidationError)):
        return "invalid"
    return "error"
