"""What the daemon's HTTP API reads and writes: one set of msgspec Structs, used twice.

The server decodes request bodies with these Structs (so validation happens here, once) and
encodes its JSON answers with them; :mod:`transports.openapi` generates the OpenAPI document
from the very same classes, so the document and the server cannot drift apart.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from actors.admission import MAX_ASK_CHARS
from goliath.durable import PendingCall
from goliath.ids import URL_SAFE_ID
from goliath.records import RunResult, StepRecord

__all__ = [
    "CancelRequestBody",
    "ConfirmAnswerBody",
    "Error",
    "ErrorDetail",
    "HTTPError",
    "Health",
    "HttpLimits",
    "Me",
    "RunRequest",
    "TurnInfo",
    "WireId",
]

WireId = Annotated[str, msgspec.Meta(pattern=URL_SAFE_ID.pattern)]
"""A conversation or turn id as it may appear in a URL (:data:`goliath.ids.URL_SAFE_ID`)."""
MAX_EVENT_ID_DIGITS = 18
"""Digits a ``Last-Event-ID`` may have (a stream never numbers that many events)."""
MAX_NOTE_CHARS = 2_000
"""Characters of a confirmation's or a cancel's ``reason``."""
MAX_TOKEN_CHARS = 512
"""Characters of an opaque value a client sends back (a ``call_id``, a ``fingerprint``)."""
Note = Annotated[str, msgspec.Meta(max_length=MAX_NOTE_CHARS)]
Opaque = Annotated[str, msgspec.Meta(max_length=MAX_TOKEN_CHARS)]
Ask = Annotated[str, msgspec.Meta(extra_json_schema={"maxLength": MAX_ASK_CHARS})]
"""An ask: the document says :data:`actors.admission.MAX_ASK_CHARS`, the runtime's door
refuses a longer one (413, with what to do instead) rather than the decoder (a bare 400)."""
TurnId = Annotated[str, msgspec.Meta(extra_json_schema={"pattern": URL_SAFE_ID.pattern})]
"""A run's turn id: documented as a :data:`WireId`, refused by the door's turn-id rule
(:func:`actors.admission.check_turn_id`, in the same words on every edge)."""


class HttpLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Request bounds of the HTTP front door, with units."""

    max_body_bytes: int = 64 * 1024
    send_seconds: float = 30.0  # = transports.stream.SEND_SECONDS (a test pins them equal)
    """How long one write to an event stream may wait for a client that does not read before
    the client is dropped (the frame socket's ``SEND_SECONDS``)."""


class RunRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Start a turn. ``turn_id`` makes retries safe: a known id is answered from its record."""

    ask: Ask
    turn_id: TurnId | None = None
    context: Any = None


class ConfirmAnswerBody(msgspec.Struct, forbid_unknown_fields=True):
    """Answer a pending ``confirm_request`` event of the turn."""

    call_id: Opaque
    approved: bool
    reason: Note | None = None
    conversation_id: WireId | None = None
    fingerprint: Opaque | None = None
    """The ``confirm_request``'s fingerprint: an answer meant for another write is refused."""


class CancelRequestBody(msgspec.Struct, forbid_unknown_fields=True):
    conversation_id: WireId | None = None
    reason: Note = "client"


class TurnInfo(msgspec.Struct, omit_defaults=True):
    """Where a turn stands: ``pending`` is the write it waits on (``awaiting_confirmation``),
    ``steps`` what a turn without a result did so far (cancelled, interrupted, running)."""

    turn_id: str
    conversation_id: str | None
    status: str
    result: RunResult | None = None
    pending: PendingCall | None = None
    steps: list[StepRecord] = []


class Health(msgspec.Struct):
    status: str


class Me(msgspec.Struct):
    """Who the token belongs to: ``user`` (``None`` for the daemon's own token) and the prefix
    every conversation id of theirs starts with (``""``: any conversation)."""

    user: str | None
    conversations: str


class ErrorDetail(msgspec.Struct):
    code: str
    message: str


class Error(msgspec.Struct):
    """Every error response: what went wrong (``code``) and what to do about it (``message``)."""

    error: ErrorDetail


class HTTPError(Exception):
    """An error answered as ``{"error": {"code", "message"}}`` (:class:`Error`) with ``status``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> Error:
        return Error(error=ErrorDetail(code=self.code, message=self.message))
