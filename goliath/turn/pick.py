"""The pick check: a second opinion on the first plan's function, between two.

The 1.5B model's first plan chooses among every function at once, and a near neighbour wins
where the ask's own words point at another: ``get_sleep`` for "what was my resting heart rate
yesterday?" beside ``health_summary``, ``start_timer`` for "log 30 minutes of yoga" beside
``log_workout``. Switching to the function the words name, unasked, lost on held-out asks
(docs/evals.md, fifth session: "did anyone come to the door?" went to ``door_log``). Asked
instead to choose between just the two — each with its description, the ask, nothing else — the
model gets it right far more often than in the crowd, and where it is unsure its choice flips
with the order the two are shown. So the question is asked twice, the two in either order, and
the plan moves only when the other function wins both times (docs/design.md, "The pick
check").

Only asked where the words disagree with the pick (``rival``): the function of the same kind
(a read for a read, a write for a write) that the ask names when it names nothing of the pick
(``retrieval.named_instead``), or else the one whose words match the ask best, when they match
it better than the pick's. The system prompt is one constant, byte-stable.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import attrs

from ..tools import Tool
from .generation import ModelCaller
from .retrieval import named_instead, word_scores
from .yes_no import choice_schema

__all__ = ["PICK_SYSTEM", "PickVerdict", "check_pick", "pick_schema", "pick_user", "rival"]

PICK_SYSTEM = (
    "You pick which of two functions of the user's app does what the user asks. "
    "Read both descriptions. Reply with JSON only."
)
"""The same for every agent and ask (byte-stable)."""

_FIELD = "function"


def rival(pick: str, tools: Sequence[Tool], ask: str) -> str | None:
    """The function the ask's words point at instead of ``pick``, or ``None`` where they agree.

    Among ``pick``'s kind only: the named function that matches best when the ask names
    nothing of ``pick``; otherwise the best match of all, when it beats ``pick``'s own. Ties
    keep the app's order."""
    picked = next((tool for tool in tools if tool.name == pick), None)
    if picked is None:
        return None
    scores = word_scores(tools, ask)
    named = named_instead(pick, tools, ask)
    if named:
        return max(named, key=lambda name: scores[name])
    others = [tool.name for tool in tools if tool.writes == picked.writes and tool.name != pick]
    if not others:
        return None
    best = max(others, key=lambda name: scores[name])
    return best if scores[best] > scores[pick] else None


def pick_schema(first: str, second: str) -> dict[str, Any]:
    """``{"function": first | second}``."""
    return choice_schema(_FIELD, [first, second])


def _line(tool: Tool) -> str:
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    return f"- {tool.name}({', '.join(schema.get('properties', {}))}): {tool.description}"


def pick_user(ask: str, first: Tool, second: Tool) -> str:
    """The two functions in the order given, then the ask."""
    return (
        f"Functions:\n{_line(first)}\n{_line(second)}\nAsk: {ask}\n"
        "Which function does the ask want called first?"
    )


def _rendered(text: str, _compact: bool) -> str:
    return text


@attrs.frozen
class PickVerdict:
    """``switch``: the rival won in both orders. ``margin``: its mean log-probability lead
    over the pick (``None`` where the bridge scores nothing, or the two names begin alike)."""

    switch: bool
    margin: float | None


async def check_pick(caller: ModelCaller, ask: str, picked: Tool, other: Tool) -> PickVerdict:
    """Ask which of ``picked`` and ``other`` the ask wants, once in each order."""
    chosen: list[str | None] = []
    gaps: list[float] = []
    for first, second in ((picked, other), (other, picked)):
        generation = await caller.call(
            "pick",
            PICK_SYSTEM,
            functools.partial(_rendered, pick_user(ask, first, second)),
            pick_schema(first.name, second.name),
            compactable=False,
            score=_FIELD,
        )
        try:
            reply = json.loads(generation.text)
            chosen.append(reply.get(_FIELD) if isinstance(reply, dict) else None)
        except ValueError:
            chosen.append(None)
        scores = generation.scores or {}
        if picked.name in scores and other.name in scores:
            gaps.append(scores[other.name] - scores[picked.name])
    margin = sum(gaps) / len(gaps) if len(gaps) == 2 and any(gaps) else None
    return PickVerdict(switch=all(name == other.name for name in chosen), margin=margin)
