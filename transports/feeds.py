"""A turn's Server-Sent Events, kept so a client that lost its connection can resume.

Every event of a turn's stream gets an ``id:`` — 1, 2, 3, … in the order sent — and the
front door keeps the turn's events in a :class:`TurnFeed`. A client that reconnects with
``Last-Event-ID: N`` (``GET /v1/turns/{turn_id}/events``, or the same ``POST .../runs`` with
the same ``turn_id``) gets the events after ``N`` and then the rest as they happen, never one
twice. Feeds are bounded: :data:`MAX_FEEDS` turns, :data:`MAX_EVENTS` events each. A turn's
events and asks are also journalled with its record (``actors.ticket.Ticket.log``): after a
restart the front door builds its feed again from them, numbered as before.
"""

from __future__ import annotations

import collections
import collections.abc
import sys
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import trio
from sse_starlette import ServerSentEvent

from actors.messages import (
    ConfirmAsk,
    EventMessage,
    Failure,
    Outbound,
    ResultMessage,
    Token,
)
from goliath.snapshot import json_snapshot

__all__ = [
    "MAX_EVENTS",
    "MAX_FEEDS",
    "MAX_FEEDS_BYTES",
    "MAX_FEED_BYTES",
    "Feeds",
    "TurnFeed",
    "sse_event",
]

MAX_FEEDS = 1024
"""Turns whose events are kept for resuming (the oldest finished ones are dropped first)."""
MAX_EVENTS = 20_000
"""Events kept per turn; a longer turn keeps its newest (a resume from before them starts at
the oldest kept)."""
MAX_FEED_BYTES = 8 * 2**20
"""Bytes of events kept per turn (its newest, as for :data:`MAX_EVENTS`)."""
MAX_FEEDS_BYTES = 16 * 2**20
"""Bytes of events kept for all turns together: past it the oldest finished feeds are
dropped (a client resuming one of them is answered from the runtime, or the store)."""
SEPARATOR = "\n"

_encoder = msgspec.json.Encoder()


def sse_event(event: str, payload: Any, event_id: int | None = None) -> ServerSentEvent:
    """One Server-Sent Event: ``event:`` its name, ``data:`` its JSON, ``id:`` when given."""
    data = payload if isinstance(payload, bytes) else _encoder.encode(payload)
    return ServerSentEvent(
        data.decode(),
        event=event,
        id=None if event_id is None else str(event_id),
        sep=SEPARATOR,
    )


def wire_event(message: Outbound) -> tuple[str, Any, bool] | None:
    """The SSE name and payload of one runtime message, and whether it ends the stream."""
    match message:
        case EventMessage(event=event):
            return event.type, event, False
        case Token(text=text):
            return "token", {"text": text}, False
        case ConfirmAsk():
            payload = {
                "turn_id": message.turn_id,
                "call_id": message.call_id,
                "tool": message.tool,
                "input": message.input,
                "brief": message.brief,
                "after_tool": message.after_tool,
                "fingerprint": message.fingerprint,
            }
            return "confirm_request", payload, False
        case ResultMessage(result=result):
            return "result", json_snapshot(result), True
        case Failure(code=code, message=text):
            return "error", {"code": code, "message": text}, True
    return None


