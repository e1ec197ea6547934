"""The write-intent check: before a write, ask whether the request asks for that change at all.

A first plan ``{"call": "find_contact", "then": "send_message"}`` for "what's Ana's number?"
sends Ana a message: the plan's second name is the function listed beside the first, not a
change the user asked for, and the planned write's own gate (write, or answer) follows the
plan. Asked on its own — the request, and the one change the write would make — whether the
user asks for it is a question the 1.5B model can answer, and a deterministic rule keyed on
verbs cannot (users say "text her", "let him know", "drop it from the list").

The system prompt is one constant (byte-stable, so its KV cache stays warm); the request and
the function's purpose are the user prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from ..models import GenerateRequest, Generation
from ..tools import Tool
from .generation import ModelCaller
from .handoff import purpose
from .yes_no import no_leads, yes_no_schema

__all__ = [
    "INTENT_MARGIN",
    "INTENT_SYSTEM",
    "IntentVerdict",
    "asks_for_write",
    "intent_request",
    "intent_schema",
    "intent_user",
    "read_intent",
    "withheld_note",
]

INTENT_SYSTEM = (
    "You check one change an assistant is about to make for a user. Reply "
    '{"asked": "yes"} when the user\'s request asks for this change (in any words), or '
    '{"asked": "no"} when the request only asks a question, asks for something else, or '
    "says not to."
)
"""The check's rules, the same for every write (byte-stable)."""

INTENT_MARGIN = 0.3
"""How much more likely (log-probability) ``no`` must be than ``yes`` before the write is
withheld; tuned on the dev half's intent probe (docs/design.md, "The write-intent check"):
the smallest margin at which no write a dev ask asked for was withheld (at 0.0: 2 of 70)."""

_FIELD = "asked"
_RECENT_CHARS = 160


@attrs.frozen
class IntentVerdict:
    """Whether the write goes ahead; the margin is log p(no) - log p(yes), or ``None`` where
    the bridge reports no log-probabilities (then the generated word decides)."""

    asked: bool
    margin: float | None


def intent_schema() -> dict[str, Any]:
    """``{"asked": "yes" | "no"}``."""
    return yes_no_schema(_FIELD)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def intent_user(ask: str, tool: Tool, recent: Sequence[Any] = ()) -> str:
    """The request (after the last exchange, for a follow-up) and the change to be made."""
    lines = []
    if recent:
        last = recent[-1]
        lines.append(
            f"Earlier the user asked: {_short(last.ask, _RECENT_CHARS)}\n"
            f"The assistant answered: {_short(last.answer, _RECENT_CHARS)}"
        )
    lines.append(f"Request: {ask}")
    lines.append(f"Change: {tool.name} ({purpose(tool)})")
    lines.append("Does the request ask for this change?")
    return "\n".join(lines)


def intent_request(ask: str, tool: Tool, recent: Sequence[Any] = ()) -> GenerateRequest:
    """The check as one model request (what the stage probe sends, as the turn does)."""
    return GenerateRequest(
        label="intent",
        system=INTENT_SYSTEM,
        prompt=intent_user(ask, tool, recent),
        schema=intent_schema(),
        max_output_tokens=16,
        max_string_length=8,
        score=_FIELD,
    )


def read_intent(generation: Generation, margin: float | None = None) -> IntentVerdict:
    """The verdict of a reply: withheld when ``no`` leads ``yes`` by more than ``margin``."""
    no, gap = no_leads(generation, _FIELD, INTENT_MARGIN if margin is None else margin)
    return IntentVerdict(asked=not no, margin=gap)


async def asks_for_write(
    caller: ModelCaller,
    tool: Tool,
    ask: str,
    *,
    recent: Sequence[Any] = (),
    margin: float | None = None,
) -> IntentVerdict:
    """Ask whether ``ask`` asks for the change ``tool`` makes."""
    text = intent_user(ask, tool, recent)
    generation = await caller.call(
        "intent",
        INTENT_SYSTEM,
        lambda _compact: text,
        intent_schema(),
        compactable=False,
        score=_FIELD,
    )
    return read_intent(generation, margin)


def withheld_note(tool: Tool) -> str:
    """What the answer is told about a write the request did not ask for."""
    return (
        f"Nothing was changed: the request did not ask to {purpose(tool).lower()} "
        f"({tool.name} was not called). Answer what the user asked."
    )
