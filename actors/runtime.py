"""The runtime of one agent: a supervisor of conversation actors and a model worker.

``Runtime.serve`` speaks the nursery start protocol (``await nursery.start(runtime.serve)``),
so the caller knows it is ready and nothing it starts runs unowned.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NoReturn

import attrs
import trio

from goliath.config import AgentConfig, TurnRequest
from goliath.models import GenerateRequest, Generation
from goliath.records import ConfirmRequest, Decision
from goliath.session import Session

from .messages import ConfirmAsk, EventMessage, Outbound
from .model_worker import ModelSource, ModelWorker
from .supervisor import Supervisor
from .ticket import PendingConfirm, Ticket

__all__ = ["Runtime", "RuntimeLimits"]


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
    ) -> None:
        self.limits = limits or RuntimeLimits()
        self.model_worker = ModelWorker(
            model, slots=self.limits.model_slots, queue_limit=self.limits.model_queue
        )
        self.supervisor = Supervisor(
            config=config,
            make_session=make_session,
            generate=self._generate,
            mailbox_size=self.limits.run_mailbox,
            idle_timeout=self.limits.idle_timeout,
            restart_limit=self.limits.restart_limit,
            restart_window=self.limits.restart_window,
            turn_records=self.limits.turn_records,
            sessions=sessions,
        )
        self.ready = False

    async def _generate(self, request: GenerateRequest, key: str, turn_id: str) -> Generation:
        return await self.model_worker.generate(request, conversation=key, turn_id=turn_id)

    async def serve(
        self, *, task_status: trio.TaskStatus[Runtime] = trio.TASK_STATUS_IGNORED
    ) -> NoReturn:
        async with trio.open_nursery() as nursery:
            await nursery.start(self.model_worker.serve)
            await nursery.start(self.supervisor.serve)
            self.ready = True
            task_status.started(self)
            await trio.sleep_forever()
        raise AssertionError("unreachable")  # pragma: no cover

    # ---------------------------------------------------------------- the front door

    def submit(self, request: TurnRequest) -> Ticket:
        """Queue an in-process run (callbacks are called inside the conversation actor)."""
        return self.supervisor.submit(request)

    def submit_remote(self, request: TurnRequest, outbox: Callable[[Outbound], None]) -> Ticket:
        """Queue a run for a remote client: events, confirmation asks and the end go to ``outbox``.

        A write waits for a :class:`~actors.messages.ConfirmReply` from the client (delivered
        with :meth:`confirm`), not for a callback in the server.
        """
        holder: list[Ticket] = []

        async def confirm(ask: ConfirmRequest) -> Decision:
            ticket = holder[0]
            pending = ticket.pending.setdefault(ask.call_id, PendingConfirm(ask.call_id))
            ticket.status = "awaiting_confirmation"
            ticket.send(
                ConfirmAsk(
                    turn_id=ticket.turn_id,
                    call_id=ask.call_id,
                    tool=ask.tool,
                    input=ask.input,
                    brief=ask.brief,
                    conversation_id=ask.conversation_id,
                )
            )
            try:
                await pending.answered.wait()
            finally:
                if ticket.status == "awaiting_confirmation":
                    ticket.status = "running"
            assert pending.decision is not None
            return pending.decision

        def on_event(event: object) -> None:
            ticket = holder[0]
            ticket.send(EventMessage(turn_id=ticket.turn_id, event=event))  # type: ignore[arg-type]

        remote = attrs.evolve(request, confirm=confirm, on_event=on_event)
        ticket = self.supervisor.submit(remote, outbox)
        if not holder:
            holder.append(ticket)
        return ticket

    def cancel(self, turn_id: str, reason: str = "client") -> bool:
        return self.supervisor.cancel(turn_id, reason)

    def confirm(self, turn_id: str, call_id: str, decision: Decision) -> str:
        return self.supervisor.confirm(turn_id, call_id, decision)

    async def drain(self, grace: float | None = None) -> None:
        await self.supervisor.drain(self.limits.drain_grace if grace is None else grace)
