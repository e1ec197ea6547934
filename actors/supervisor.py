"""The supervisor: conversation id → actor, activated on demand, supervised one by one.

Trio cancels every sibling when one child of a nursery fails, so each actor runs under its own
supervision shim: an actor that crashes is restarted (its mailbox and session survive), and
one that crashes more than ``restart_limit`` times within ``restart_window`` seconds is stopped
and its conversation answers with :class:`~goliath.errors.ConversationFailedError` — the other
conversations never notice.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import attrs
import msgspec
import outcome
import trio

from goliath.config import AgentConfig, TurnRequest
from goliath.errors import BusyError, ConversationFailedError, DrainingError, GoliathError
from goliath.models import GenerateRequest, Generation
from goliath.records import Decision, RunResult
from goliath.session import Session
from goliath.turn import run_turn

from .conversation import ConversationActor
from .messages import Cancel, ConfirmReply, Failure, TicketStatus
from .model_worker import StartCall
from .ticket import Ticket, conversation_key

logger = logging.getLogger("goliath.runtime")


async def _no_model(request: GenerateRequest) -> Generation:
    raise AssertionError("a turn cancelled before it started cannot call the model")


__all__ = ["Supervisor", "SupervisorStatistics", "conversation_key"]

SETTLED_TEXT_CHARS = 240
"""Characters of a final message a compacted turn record keeps (:class:`Settled`)."""
RECORD_OVERHEAD_BYTES = 2_048
"""What a kept turn record costs beside its result's encoded size (its objects)."""
_size_encoder = msgspec.json.Encoder()


class Settled(NamedTuple):
    """A finished turn's record once the byte budget no longer holds its whole result: its
    status and a size-bounded final message (a few hundred bytes). With a store the rest is
    reloaded from the store on demand; without one, a retry of its id still gets its end."""

    conversation_id: str | None
    status: TicketStatus
    payload: str
    error_code: str | None
    text: str
    created_at: float
    handled_by: Any = "device"
    best_effort: bool = False

    def ticket(self, turn_id: str) -> Ticket:
        """A finished :class:`Ticket` standing for this record (``compact``: not the whole)."""
        request = TurnRequest(ask="", turn_id=turn_id, conversation_id=self.conversation_id)
        ended: outcome.Outcome[RunResult]
        if self.status == "done":
            ended = outcome.Value(
                RunResult(
                    text=self.text,
                    handled_by=self.handled_by,
                    best_effort=self.best_effort,
                    turn_id=turn_id,
                    conversation_id=self.conversation_id,
                )
            )
        else:
            ended = outcome.Error(GoliathError(self.text))
        return Ticket.settled(
            request,
            status=self.status,
            payload=self.payload,
            error_code=self.error_code,
            created_at=self.created_at,
            ended=ended,
        )


def record_bytes(ticket: Ticket) -> int:
    """What keeping a finished ticket costs, in bytes: its result (or steps) as encoded."""
    kept: Any = ticket.result if ticket.result is not None else ticket.steps
    try:
        return RECORD_OVERHEAD_BYTES + len(_size_encoder.encode(kept))
    except (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError):
        return RECORD_OVERHEAD_BYTES + 64 * 1024


def settled(ticket: Ticket) -> Settled:
    """The compact record of a finished ticket."""
    result = ticket.result
    if result is not None:
        text = result.text
    else:
        error = ticket.outcome.error if isinstance(ticket.outcome, outcome.Error) else None
        text = str(error) if error is not None else f"the turn is {ticket.status}"
    if len(text) > SETTLED_TEXT_CHARS:
        text = text[: SETTLED_TEXT_CHARS - 1] + "…"
    return Settled(
        ticket.conversation_id,
        ticket.status,
        ticket.payload,
        ticket.error_code,
        text,
        ticket.created_at,
        result.handled_by if result is not None else "device",
        result.best_effort if result is not None else False,
    )


@attrs.frozen
class SupervisorStatistics:
    active_actors: int
    sessions: int
    running_turns: int
    failed_conversations: int
    activations: int
    passivations: int
    restarts: int
    turn_records: int
    turn_record_bytes: int
    """Bytes of the whole results kept (the budget is ``RuntimeLimits.turn_record_bytes``)."""
    compact_records: int
    """Finished turns kept as status and a bounded final message only."""


