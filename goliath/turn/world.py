"""The world check: a question about the world is answered without a call.

The first plan offers ``general_knowledge_or_chat`` beside the functions, and the 1.5B model
picks a function for nearly every question ("what's the country code for Germany?" →
``find_contact``; "who composed The Four Seasons?" → ``search_library``): on the dev half's
first wordings, 5 of 7 general-knowledge asks called a read, and the answer then reported the
read. The hand-off check does not tell them apart either: it names such a question a
``lookup`` (p ≈ 0.9). Asked on its own whether the answer is the same for every person or
depends on the user's own things, with four examples of each from no particular app, the model
separates them by its log-probabilities: on the dev half's 201 questions that the check would
see, the general-knowledge ones lead "mine" by 1.6 to 3.6, every other by at most 1.8
(docs/design.md, "The world check").

Only a question is asked (``is_question``), and only one that names nothing a function's name
holds: a question about what a read holds ("what's left in my budget?" beside
``get_budgets``, "find hotels in Porto" beside ``search_hotels``) is the functions' to answer,
whatever the check would say. The system prompt is one constant, byte-stable.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs

from ..models import Generation
from ..tools import Tool
from .generation import ModelCaller
from .handoff import asks_about_own_data, held_words, is_question
from .words import singular, words
from .yes_no import choice_schema

__all__ = [
    "WORLD_MARGIN",
    "WORLD_SYSTEM",
    "WorldVerdict",
    "asks_the_world",
    "check_world",
    "read_world",
    "world_schema",
    "world_user",
]

WORLD_SYSTEM = """\
You sort questions put to a phone assistant. Reply {"source": "world"} when the answer is \
general knowledge, the same for every person (a fact, a definition, a conversion, a sum). \
Reply {"source": "mine"} when the answer depends on this user's own things (their lists, \
calendar, messages, notes, files, devices, accounts, health, trips or plans), even when the \
question does not say "my".
Examples:
"what is the capital of Peru?" -> world
"when is the dentist?" -> mine
"how many feet are in a mile?" -> world
"who texted me?" -> mine
"who painted the Mona Lisa?" -> world
"how much did fuel cost last week?" -> mine
"what does NASA stand for?" -> world
"is the garage door shut?" -> mine"""
"""The check's rules and examples, the same for every agent (byte-stable). Without the
examples the model said "world" for nearly every question (dev: no threshold kept the
device's questions out while letting half the general-knowledge ones through)."""

WORLD_MARGIN = 2.0
"""How much more likely (log-probability) ``world`` must be than ``mine`` before the turn
answers without a call; from the dev half's world probe (docs/design.md, "The world check"):
the device's questions that the check sees reached 1.77, general-knowledge ones 1.6 to 3.6."""

_FIELD = "source"
_WORLD = "world"
_MINE = "mine"


@attrs.frozen
class WorldVerdict:
    """Whether the ask is answered without a call; the margin is log p(world) - log p(mine),
    or ``None`` where the bridge reports no log-probabilities (then the generated word
    decides)."""

    world: bool
    margin: float | None


def world_schema() -> dict[str, Any]:
    """``{"source": "mine" | "world"}`` (first tokens differ, so both are scored)."""
    return choice_schema(_FIELD, [_MINE, _WORLD])


def world_user(ask: str) -> str:
    """The question alone: what came before it is the user's, and would read as "mine"."""
    return f"Question: {' '.join(ask.split())}"


def asks_the_world(ask: str, tools: Sequence[Tool]) -> bool:
    """Whether the check is asked about ``ask``: a question (``is_question``) that is not
    about what a read holds (``asks_about_own_data``) and shares no word with what any
    function's name holds ("find hotels in Porto" beside ``search_hotels``)."""
    if not is_question(ask) or asks_about_own_data(ask, tools):
        return False
    said = {singular(word) for word in words(ask)}
    return not any(held_words(tool) & said for tool in tools)


def read_world(generation: Generation, margin: float | None = None) -> WorldVerdict:
    """The verdict of a reply: a question about the world when ``world`` leads ``mine`` by
    more than ``margin`` (default :data:`WORLD_MARGIN`), or, unscored, when it said so."""
    threshold = WORLD_MARGIN if margin is None else margin
    scores = generation.scores or {}
    if _WORLD in scores and _MINE in scores:
        gap = scores[_WORLD] - scores[_MINE]
        return WorldVerdict(world=gap > threshold, margin=gap)
    try:
        named = json.loads(generation.text).get(_FIELD)
    except (ValueError, AttributeError):
        named = None
    return WorldVerdict(world=named == _WORLD, margin=None)


async def check_world(
    caller: ModelCaller, ask: str, *, margin: float | None = None
) -> WorldVerdict:
    """Ask whether ``ask`` is about the world or about the user's own things."""
    text = world_user(ask)
    generation = await caller.call(
        "world",
        WORLD_SYSTEM,
        lambda _compact: text,
        world_schema(),
        compactable=False,
        score=_FIELD,
    )
    return read_world(generation, margin)
