"""One actor per conversation: its session (memory, counters), a run mailbox and a control one.

Runs are taken from the run mailbox one at a time, in order. While a turn runs, the control
mailbox is served beside it, so a ``Cancel`` or a ``ConfirmReply`` reaches the turn at once
instead of waiting behind it. Each turn gets its own cancel scope.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable

import trio

from goliath.config import AgentConfig
from goliath.errors import TurnCancelled
from goliath.models import GenerateRequest, Generation, TextSink
from goliath.session import Session
from goliath.turn import run_turn

from .mailbox import Mailbox
from .messages import Cancel, ConfirmReply, Control, Failure, ResultMessage
from .model_worker import RunningCall, StartCall
from .ticket import Ticket

__all__ = ["ConversationActor"]

JOURNAL_SECONDS = 10.0
"""How long a cancelled or failed turn may spend writing its end to the store."""
CONTROL_MAILBOX = 64
"""Control messages that may wait for an actor at once (cancels and confirmation replies)."""


class ConversationActor:
    """Serves one conversation's runs in order; see the module docstring."""

    def __init__(
        self,
        key: str,
        *,
        mailbox_size: int,
        config: AgentConfig,
        open_session: Callable[[], Awaitable[Session]],
        start: StartCall,
    ) -> None:
        self.key = key
        self.config = config
        self._open_session = open_session
        self._start = start
        self.runs: Mailbox[Ticket] = Mailbox(mailbox_size)
        self.control: Mailbox[Control] | None = None  # exists only while a turn runs
        self.current: Ticket | None = None
        self.turns_run = 0

    def has_queued_runs(self) -> bool:
        return len(self.runs) > 0

    async def serve(
        self, *, idle_timeout: float, passivate: Callable[[ConversationActor], bool]
    ) -> None:
        """Serve runs until idle for ``idle_timeout`` seconds and ``passivate(self)`` agrees.

        Raises whatever breaks the actor itself (its supervisor restarts it); a turn's own
        failure is that turn's result, never the actor's.
        """
        session = await self._open_session()
        while True:
            ticket: Ticket | None = None
            with trio.move_on_after(idle_timeout if idle_timeout > 0 else math.inf):
                ticket = await self.runs.get()
            if ticket is None:
                if not self.has_queued_runs() and passivate(self):
                    return
                continue
            if ticket.done.is_set() or ticket.cancel_reason is not None:
                continue  # cancelled while queued (the supervisor answered it)
            await self._run(ticket, session)

    async def _run(self, ticket: Ticket, session: Session) -> None:
        self.current = ticket
        self.control = control = Mailbox[Control](CONTROL_MAILBOX)
        resumed = ticket.request.resume is not None
        key = self.key

        port = _ModelPort(self._start, key, ticket.turn_id)

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._serve_control, ticket, control)
                with trio.CancelScope() as scope:
                    ticket.running_in(scope)  # a resumed turn still waits on its paused write
                    try:
                        if ticket.journal is not None and not resumed:
                            await ticket.journal.update(ticket, "running")
                        result = await run_turn(self.config, session, ticket.request, port)
                    except Exception as exc:
                        ticket.fail(exc)
                        await _finish_record(ticket)
                        ticket.send(
                            Failure(
                                turn_id=ticket.turn_id,
                                code="error",
                                message=str(exc) or type(exc).__name__,
                            )
                        )
                    else:
                        if ticket.journal is not None:  # durable before anyone hears of it
                            with trio.CancelScope(shield=True):
                                await ticket.journal.finish(ticket, result)
                        ticket.succeed(result)
                        ticket.send(ResultMessage(turn_id=ticket.turn_id, result=result))
                nursery.cancel_scope.cancel()
        finally:
            self.turns_run += 1
            self.current = None
            self.control = None
            ticket.stopped()
            if ticket.parked and not ticket.done.is_set():
                ticket.fail(
                    TurnCancelled(f"turn {ticket.turn_id} was parked for a restart"),
                    status="awaiting_confirmation",
                    code="shutdown",
                )
                ticket.send(
                    Failure(
                        turn_id=ticket.turn_id,
                        code="shutdown",
                        message="the daemon is restarting; this turn keeps waiting for its "
                        "confirmation: run it again with the same turn id to rejoin it",
                    )
                )
            elif not ticket.done.is_set():
                reason = ticket.cancel_reason or "shutdown"
                ticket.fail(
                    TurnCancelled(f"turn {ticket.turn_id} was cancelled ({reason})"),
                    status="cancelled",
                    code="cancelled",
                )
                await _finish_record(ticket)
                ticket.send(
                    Failure(
                        turn_id=ticket.turn_id,
                        code="cancelled",
                        message=f"the turn was cancelled ({reason}){_what_ran(ticket)}",
                    )
                )

    async def _serve_control(self, ticket: Ticket, control: Mailbox[Control]) -> None:
        while True:
            message = await control.get()
            if message.turn_id != ticket.turn_id:
                continue  # addressed to a turn that already ended
            match message:
                case Cancel(reason=reason):
                    ticket.cancel(reason)
                case ConfirmReply(call_id=call_id, approved=approved, reason=reason):
                    pending = ticket.pending.get(call_id)
                    if pending is not None:
                        from goliath.records import Decision

                        pending.resolve(Decision(approved=approved, reason=reason))


class _ModelPort:
    """The turn's way to the model worker: a call, or two phases (started, then the result)."""

    __slots__ = ("_conversation", "_start", "_turn_id")

    def __init__(
        self,
        start: StartCall,
        conversation: str,
        turn_id: str,
    ) -> None:
        self._start = start
        self._conversation = conversation
        self._turn_id = turn_id

    async def start(
        self, request: GenerateRequest, *, on_text: TextSink | None = None
    ) -> RunningCall:
        return await self._start(request, self._conversation, self._turn_id, on_text)

    async def __call__(self, request: GenerateRequest) -> Generation:
        call = await self.start(request)
        return await call.result()


def _what_ran(ticket: Ticket) -> str:
    """For a cancelled turn's last message: the writes it made before it stopped."""
    ran = [
        step
        for step in ticket.steps
        if step.kind == "tool" and step.writes and not (step.skipped or step.cached)
    ]
    if not ran:
        return ""
    names = ", ".join(
        f"{step.tool} (outcome unknown)" if step.outcome_unknown else str(step.tool) for step in ran
    )
    return (
        f" after it wrote: {names}. Its steps are in its record (GET the turn) and in the "
        "conversation's memory; do not repeat the write without checking"
    )


async def _finish_record(ticket: Ticket) -> None:
    """Journal a turn that ended without a result (shielded: it runs while cancelling)."""
    if ticket.journal is not None:
        with trio.CancelScope(shield=True), trio.move_on_after(JOURNAL_SECONDS):
            await ticket.journal.finish(ticket)