class TurnFeed:
    """The numbered events of one turn's stream, for its first reader and any that resume.

    A ``confirm_request`` that has been answered (its ``confirm`` event came) is not sent to a
    reader that reaches it later: the question is over, and answering it again is a 409.
    """

    def __init__(
        self,
        turn_id: str,
        conversation_id: str,
        payload: str = "",
        *,
        byte_limit: int = MAX_FEED_BYTES,
        sized: collections.abc.Callable[[int], None] | None = None,
    ) -> None:
        self.turn_id = turn_id
        self.conversation_id = conversation_id
        self.payload = payload
        """The run's ask and context (:func:`goliath.durable.payload_fingerprint`): the same
        turn id with another request is refused, never answered from this feed."""
        self.finished = False
        self._events: collections.deque[ServerSentEvent] = collections.deque(maxlen=MAX_EVENTS)
        self._next_id = 1
        self._asking: list[int] = []
        """Ids of ``confirm_request`` events not yet answered, oldest first."""
        self._answered: set[int] = set()
        """Ids of ``confirm_request`` events whose ``confirm`` came: a resuming reader skips them."""
        self._changed = trio.Event()
        self.bytes = 0
        """What its kept events weigh (their data)."""
        self._byte_limit = byte_limit
        self._sized = sized
        self.push("turn", {"turn_id": turn_id, "conversation_id": conversation_id})

    def push(self, name: str, payload: Any, *, last: bool = False) -> None:
        if self.finished:
            return
        event = sse_event(name, payload, self._next_id)
        before = self.bytes
        if len(self._events) == self._events.maxlen:
            self.bytes -= _weight(self._events[0])
        self._events.append(event)
        self.bytes += _weight(event)
        while self.bytes > self._byte_limit and len(self._events) > 1:
            self.bytes -= _weight(self._events.popleft())  # the newest are kept
        if self._sized is not None:
            self._sized(self.bytes - before)
        if name == "confirm_request":
            self._asking.append(self._next_id)
        elif name == "confirm" and self._asking:
            self._answered.add(self._asking.pop(0))
        self._next_id += 1
        self.finished = last
        changed, self._changed = self._changed, trio.Event()
        changed.set()

    def outbox(self, message: Outbound) -> None:
        """Where the runtime sends the turn's messages (never blocks the turn)."""
        wired = wire_event(message)
        if wired is not None:
            name, payload, last = wired
            self.push(name, payload, last=last)

    async def follow(self, after: int = 0) -> AsyncIterator[ServerSentEvent]:
        """The events with an id above ``after``, then each new one, until the last."""
        position = max(after, 0)
        while True:
            oldest = self._next_id - len(self._events)
            position = max(position, oldest - 1)
            if position < self._next_id - 1:
                event = self._events[position + 1 - oldest]
                position += 1
                if position not in self._answered:  # an answered ask is history, not a question
                    yield event
                continue
            if self.finished:
                return
            await self._changed.wait()


def _weight(event: ServerSentEvent) -> int:
    """What an event's data costs in memory (a text with one non-ASCII character costs two or
    four bytes a character, not one)."""
    return sys.getsizeof(event.data or "")


class Feeds:
    """The feeds of recent turns, by turn id; bounded by :data:`MAX_FEEDS` and by
    :data:`MAX_FEEDS_BYTES` (finished feeds go first, oldest first)."""

    def __init__(
        self,
        limit: int = MAX_FEEDS,
        *,
        byte_limit: int = MAX_FEEDS_BYTES,
        feed_byte_limit: int = MAX_FEED_BYTES,
    ) -> None:
        self._limit = limit
        self._byte_limit = byte_limit
        self._feed_byte_limit = feed_byte_limit
        self.bytes = 0
        """What every kept feed's events weigh together."""
        self._feeds: collections.OrderedDict[str, TurnFeed] = collections.OrderedDict()

    def _sized(self, change: int) -> None:
        self.bytes += change
        if self.bytes > self._byte_limit:
            self._trim()

    def _trim(self) -> None:
        """Drop the oldest finished feeds while over the byte budget (running ones stay: each
        is bounded by its own limit)."""
        for key in [key for key, feed in self._feeds.items() if feed.finished]:
            if self.bytes <= self._byte_limit:
                return
            self._drop(key)

    def _drop(self, key: str) -> None:
        feed = self._feeds.pop(key, None)
        if feed is not None:
            self.bytes -= feed.bytes
            feed._sized = None

    def get(self, turn_id: str) -> TurnFeed | None:
        return self._feeds.get(turn_id)

    def open(
        self, turn_id: str, conversation_id: str, payload: str = "", *, key: str | None = None
    ) -> TurnFeed:
        """A new feed for ``turn_id`` (as its caller calls it), kept under ``key`` — the
        runtime's id of the turn (a user's turn ids are scoped: ``actors.runtime.turn_scope``)."""
        key = turn_id if key is None else key
        self._drop(key)
        feed = TurnFeed(
            turn_id,
            conversation_id,
            payload,
            byte_limit=self._feed_byte_limit,
            sized=self._sized,
        )
        self._feeds[key] = feed  # (its first event is counted already)
        while len(self._feeds) > self._limit:
            finished = next((key for key, old in self._feeds.items() if old.finished), None)
            self._drop(finished if finished is not None else next(iter(self._feeds)))
        return feed

    def discard(self, turn_id: str) -> None:
        self._drop(turn_id)