class Supervisor:
    """Routes runs, cancels and confirmation replies to conversation actors."""

    def __init__(
        self,
        *,
        config: AgentConfig,
        make_session: Callable[[str | None], Awaitable[Session]],
        start: StartCall,
        mailbox_size: int,
        idle_timeout: float,
        restart_limit: int,
        restart_window: float,
        turn_records: int,
        turn_record_bytes: int = 16 * 2**20,
        durable: bool = False,
        sessions: dict[str, Session] | None = None,
    ) -> None:
        self.config = config
        self._make_session = make_session
        self._start = start
        self._mailbox_size = mailbox_size
        self._idle_timeout = idle_timeout
        self._restart_limit = restart_limit
        self._restart_window = restart_window
        self._turn_limit = turn_records
        self.sessions: dict[str, Session] = sessions if sessions is not None else {}
        self._actors: dict[str, ConversationActor] = {}
        self._failed: dict[str, BaseException] = {}
        self._turns: collections.OrderedDict[str, Ticket] = collections.OrderedDict()
        self._byte_limit = turn_record_bytes
        self.durable = durable
        """A store holds every record: a compact one is reloaded from it when asked for."""
        self._whole: collections.OrderedDict[str, int] = collections.OrderedDict()
        """Finished turns kept whole, oldest first, with what each costs (bytes)."""
        self._whole_bytes = 0
        self._settled: collections.OrderedDict[str, Settled] = collections.OrderedDict()
        self._running: set[Ticket] = set()
        self._nursery: trio.Nursery | None = None
        self.accepting = True
        self.activations = 0
        self.passivations = 0
        self.restarts = 0

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Own every actor's task until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            await trio.sleep_forever()

    # ---------------------------------------------------------------- routing

    def enqueue(self, ticket: Ticket, *, resumed: bool = False) -> None:
        """Queue a new turn in its conversation's run mailbox (the runtime checked its id).

        Raises :class:`BusyError` when the conversation's run mailbox is full,
        :class:`DrainingError` while shutting down, and ``ConversationFailedError`` for a
        conversation whose actor was stopped.
        """
        if not resumed:  # a turn resumed from its checkpoint is not a new run
            self.check_accepting(ticket.conversation_id)
        actor = self._actors.get(ticket.key) or self._activate(ticket.key)
        try:
            actor.runs.put_nowait(ticket, over_capacity=resumed)
        except trio.WouldBlock:
            raise self._busy(ticket.conversation_id) from None
        self._remember(ticket)

    def check_accepting(self, conversation_id: str | None) -> None:
        """Raise what :meth:`enqueue` would raise for a run of this conversation now."""
        if not self.accepting or self._nursery is None:
            raise DrainingError("The agent is shutting down and takes no new runs.")
        key = conversation_key(conversation_id)
        failure = self._failed.get(key)
        if failure is not None:
            raise ConversationFailedError(
                f"Conversation {conversation_id!r} was stopped after its actor crashed "
                f"{self._restart_limit} times within {self._restart_window:g} s (last error: "
                f"{type(failure).__name__}: {failure}). Restart the agent to use it again."
            ) from failure
        actor = self._actors.get(key)
        if actor is not None and len(actor.runs) >= self._mailbox_size:
            raise self._busy(conversation_id)

    def _busy(self, conversation_id: str | None) -> BusyError:
        return BusyError(
            f"Conversation {conversation_id!r} already has {self._mailbox_size} runs "
            "queued; wait for one to finish and try again."
        )

    def ticket(self, turn_id: str) -> Ticket | None:
        """The turn with this id: queued, running, or finished — whole, or ``compact`` (its
        status and a bounded final message: :class:`Settled`) once the byte budget let go of
        its result."""
        ticket = self._turns.get(turn_id)
        if ticket is not None:
            return ticket
        record = self._settled.get(turn_id)
        return record.ticket(turn_id) if record is not None else None

    def resubmitted(self, turn_id: str) -> Ticket | None:
        """A turn id seen before (at-most-once delivery): kept as the most recent record."""
        ticket = self._turns.get(turn_id)
        if ticket is not None:
            self._turns.move_to_end(turn_id)
            return ticket
        record = self._settled.get(turn_id)
        if record is None:
            return None
        self._settled.move_to_end(turn_id)
        return record.ticket(turn_id)

    def cancel(self, turn_id: str, reason: str = "client") -> bool:
        """Cancel a turn: through its actor's control mailbox when running, at once when queued."""
        ticket = self._turns.get(turn_id)
        if ticket is None:
            return False
        if ticket.done.is_set():
            return True
        actor = self._actors.get(ticket.key)
        if ticket.scope is not None and actor is not None and actor.control is not None:
            try:
                actor.control.put_nowait(Cancel(turn_id=turn_id, reason=reason))
                return True
            except trio.WouldBlock:
                pass
        if ticket.scope is None and self._nursery is not None:
            if ticket.cancel_queued(reason):  # it never runs, but its observers see it aborted
                self._nursery.start_soon(self._cancel_queued, ticket)  # (D6), the journal too
            return True
        ticket.cancel(reason)
        return True

    async def _cancel_queued(self, ticket: Ticket) -> None:
        """End a queued turn: its observers see it aborted, the journal records it."""
        try:
            if self.config.extensions:  # enter the turn already cancelled: only observers run
                session = await self._session(ticket.key)
                with trio.CancelScope() as scope:
                    scope.cancel()
                    await run_turn(self.config, session, ticket.request, _no_model)
        except Exception:  # the observers' own failures cannot change a cancelled turn
            pass
        finally:
            ticket.cancel(ticket.cancel_reason or "client")
            if ticket.journal is not None:
                with trio.CancelScope(shield=True):
                    await ticket.journal.finish(ticket)

    def confirm(self, turn_id: str, call_id: str, decision: Decision) -> str:
        """Deliver a confirmation reply: ``"ok"``, ``"unknown"``, ``"answered"`` (already was)
        or ``"expired"`` (the turn stopped waiting: its deadline passed, or it ended)."""
        ticket = self._turns.get(turn_id)
        if ticket is None or call_id not in ticket.pending:
            return "unknown"
        pending = ticket.pending[call_id]
        if pending.expired:
            return "expired"
        if pending.answered.is_set():
            return "answered"
        actor = self._actors.get(ticket.key)
        message = ConfirmReply(
            turn_id=turn_id, call_id=call_id, approved=decision.approved, reason=decision.reason
        )
        try:
            if actor is None or actor.control is None:
                raise trio.WouldBlock
            actor.control.put_nowait(message)
        except trio.WouldBlock:
            pending.resolve(decision)
        return "ok"

    def _remember(self, ticket: Ticket) -> None:
        """Keep a new turn's record; bounded by count (``turn_records``) and, for whole
        results, by bytes (``turn_record_bytes``), oldest first."""
        self._turns[ticket.turn_id] = ticket
        ticket.tell_when_done(self._finished)
        while len(self._turns) + len(self._settled) > self._turn_limit:
            if self._settled:
                self._settled.popitem(last=False)
                continue
            oldest_id, oldest = next(iter(self._turns.items()))
            if not oldest.done.is_set():
                break  # never forget a turn that is still queued or running
            self._forget_whole(oldest_id)
            del self._turns[oldest_id]

    def _finished(self, ticket: Ticket) -> None:
        """A turn ended: its whole record counts against the byte budget, which lets go of
        the oldest whole results first, keeping each as status and bounded message."""
        if self._turns.get(ticket.turn_id) is not ticket or ticket.turn_id in self._whole:
            return
        cost = record_bytes(ticket)
        self._whole[ticket.turn_id] = cost
        self._whole_bytes += cost
        while self._whole_bytes > self._byte_limit and self._whole:
            turn_id = next(iter(self._whole))
            self._forget_whole(turn_id)
            kept = self._turns.pop(turn_id, None)
            if kept is not None:
                self._settled[turn_id] = settled(kept)

    def _forget_whole(self, turn_id: str) -> None:
        self._whole_bytes -= self._whole.pop(turn_id, 0)

    # ---------------------------------------------------------------- actors

    def _activate(self, key: str) -> ConversationActor:
        """Create and start the actor (synchronous, so activation is single-flight)."""
        assert self._nursery is not None
        actor = ConversationActor(
            key,
            mailbox_size=self._mailbox_size,
            config=self.config,
            open_session=lambda: self._session(key),
            start=self._start,
        )
        self._actors[key] = actor
        self.activations += 1
        self._nursery.start_soon(self._supervise, actor, name=f"conversation:{key or '<default>'}")
        return actor

    async def session(self, conversation_id: str | None) -> Session:
        """The conversation's session (memory and counters), created on first use."""
        return await self._session(conversation_key(conversation_id))

    async def memory_session(self, conversation_id: str | None) -> Session:
        """The conversation's session for reading or clearing its memory.

        An active conversation's own session; otherwise a fresh one that is *not* kept, so
        asking about ever-new conversations caches nothing (a conversation that never ran has
        an empty in-process memory, and a store-backed one reads the store).
        """
        key = conversation_key(conversation_id)
        session = self.sessions.get(key)
        if session is not None:
            return session
        return await self._make_session(key or None)

    async def _session(self, key: str) -> Session:
        session = self.sessions.get(key)
        if session is None:
            session = await self._make_session(key or None)
            self.sessions[key] = session
        return session

    def _passivate(self, actor: ConversationActor) -> bool:
        """Retire an idle actor. Its session goes too when its memory lives in the store.

        In-process memory lives in the session, so that session must stay (the conversation
        would forget); store-backed memory reloads on the next message, so a daemon meeting
        ever-new conversations keeps only the ones that are active.
        """
        if self._actors.get(actor.key) is actor and not actor.has_queued_runs():
            del self._actors[actor.key]
            self.passivations += 1
            session = self.sessions.get(actor.key)
            if session is not None and getattr(session.memory, "reloads", False):
                del self.sessions[actor.key]
            return True
        return False

    async def _supervise(self, actor: ConversationActor) -> None:
        crashes: list[float] = []  # allocated per actor, so kept small; grows only on crashes
        while True:
            try:
                await actor.serve(idle_timeout=self._idle_timeout, passivate=self._passivate)
                return
            except Exception as exc:
                now = trio.current_time()
                crashes = [at for at in crashes if now - at <= self._restart_window] + [now]
                if len(crashes) >= self._restart_limit:
                    logger.error(
                        "conversation %r stopped: its actor crashed %d times within %g s",
                        actor.key or None,
                        len(crashes),
                        self._restart_window,
                        exc_info=exc,
                    )
                    self._stop_failed(actor, exc)
                    return
                logger.warning(
                    "conversation %r: its actor crashed; restarting it",
                    actor.key or None,
                    exc_info=exc,
                )
                self.restarts += 1

    def _stop_failed(self, actor: ConversationActor, error: BaseException) -> None:
        self._failed[actor.key] = error
        if self._actors.get(actor.key) is actor:
            del self._actors[actor.key]
        failure = ConversationFailedError(
            f"Conversation {actor.key or None!r} was stopped after its actor crashed "
            f"{self._restart_limit} times within {self._restart_window:g} s (last error: "
            f"{type(error).__name__}: {error})."
        )
        failure.__cause__ = error
        actor.runs.close()
        while True:
            try:
                ticket = actor.runs.get_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                break
            ticket.fail(failure, code="conversation_failed")
            ticket.send(
                Failure(turn_id=ticket.turn_id, code="conversation_failed", message=str(failure))
            )

    # ---------------------------------------------------------------- lifecycle

    def running(self) -> list[Ticket]:
        return [t for t in self._turns.values() if not t.done.is_set()]

    async def drain(self, grace: float) -> None:
        """Stop accepting runs; wait up to ``grace`` seconds for queued and running turns."""
        self.accepting = False
        with trio.move_on_after(grace):
            for ticket in self.running():
                if not ticket.parkable:  # a turn waiting on a person is parked, not awaited
                    await ticket.done.wait()

    def statistics(self) -> SupervisorStatistics:
        return SupervisorStatistics(
            active_actors=len(self._actors),
            sessions=len(self.sessions),
            running_turns=sum(1 for a in self._actors.values() if a.current is not None),
            failed_conversations=len(self._failed),
            activations=self.activations,
            passivations=self.passivations,
            restarts=self.restarts,
            turn_records=len(self._turns) + len(self._settled),
            turn_record_bytes=self._whole_bytes,
            compact_records=len(self._settled),
        )

    def describe(self) -> dict[str, Any]:
        return attrs.asdict(self.statistics())
