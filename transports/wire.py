"""What the daemon's HTTP API reads and writes: one set of msgspec Structs, used twice.

The server decodes request bodies with these Structs (so validation happens here, once) and
encodes its JSON answers with them; :mod:`transports.openapi` generates the OpenAPI document
from the very same classes, so the document and the server cannot drift apart.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from goliath.durable import PendingCall
from goliath.ids import URL_SAFE_ID
from goliath.records import RunResult, StepRecord

__all__ = [
    "CancelRequestBody",
    "ConfirmRequestBody",
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


class HttpLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Request bounds of the HTTP front door, with units."""

    max_body_bytes: int = 64 * 1024
    max_ask_chars: int = 8_000


class RunRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Start a turn. ``turn_id`` makes retries safe: a known id is answered from its record."""

    ask: str  # at most HttpLimits.max_ask_chars (the document says so); longer is a 413
    turn_id: WireId | None = None
    context: Any = None


class ConfirmRequestBody(msgspec.Struct, forbid_unknown_fields=True):
    """Answer a pending ``confirm_request`` event of the turn."""

    call_id: str
    approved: bool
    reason: str | None = None
    conversation_id: str | None = None
    fingerprint: str | None = None
    """The ``confirm_request``'s fingerprint: an answer meant for another write is refused."""


class CancelRequestBody(msgspec.Struct, forbid_unknown_fields=True):
    conversation_id: str | None = None
    reason: str = "client"


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
