"""The closed family of messages the runtime speaks, as tagged msgspec Structs.

Every message carries the ``turn_id`` it concerns and says what it is in ``type``; each mailbox
decodes exactly its own union. JSON at the public edge, MessagePack inside and on sockets.
Stored and exchanged between nodes of different versions, so (msgspec's schema-evolution
rules) new fields get defaults and existing types never change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import msgspec

from goliath.durable import PendingCall
from goliath.events import Event
from goliath.models import GenerateRequest
from goliath.records import MemoryState, RunResult, StepRecord
from goliath.snapshot import json_snapshot

__all__ = [
    "MAX_NESTING",
    "Ack",
    "AnyMessage",
    "Cancel",
    "ConfirmAsk",
    "ConfirmReply",
    "Control",
    "DeleteMemory",
    "EventMessage",
    "Failure",
    "FailureCode",
    "Generate",
    "GetMemory",
    "GetTurn",
    "Hello",
    "Inbound",
    "MemoryReply",
    "Message",
    "Outbound",
    "Outbox",
    "ResultMessage",
    "Run",
    "TicketStatus",
    "Token",
    "TurnStatus",
    "decode_json",
    "decode_msgpack",
    "encode_json",
    "encode_msgpack",
    "nested_too_deeply",
    "nesting",
]


class Message(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    """Base of every runtime message."""

    turn_id: str

    @property
    def type(self) -> str:
        tag = self.__struct_config__.tag
        assert isinstance(tag, str)
        return tag


class Run(Message, tag="run", frozen=True):
    """Start a turn: ``ask`` in ``conversation_id`` (``None`` is the default conversation)."""

    ask: str
    conversation_id: str | None = None
    context: Any = None


class Cancel(Message, tag="cancel", frozen=True):
    """Stop the turn at its next checkpoint (or drop it if it is still queued).

    With ``conversation_id`` set, a turn of another conversation is refused.
    """

    reason: str = "client"
    conversation_id: str | None = None


class ConfirmReply(Message, tag="confirm_reply", frozen=True):
    """A person's answer to a pending :class:`ConfirmAsk`.

    With ``fingerprint`` (the ask's), an answer meant for another write is refused.
    """

    call_id: str
    approved: bool
    reason: str | None = None
    conversation_id: str | None = None
    fingerprint: str | None = None


class ConfirmAsk(Message, tag="confirm_request", frozen=True):
    """A write is waiting for approval; answer with a :class:`ConfirmReply` for ``call_id``.

    ``after_tool``: the tool whose result the model read just before planning this write.
    ``fingerprint`` binds the answer to this write: echo it in the reply.
    """

    call_id: str
    tool: str
    input: dict[str, Any]
    brief: str
    conversation_id: str | None = None
    after_tool: str | None = None
    fingerprint: str = ""


class EventMessage(Message, tag="event", frozen=True):
    """A trace event of a running turn."""

    event: Event


class Token(Message, tag="token", frozen=True):
    """A piece of a running turn's prose answer, as the model writes it (never in the trace)."""

    text: str


class ResultMessage(Message, tag="result", frozen=True):
    """The turn finished; the last message of a turn that completed."""

    result: RunResult


FailureCode = Literal[
    "busy",
    "cancelled",
    "conflict",
    "conversation_failed",
    "draining",
    "error",
    "forbidden",
    "interrupted",
    "invalid",
    "not_found",
    "shutdown",
    "too_large",
    "unauthorized",
]


class Failure(Message, tag="failure", frozen=True):
    """The turn did not produce a result; ``code`` says why, ``message`` says what to do."""

    code: FailureCode
    message: str


class Generate(Message, tag="generate", frozen=True):
    """A model call requested by a turn, queued at the model worker."""

    request: GenerateRequest
    conversation_id: str | None = None


TicketStatus = Literal[
    "queued", "running", "awaiting_confirmation", "done", "cancelled", "interrupted", "failed"
]
"""Where a turn stands in the runtime (a ticket's, a record's, a :class:`TurnStatus`'s status).
Not :class:`goliath.turn.state.TurnState`, which is what a running turn knows."""


class TurnStatus(Message, tag="turn_status", frozen=True):
    """Where a turn stands (``GET /v1/turns/{turn_id}``).

    ``pending``: the write it waits on (``awaiting_confirmation``); ``steps``: what a turn
    without a result did (cancelled, interrupted, still running).
    """

    conversation_id: str | None
    status: TicketStatus
    result: RunResult | None = None
    pending: PendingCall | None = None
    steps: list[StepRecord] = msgspec.field(default_factory=list)


class GetTurn(Message, tag="get_turn", frozen=True):
    """Ask where a turn stands; answered with :class:`TurnStatus`."""


class GetMemory(Message, tag="get_memory", frozen=True):
    """Ask for a conversation's memory; answered with :class:`MemoryReply`.

    ``turn_id`` correlates the reply on a shared connection; any unique string will do.
    """

    conversation_id: str | None = None


class DeleteMemory(Message, tag="delete_memory", frozen=True):
    """Forget a conversation's memory; answered with :class:`Ack`."""

    conversation_id: str | None = None


class MemoryReply(Message, tag="memory", frozen=True):
    """A conversation's memory, in reply to :class:`GetMemory`."""

    conversation_id: str | None
    state: MemoryState


class Ack(Message, tag="ack", frozen=True):
    """A request without a payload to return was carried out."""


class Hello(Message, tag="hello", frozen=True):
    """First frame on a TCP stream connection: the bearer token (``turn_id`` unused)."""

    token: str


Inbound = Run | Cancel | ConfirmReply | GetTurn | GetMemory | DeleteMemory | Hello
Control = Cancel | ConfirmReply
Outbound = (
    ConfirmAsk | EventMessage | Token | ResultMessage | Failure | TurnStatus | MemoryReply | Ack
)
Outbox = Callable[[Outbound], None]
"""Where a remote caller's replies go; called without blocking the turn."""
AnyMessage = (
    Run
    | Cancel
    | ConfirmReply
    | GetTurn
    | GetMemory
    | DeleteMemory
    | Hello
    | ConfirmAsk
    | EventMessage
    | Token
    | ResultMessage
    | Failure
    | TurnStatus
    | MemoryReply
    | Ack
    | Generate
)


def _enc_hook(value: Any) -> Any:
    return json_snapshot(value)


MAX_NESTING = 64
"""How deep a run's ``context`` may nest (lists and objects), on every edge: far past any real
context, and far below what a turn's own snapshots and fingerprints recurse through (a deeper
one failed the turn late, with ``maximum recursion depth exceeded``). The door refuses a deeper
one (:func:`actors.admission.check_context`)."""


def nesting(value: Any, limit: int = MAX_NESTING) -> int:
    """How deep ``value`` nests (a scalar is 0), counted without recursion and only up to
    ``limit + 1``: enough to tell that a value is too deep, whatever its size."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest


def nested_too_deeply(what: str) -> str:
    """The one refusal of a value nested too deeply — a run's context past :data:`MAX_NESTING`,
    or a message or a body past what a decoder can read (msgspec raises ``RecursionError`` at
    Python's recursion limit) — in the same words on every edge."""
    return f"{what} is nested too deeply: the limit is {MAX_NESTING} levels"


_json_encoder = msgspec.json.Encoder(enc_hook=_enc_hook)
_msgpack_encoder = msgspec.msgpack.Encoder(enc_hook=_enc_hook)
_json_decoder = msgspec.json.Decoder(AnyMessage)
_msgpack_decoder = msgspec.msgpack.Decoder(AnyMessage)


def encode_json(message: Message) -> bytes:
    return _json_encoder.encode(message)


def encode_msgpack(message: Message) -> bytes:
    return _msgpack_encoder.encode(message)


def decode_json(data: bytes | str) -> Message:
    """Decode any message; raises ``msgspec.DecodeError``/``ValidationError`` on bad input."""
    try:
        return _json_decoder.decode(data)
    except RecursionError:
        raise msgspec.DecodeError(nested_too_deeply("the message")) from None


def decode_msgpack(data: bytes) -> Message:
    """Decode any message; raises ``msgspec.DecodeError``/``ValidationError`` on bad input."""
    try:
        return _msgpack_decoder.decode(data)
    except RecursionError:
        raise msgspec.DecodeError(nested_too_deeply("the message")) from None
