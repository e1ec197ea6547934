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
from goliath.durable import payload_fingerprint
from goliath.errors import (
    BusyError,
    ConfigError,
    ConversationFailedError,
    DrainingError,
)
from goliath.models import GenerateRequest, TextSink
from goliath.records import Decision, MemoryState, RunResult
from goliath.session import Session

from .admission import (
    Access,
    RequestError,
    admit,
    another_write,
    call_answered,
    call_too_late,
    check_same_request,
    no_pending_call,
    no_turn,
    not_running_here,
    turn_ended,
)
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
    Outbox,
    ResultMessage,
    Run,
    TurnStatus,
)
from .model_worker import ModelSource, ModelWorker, RunningCall
from .store import Store, TurnRecord
from .supervisor import Supervisor
from .ticket import Ticket

__all__ = [
    "Access",
    "Outbox",
    "RequestError",
    "Runtime",
    "RuntimeLimits",
    "failure_code",
    "final_message",
    "scoped_turn_id",
    "turn_scope",
    "unscoped",
]


@attrs.frozen(kw_only=True)
class RuntimeLimits:
    """Bounds of the runtime, with units.

    Attributes:
        run_mailbox: runs that may wait per conversation (one more is refused as busy).
        idle_timeout: seconds an idle conversation actor lives before it is passivated.
        restart_limit: crashes within ``restart_window`` seconds that stop a conversation.
        restart_window: seconds over which crashes are counted.
        turn_records: finished turns remembered for at-most-once delivery and status queries.
        turn_record_bytes: bytes of finished turns' whole results kept in memory (oldest let go
            first, each then kept as its status and a bounded final message; with a store the
            rest is read back from it when asked for).
        model_slots: model calls that may run at once (1 for an on-device model).
        model_queue: model calls that may wait at once across all conversations.
        drain_grace: seconds running turns may take to finish on shutdown before cancellation.
    """

    run_mailbox: int = 16
    idle_timeout: float = 300.0
    restart_limit: int = 3
    restart_window: float = 60.0
    turn_records: int = 10_000
    turn_record_bytes: int = 16 * 2**20
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
            turn_record_bytes=self.limits.turn_record_bytes,
            durable=store is not None,
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
        resumable: list[TurnRecord] = []
        if self.store is not None:
            await self.store.open()
            if self._recover_on_start:
                assert self.journal is not None
                resumable = await self.journal.recover()
        async with trio.open_nursery() as nursery:
            await nursery.start(self.model_worker.serve)
            await nursery.start(self.supervisor.serve)
            for record in resumable:
                self._resume(record)
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
        (:class:`~actors.messages.Token`), confirmation asks and its last message go there, and
        a write waits for a :class:`~actors.messages.ConfirmReply` (delivered with
        :meth:`confirm`) instead of calling a handler in this process. Without one the caller
        waits on ``ticket.done``.

        Raises:
            RequestError: the turn id belongs to another conversation (``conflict``).
            BusyError, DrainingError, ConversationFailedError: the run is refused.
        """
        payload = payload_fingerprint(request.ask, request.context)
        ticket = await self._seen(request)
        if ticket is None:
            ticket = await self._enqueue(
                Ticket.local(request, journal=self.journal)
                if outbox is None
                else Ticket.remote(request, outbox, journal=self.journal)
            )
        check_same_request(
            request.turn_id,
            known_conversation=ticket.conversation_id,
            known_payload=ticket.payload,
            conversation_id=request.conversation_id,
            payload=payload,
        )
        if outbox is not None and outbox not in ticket.subscribers:  # a retry of an earlier run
            if ticket.is_remote and not ticket.done.is_set():
                ticket.subscribe(outbox)  # rejoin: the pending ask now, the rest as it comes
            else:
                await ticket.done.wait()
                outbox(final_message(ticket))
        return ticket

    async def _seen(self, request: TurnRequest) -> Ticket | None:
        """The turn this id already names: queued, running, recent, or finished in the store."""
        known = self.supervisor.resubmitted(request.turn_id)
        if (known is None or known.compact) and self.journal is not None:
            record = await self.journal.get(request.turn_id)  # the whole of a compact record
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
            known = self.supervisor.ticket(ticket.turn_id)
            return (
                known
                if known is not None and not known.compact
                else (Ticket.from_record(existing, None))
            )
        try:
            self.supervisor.enqueue(ticket)
        except BaseException:
            with trio.CancelScope(shield=True):
                await self.journal.forget(ticket.turn_id)  # refused: a retry may reuse the id
            raise
        return ticket

    # ---------------------------------------------------------------- fleet hooks

    def _resume(self, record: TurnRecord) -> None:
        """Carry on a turn that was paused at a write when its node stopped (or died).

        It runs again from its checkpoint, as a remote turn with no client yet: a client that
        retries the run (same turn id) rejoins it, ``GET /v1/turns/{id}`` shows the pending
        call, and an approval — already recorded, or sent now — runs the write once.
        """
        self.supervisor.enqueue(Ticket.resumed(record, journal=self.journal), resumed=True)

    async def claimed(self, shard: int, epoch: int) -> None:
        """A shard became ours: turns the last owner left paused at a write resume here; the
        others it left unfinished are interrupted."""
        if self.journal is not None:
            for record in await self.journal.recover(shard, (shard, epoch)):
                self._resume(record)

    async def release(self, shard: int, shard_of: Callable[[str | None], int]) -> None:
        """A shard is being handed over: wait for its turns to finish (the caller bounds it)."""
        for ticket in self.running():
            if shard_of(ticket.conversation_id) == shard:
                await ticket.done.wait()

    def cancel(self, turn_id: str, reason: str = "client") -> bool:
        return self.supervisor.cancel(turn_id, reason)

    def confirm(self, turn_id: str, call_id: str, decision: Decision) -> str:
        return self.supervisor.confirm(turn_id, call_id, decision)

    async def drain(self, grace: float | None = None) -> None:
        await self.supervisor.drain(self.limits.drain_grace if grace is None else grace)

    def stop_turns(self, reason: str) -> None:
        """At shutdown, after the grace: park the turns paused at a durable write (the next
        start, or another node, resumes them), cancel the others."""
        for ticket in self.running():
            if ticket.parkable:
                ticket.park(reason)
            else:
                self.cancel(ticket.turn_id, reason)

    # ---------------------------------------------------------------- what the edges ask

    def admit(self, message: Inbound, access: Access | None = None) -> None:
        """Refuse a request from outside that breaks one of the door's rules (its turn id, its
        ask's length, its context's depth, its conversation id, who may use it:
        :func:`actors.admission.admit`).

        :meth:`handle` admits every request itself; an edge asks first only when it must
        refuse before doing work of its own (the frame socket before it claims a turn for its
        connection). Raises :class:`RequestError`.
        """
        admit(message, access)

    @property
    def accepting(self) -> bool:
        """Whether new runs are taken now: started, and not draining or shutting down."""
        return self.ready and self.supervisor.accepting

    def stop_accepting(self) -> None:
        """Refuse new runs from now on (``draining``); the turns already queued go on."""
        self.supervisor.accepting = False

    @property
    def durable(self) -> bool:
        """Whether a store keeps every turn's whole record (so a compact one in memory is read
        back from it: :meth:`record`)."""
        return self.journal is not None

    def ticket(self, turn_id: str) -> Ticket | None:
        """The turn with this (runtime's) id as this node holds it in memory — queued, running,
        paused or finished, whole or ``compact`` — or ``None``."""
        return self.supervisor.ticket(turn_id)

    async def record(self, turn_id: str) -> TurnRecord | None:
        """The turn's record in the store (whatever node ran it); ``None`` without a store or
        for an id it does not know."""
        return await self.journal.get(turn_id) if self.journal is not None else None

    def running(self) -> list[Ticket]:
        """The turns not finished yet (queued, running, paused at a write), for a shutdown."""
        return self.supervisor.running()

    # ---------------------------------------------------------------- requests from transports

    async def handle(
        self, message: Inbound, outbox: Outbox, access: Access | None = None
    ) -> Ticket | None:
        """Carry out one request from a transport; replies go to ``outbox``.

        Every request is admitted first (:meth:`admit`: the door's rules, in the same words
        for every edge), before anything is queued or recorded. A ``Run`` returns its ticket (its events, confirmation asks and end follow through
        ``outbox``); other requests answer once. Refusals raise :class:`RequestError`. With
        ``access`` (a user's), only conversations it allows can be touched: a conversation it
        does not allow is ``forbidden``, a turn of one is ``not_found`` (nothing leaks). A
        user's turn ids are the user's own (:func:`turn_scope`): another user's id names
        nothing here, so it answers as an unknown one, and one user cannot claim an id first
        to refuse another's run.
        """
        self.admit(message, access)
        scope = turn_scope(access)
        if not scope:
            return await self._handle(message, outbox, access)
        mine = message.turn_id
        try:
            return await self._handle(
                msgspec.structs.replace(message, turn_id=scope + mine),
                _Unscoped(outbox, scope),
                access,
            )
        except RequestError as exc:  # say the id as the caller gave it
            raise RequestError(
                exc.code, exc.message.replace(repr(scope + mine), repr(mine))
            ) from exc.__cause__

    async def _handle(
        self, message: Inbound, outbox: Outbox, access: Access | None
    ) -> Ticket | None:
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
                ticket = await self._turn(turn_id, conversation_id, access)
                if ticket.done.is_set():
                    raise turn_ended(turn_id, ticket.status)
                if self.supervisor.ticket(turn_id) is None:
                    raise not_running_here(turn_id)
                self.cancel(turn_id, reason)
                outbox(Ack(turn_id=turn_id))
            case ConfirmReply(turn_id=turn_id, conversation_id=conversation_id):
                ticket = await self._turn(turn_id, conversation_id, access)
                await self._confirm_reply(ticket, message)
                outbox(Ack(turn_id=turn_id))
            case GetTurn(turn_id=turn_id):
                found = await self._turn(turn_id, None, access)
                checkpoint = found.checkpoint if found.status == "awaiting_confirmation" else None
                outbox(
                    TurnStatus(
                        turn_id=turn_id,
                        conversation_id=found.conversation_id,
                        status=found.status,
                        result=found.result,
                        pending=checkpoint.pending if checkpoint is not None else None,
                        steps=[] if found.result is not None else list(found.steps),
                    )
                )
            case GetMemory(turn_id=turn_id, conversation_id=conversation_id):
                session = await self.supervisor.memory_session(conversation_id)
                state = await session.memory.load()
                outbox(MemoryReply(turn_id=turn_id, conversation_id=conversation_id, state=state))
            case DeleteMemory(turn_id=turn_id, conversation_id=conversation_id):
                session = await self.supervisor.memory_session(conversation_id)
                await session.memory.save(MemoryState())
                outbox(Ack(turn_id=turn_id))
            case _:
                raise RequestError("invalid", f"{message.type!r} is not a request")
        return None

    async def _confirm_reply(self, ticket: Ticket, message: ConfirmReply) -> None:
        """Check a person's answer against the pending call, make it durable, deliver it."""
        turn_id, call_id = message.turn_id, message.call_id
        if ticket.done.is_set():
            raise turn_ended(turn_id, ticket.status)
        live = self.supervisor.ticket(turn_id)
        if live is None:
            raise not_running_here(turn_id)
        waiter = live.pending.get(call_id)
        checkpoint = live.checkpoint
        if waiter is None and (checkpoint is None or checkpoint.pending.call_id != call_id):
            raise no_pending_call(turn_id, call_id)
        if waiter is not None and waiter.expired:
            raise call_too_late(call_id)
        answered = waiter is not None and waiter.answered.is_set()
        if answered or (live.approval is not None and live.approval.call_id == call_id):
            raise call_answered(call_id)
        fingerprint = checkpoint.pending.fingerprint if checkpoint is not None else None
        if message.fingerprint and fingerprint and message.fingerprint != fingerprint:
            raise another_write(call_id)
        decision = Decision(approved=message.approved, reason=message.reason)
        await live.record_answer(call_id, decision)  # durable before anyone acts on it
        answer = self.confirm(turn_id, call_id, decision)
        if answer == "expired":
            raise call_too_late(call_id)
        if answer == "answered":
            raise call_answered(call_id)

    async def _turn(
        self, turn_id: str, conversation_id: str | None, access: Access | None
    ) -> Ticket:
        """The turn a request names: running here, or known from the store (else not found)."""
        found = self.supervisor.ticket(turn_id)
        if (found is None or found.compact) and self.journal is not None:
            record = await self.journal.get(turn_id)  # the whole of a compact record
            if record is not None:
                found = Ticket.from_record(record, None)
        if (
            found is None
            or (conversation_id is not None and found.conversation_id != conversation_id)
            or (access is not None and not access.allows(found.conversation_id))
        ):
            raise no_turn(turn_id, conversation_id)
        return found


def turn_scope(access: Access | None) -> str:
    """Where a caller's turn ids live: ``""`` (everywhere) for the operator; for a user, under
    the user's conversation prefix (or ``name/`` for an access without one).

    A user's turn id ``t`` is the runtime's ``<prefix>t``: users' prefixes never overlap, so
    no user's id can name another's turn, and whatever an id means to one user, another who
    sends it gets what an unknown id gets. The user sees and sends ``t`` only; the operator
    sees ``<prefix>t`` (in records, ``GET /v1/turns/{id}`` and logs).
    """
    if access is None:
        return ""
    prefix = getattr(access, "conversations", None)
    return prefix if isinstance(prefix, str) and prefix else f"{access.name}/"


def scoped_turn_id(access: Access | None, turn_id: str) -> str:
    """The runtime's id of the turn a caller calls ``turn_id`` (see :func:`turn_scope`)."""
    return turn_scope(access) + turn_id


def unscoped(message: Outbound, scope: str) -> Outbound:
    """``message`` as a user sees it: its turn ids without the user's scope."""
    if not scope:
        return message
    changes: dict[str, Any] = {"turn_id": message.turn_id.removeprefix(scope)}
    result = getattr(message, "result", None)
    if isinstance(result, RunResult) and result.turn_id.startswith(scope):
        changes["result"] = msgspec.structs.replace(
            result, turn_id=result.turn_id.removeprefix(scope)
        )
    return msgspec.structs.replace(message, **changes)


@attrs.frozen
class _Unscoped:
    """A user's outbox: messages reach it with the user's own turn ids (equal wrappers of one
    outbox compare equal, so a retried run is known for the same caller)."""

    outbox: Outbox
    scope: str

    def __call__(self, message: Outbound) -> None:
        self.outbox(unscoped(message, self.scope))


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
