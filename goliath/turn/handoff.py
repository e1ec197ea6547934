"""The hand-off check: one constrained question, before the first plan, of who handles the ask.

The first plan's own hand-off option is one name among the functions, and a 1.5B model picks a
function it half fits rather than the hand-off (dev plan probe: 0 of 13 must-escalate asks
handed over; the options' log-probabilities barely separate, docs/design.md, "The hand-off
decision"). Asked on its own — the functions by name and purpose, what the device cannot do,
and the ask — the choice between ``phone`` and ``cloud`` is a question the model can answer,
and its two log-probabilities give a margin tuned on the dev half.

The system prompt depends only on the agent (its functions and the app's description of what
needs the cloud), so it stays byte-stable across turns and the KV cache keeps it warm.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import attrs

from ..tools import Tool
from .generation import ModelCaller

__all__ = [
    "CLOUD_NEEDS",
    "HAND_OFF_MARGIN",
    "HandOffVerdict",
    "check_hand_off",
    "hand_off_schema",
    "hand_off_system",
    "hand_off_user",
]

CLOUD_NEEDS = (
    "anything none of those functions does (buying, paying, booking, sending money, searching "
    "the web, other people's accounts), medical, legal or financial advice, and big jobs of "
    "many steps or many days (a trip plan, a schedule, going through everything one by one)"
)
"""What needs the cloud when the app does not say (``Agent(cloud_needs=...)`` replaces it)."""

HAND_OFF_MARGIN = 0.0
"""How much more likely ``cloud`` must be than ``phone`` (log-probability) before the turn is
handed over; tuned on the dev half's hand-off probe (docs/design.md, "The hand-off check")."""

_FIELD = "handled_by"
_DEVICE, _CLOUD = "phone", "cloud"
_PURPOSE_CHARS = 70
_RECENT_CHARS = 160


@attrs.frozen
class HandOffVerdict:
    """What the check decided and on what: the margin is log p(cloud) - log p(phone), or
    ``None`` where the bridge reports no log-probabilities (then the generated name decides)."""

    hand_off: bool
    margin: float | None


def hand_off_schema() -> dict[str, Any]:
    """``{"handled_by": "phone" | "cloud"}``: two names whose first tokens differ."""
    return {
        "type": "object",
        "properties": {_FIELD: {"type": "string", "enum": [_DEVICE, _CLOUD]}},
        "required": [_FIELD],
        "additionalProperties": False,
    }


def _purpose(tool: Tool) -> str:
    """A function's first sentence, short: the check needs what it is for, not how to call it."""
    text = " ".join(tool.description.split())
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].rstrip(".")
    return first if len(first) <= _PURPOSE_CHARS else first[: _PURPOSE_CHARS - 1].rstrip() + "…"


def hand_off_system(tools: Sequence[Tool], cloud_needs: str | None = None) -> str:
    """The check's rules: what the phone can do (its functions, chat and simple questions) and
    what goes to the cloud."""
    functions = "\n".join(f"- {tool.name}: {_purpose(tool)}" for tool in tools)
    needs = " ".join((cloud_needs or CLOUD_NEEDS).split())
    return (
        "You decide who handles a user's request: the phone's small assistant, or a larger "
        "assistant in the cloud.\n"
        "The phone can only use these functions:\n"
        f"{functions or '- (none)'}\n"
        "and chat, or answer a simple general-knowledge or arithmetic question itself.\n"
        f"The cloud is needed for {needs}.\n"
        f'Reply {{"{_FIELD}": "{_DEVICE}"}} when the phone can do all of the request, '
        f'else {{"{_FIELD}": "{_CLOUD}"}}.'
    )


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def hand_off_user(ask: str, recent: Sequence[Any] = ()) -> str:
    """The ask, after the last exchange when there is one (a follow-up such as "yes, do it"
    means nothing alone)."""
    lines = []
    if recent:
        last = recent[-1]
        lines.append(
            f"Earlier the user asked: {_short(last.ask, _RECENT_CHARS)}\n"
            f"The assistant answered: {_short(last.answer, _RECENT_CHARS)}"
        )
    lines.append(f"Request: {ask}")
    return "\n".join(lines)


async def check_hand_off(
    caller: ModelCaller,
    tools: Sequence[Tool],
    ask: str,
    *,
    recent: Sequence[Any] = (),
    cloud_needs: str | None = None,
    margin: float | None = None,
) -> HandOffVerdict:
    """Ask whether the phone can do ``ask``; hand off when ``cloud`` leads ``phone`` by more
    than ``margin`` (default :data:`HAND_OFF_MARGIN`), or, unscored, when the model chose it."""
    threshold = HAND_OFF_MARGIN if margin is None else margin
    system = hand_off_system(tools, cloud_needs)
    text = hand_off_user(ask, recent)
    generation = await caller.call(
        "handoff", system, lambda _compact: text, hand_off_schema(), compactable=False, score=_FIELD
    )
    scores = generation.scores or {}
    if _DEVICE in scores and _CLOUD in scores:
        gap = scores[_CLOUD] - scores[_DEVICE]
        return HandOffVerdict(hand_off=gap > threshold, margin=gap)
    try:
        chosen = json.loads(generation.text).get(_FIELD)
    except (ValueError, AttributeError):
        chosen = None
    return HandOffVerdict(hand_off=chosen == _CLOUD, margin=None)
