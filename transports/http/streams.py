"""A turn's events as a Server-Sent Events response (sse-starlette), each write bounded.

:func:`event_stream` answers with a turn's feed (:mod:`transports.feeds`), or, for a turn whose
events were not kept here, with a :class:`WaitingFeed`: just its end, once it has one.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator

import trio
from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.sse import SendTimeoutError
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from actors.messages import Failure, Outbound, ResultMessage, TurnStatus
from actors.runtime import Runtime, final_message, unscoped

from ..feeds import TurnFeed, sse_event, wire_event

__all__ = ["HEARTBEAT_SECONDS", "LAST_SEND_SECONDS", "WaitingFeed", "event_stream"]

HEARTBEAT_SECONDS = 15.0
"""Idle SSE streams get a comment line this often, so proxies keep them open."""
LAST_SEND_SECONDS = 10.0
"""How long the last send of an event stream may take once shielded from cancellation."""


class _ClosingEventSourceResponse(EventSourceResponse):
    """sse-starlette's response, with its last send shielded so finished connections close.

    The last send (``more_body: False``) ends the response, and Hypercorn closes the
    connection — or recycles it with its keep-alive timer — inside that very send. Doing so
    wakes the response's disconnect watcher, whose cancellation of the response's task group
    would cut the send short: the connection then stayed open forever, its keep-alive timer
    never set (200 finished runs held 200 descriptors).
    """

    writers: trio.Nursery | None = None
    send_seconds: float = math.inf

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        writers, limit = self.writers, self.send_seconds

        async def bounded(message: Message) -> None:
            """One write, given up after ``send_seconds`` (a client that does not read).

            Hypercorn shields its socket writes from cancellation, so a write to a client
            that never reads would wait forever; it runs in the front door's ``writers``
            nursery instead, and when it is given up the response ends with
            ``SendTimeoutError``: Hypercorn then closes the connection, which ends the write.
            """
            if writers is None or not math.isfinite(limit):
                await send(message)
                return
            written = trio.Event()
            failed: list[Exception] = []

            async def write() -> None:
                try:
                    await send(message)
                except Exception as exc:  # handed to the response, which raises it
                    failed.append(exc)
                finally:
                    written.set()

            writers.start_soon(write)
            with trio.move_on_after(limit):
                await written.wait()
            if not written.is_set():
                raise SendTimeoutError()
            if failed:
                raise failed[0]

        async def send_last_whole(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                with trio.move_on_after(LAST_SEND_SECONDS, shield=True):
                    await bounded(message)
                return
            await bounded(message)

        await super().__call__(scope, receive, send_last_whole)


def event_stream(
    feed: TurnFeed | WaitingFeed,
    after: int,
    send_seconds: float,
    writers: trio.Nursery | None = None,
) -> Response:
    """A turn's events as SSE; a client that does not read for ``send_seconds`` is dropped
    (its turn goes on; its stream can be resumed)."""
    response = _ClosingEventSourceResponse(
        feed.follow(after),
        headers={"cache-control": "no-cache", "x-goliath-turn-id": feed.turn_id},
        ping=HEARTBEAT_SECONDS,
        ping_message_factory=lambda: ServerSentEvent(comment="keep-alive", sep="\n"),
        sep="\n",
    )
    response.writers = writers
    response.send_seconds = send_seconds
    return response


class WaitingFeed:
    """Just a turn's last event (``result`` or ``error``), waiting for it when it still runs.

    ``key`` is the runtime's id of the turn; ``status`` (and :attr:`turn_id`) are as its
    caller sees them (``scope`` taken off: :func:`actors.runtime.turn_scope`).
    """

    def __init__(self, runtime: Runtime, key: str, status: TurnStatus, scope: str = "") -> None:
        self.runtime = runtime
        self.key = key
        self.scope = scope
        self.turn_id = status.turn_id
        self.status = status

    async def follow(self, after: int = 0) -> AsyncIterator[ServerSentEvent]:
        ticket = self.runtime.ticket(self.key)
        if ticket is not None and not (ticket.compact and self.runtime.durable):
            await ticket.done.wait()  # (a compact one: the status read from the store instead)
            message: Outbound = unscoped(final_message(ticket), self.scope)
        elif self.status.result is not None:
            message = ResultMessage(turn_id=self.turn_id, result=self.status.result)
        else:
            message = Failure(
                turn_id=self.turn_id,
                code="interrupted" if self.status.status == "interrupted" else "error",
                message=f"the turn is {self.status.status}; its events were not kept",
            )
        wired = wire_event(message)
        assert wired is not None
        name, payload, _ = wired
        yield sse_event(name, payload)
