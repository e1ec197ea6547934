"""The door's rules for a request from outside, each written once with its one refusal.

Every edge — HTTP, MessagePack frames, the in-process client — hands its requests to
:meth:`actors.runtime.Runtime.handle`, which admits each here first: a turn id that may appear
in a URL, an ask within :data:`MAX_ASK_CHARS`, a context nested at most
:data:`~actors.messages.MAX_NESTING` levels deep, a conversation id that follows the rule, a
conversation the caller may use. A retry of a known turn id must be the same request
(:func:`check_same_request`). What the door answers when a request names a turn it cannot act
on — none such, not running here, already ended, a call already answered or answered too late —
is written here too, once each, whichever edge asks. An edge that must refuse before it does work of its own (HTTP
forwarding a request to another node, resuming a stream it keeps) asks the same functions, so
a rule and its words never differ between edges.
"""

from __future__ import annotations

from typing import Any, Protocol

from goliath.errors import ConfigError, GoliathError
from goliath.ids import URL_SAFE_ID, URL_SAFE_RULE, check_conversation_id

from .messages import (
    MAX_NESTING,
    Cancel,
    ConfirmReply,
    DeleteMemory,
    FailureCode,
    GetMemory,
    GetTurn,
    Inbound,
    Run,
    nested_too_deeply,
    nesting,
)

__all__ = [
    "MAX_ASK_CHARS",
    "Access",
    "RequestError",
    "admit",
    "another_write",
    "call_answered",
    "call_too_late",
    "check_access",
    "check_ask",
    "check_context",
    "check_conversation",
    "check_same_request",
    "check_turn_id",
    "check_url_safe",
    "no_pending_call",
    "no_turn",
    "not_running_here",
    "turn_ended",
]

MAX_ASK_CHARS = 8_000
"""Characters an ask from outside may have, on every edge (the OpenAPI document says so too):
small models read short asks well, and a long one is better put in files."""


class RequestError(GoliathError):
    """A request the runtime refuses; ``code`` is a :data:`~actors.messages.FailureCode`."""

    def __init__(self, code: FailureCode, message: str) -> None:
        super().__init__(message)
        self.code: FailureCode = code
        self.message = message


class Access(Protocol):
    """What a caller may touch (a user's token): conversations, by id."""

    @property
    def name(self) -> str: ...

    def allows(self, conversation_id: str | None) -> bool: ...


def check_url_safe(value: str, what: str) -> None:
    """Refuse an id that may not appear in a URL path (:data:`goliath.ids.URL_SAFE_ID`);
    ``what`` names it (``"turn id"``, ``"conversation id"``)."""
    if not URL_SAFE_ID.match(value):
        raise RequestError("invalid", f"{what} {value[:40]!r} is not valid: {URL_SAFE_RULE}")


def check_turn_id(turn_id: str) -> None:
    """A caller's turn id is URL-safe on every edge (it names the turn in ``/v1/turns/{id}``)."""
    check_url_safe(turn_id, "turn id")


def check_ask(ask: str) -> None:
    """Refuse an ask longer than :data:`MAX_ASK_CHARS` (``too_large``)."""
    if len(ask) > MAX_ASK_CHARS:
        raise RequestError(
            "too_large",
            f"the ask is {len(ask):,} characters; the limit is {MAX_ASK_CHARS:,}. "
            "Small models read short asks well: shorten it, or put long material in files.",
        )


def check_context(context: Any) -> None:
    """Refuse a run's context nested past :data:`~actors.messages.MAX_NESTING` (``invalid``):
    the turn's snapshots and fingerprints would fail on it late."""
    if nesting(context) > MAX_NESTING:
        raise RequestError("invalid", nested_too_deeply("the context"))


def check_conversation(conversation_id: str | None) -> None:
    """Refuse a malformed conversation id as an invalid request (never a crash of the caller)."""
    try:
        check_conversation_id(conversation_id)
    except ConfigError as exc:
        raise RequestError("invalid", str(exc)) from exc


def check_access(access: Access | None, conversation_id: str | None) -> None:
    """Refuse a user's request for a conversation that is not theirs (``None``: the operator,
    who may use every conversation)."""
    if access is not None and not access.allows(conversation_id):
        raise RequestError(
            "forbidden",
            f"{access.name} may not use conversation {conversation_id!r}"
            if conversation_id is not None
            else f"{access.name} may not use the default conversation; name one",
        )


def check_same_request(
    turn_id: str,
    *,
    known_conversation: str | None,
    known_payload: str,
    conversation_id: str | None,
    payload: str,
) -> None:
    """At most once: a turn id seen before names one request, in one conversation.

    ``known_*`` are the turn's as first submitted (an empty ``known_payload``: not kept, so not
    compared); ``payload`` is the retry's :func:`goliath.durable.payload_fingerprint`.
    """
    if known_conversation != conversation_id:
        raise RequestError("conflict", f"turn id {turn_id!r} belongs to another conversation")
    if known_payload and known_payload != payload:
        raise RequestError(
            "conflict",
            f"turn id {turn_id!r} was used for another request (a different ask or context); "
            "a turn id names one request — use a new id for a new ask",
        )


def admit(message: Inbound, access: Access | None) -> None:
    """Refuse ``message`` (from ``access``'s caller, ``None``: the operator) if it breaks a rule
    that needs nothing but the message: its turn id, its ask and its context, its conversation
    id and who may use it. Cheap and idempotent. Whether a turn id is a retry of the same request needs the
    turn: :meth:`~actors.runtime.Runtime.submit` checks that.
    """
    match message:
        case Run(turn_id=turn_id, ask=ask, conversation_id=conversation_id, context=context):
            check_turn_id(turn_id)
            check_ask(ask)
            check_context(context)
            check_access(access, conversation_id)
        case Cancel(turn_id=turn_id) | ConfirmReply(turn_id=turn_id) | GetTurn(turn_id=turn_id):
            check_turn_id(turn_id)
        case (
            GetMemory(conversation_id=conversation_id)
            | DeleteMemory(conversation_id=conversation_id)
        ):
            check_conversation(conversation_id)
            check_access(access, conversation_id)
        case _:
            pass  # the runtime refuses what is not a request (a Hello) itself


# ---------------------------------------------------------------- a turn the door cannot act on


def no_turn(turn_id: str, conversation_id: str | None = None) -> RequestError:
    """``not_found``: no turn of that id (in that conversation) is known — or none the caller
    may see, in the same words, so nothing leaks."""
    where = f" in conversation {conversation_id!r}" if conversation_id is not None else ""
    return RequestError("not_found", f"there is no turn {turn_id!r}{where}")


def not_running_here(turn_id: str) -> RequestError:
    """``not_found``: the turn is known (from the store) but not running on this node."""
    return RequestError("not_found", f"turn {turn_id!r} is not running on this node")


def turn_ended(turn_id: str, status: str) -> RequestError:
    """``conflict``: a cancel or a confirmation reply for a turn that already ended."""
    return RequestError(
        "conflict",
        f"turn {turn_id!r} already ended ({status}); there is nothing to cancel or answer",
    )


def no_pending_call(turn_id: str, call_id: str) -> RequestError:
    """``not_found``: a confirmation reply for a call the turn does not wait on."""
    return RequestError("not_found", f"turn {turn_id!r} has no pending call {call_id!r}")


def call_answered(call_id: str) -> RequestError:
    """``conflict``: at most once — a second answer to one confirmation is refused."""
    return RequestError("conflict", f"call {call_id!r} was already answered")


def call_too_late(call_id: str) -> RequestError:
    """``conflict``: the turn stopped waiting (its deadline passed) before the reply came; the
    write was declined and stays declined."""
    return RequestError(
        "conflict",
        f"call {call_id!r} was not answered in time: the write was declined (no answer) "
        "before this reply came",
    )


def another_write(call_id: str) -> RequestError:
    """``conflict``: the reply's fingerprint is another write's than the one the call waits on."""
    return RequestError(
        "conflict",
        f"this answer is for another write than the one call {call_id!r} waits on "
        "(its fingerprint differs); ask the turn again and answer what it shows",
    )
