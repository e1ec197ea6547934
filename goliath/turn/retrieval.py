"""Tool retrieval: the few functions whose names and descriptions best match the ask.

A phone-wide assistant has 30–40 functions; listed whole they fill a small model's first-plan
prompt and its pick drifts to a neighbour. With ``Agent(tool_retrieval=k)`` the first plan is
shown only the ``k`` functions that share the most words with the ask (a name's words count
double: they are what the model picks; a parameter's name, description or enum value half),
plus the functions those require first. Lexical on purpose: no second model, no embedding
index, the same on every bridge; ties keep the app's order, and an ask that shares no word with
any function sees them all. The hand-off and world checks, and the later steps of the turn,
see every function (a plan's names are checked against all of them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..extensions import Plan
from ..tools import Tool
from .clause import asks_then_acts
from .condition import condition_look, states_condition
from .lookup import id_parameters
from .words import FUNCTION_WORDS, WRITTEN_WORDS, name_nouns, singular, stem, words

__all__ = ["named_instead", "past_stray_read", "retrieve_tools", "word_scores"]

_STOP = FUNCTION_WORDS | frozenset(
    """a an or of to on in at by i be do if not what whats what's when where who how get
    set show tell give""".split()  # noqa: SIM905
)


def _words(text: str) -> list[str]:
    return [stem(word) for word in words(text) if word not in _STOP]


_PARAMETER_WEIGHT = 0.5
"""What a word of a function's parameters (names, descriptions, enum values) counts, against 1
for its description and 2 for its name: "put the reading lamp on" names ``set_light`` only
through ``name``'s description ("Sofa lamp"), "record a 30-minute yoga session" names
``log_workout`` only through its ``kind`` enum. On the dev half's phone-wide asks (20 with a
function to call, every wording) the function wanted ranked in the first 8 for 17 without
the parameters and 19 with them, at 0.5 or 1 alike (docs/evals.md)."""


def _parameter_text(schema: Any) -> str:
    """The words a schema's parameters carry: their names, descriptions and string enum values,
    nested objects and array items included."""
    if not isinstance(schema, Mapping):
        return ""
    parts: list[str] = []
    properties = schema.get("properties")
    for name, value in properties.items() if isinstance(properties, Mapping) else ():
        parts.append(str(name))
        if isinstance(value, Mapping):
            parts.append(str(value.get("description") or ""))
            parts.extend(str(e) for e in value.get("enum") or () if isinstance(e, str))
            parts.append(_parameter_text(value))
            parts.append(_parameter_text(value.get("items")))
    return " ".join(part for part in parts if part)


def word_scores(tools: Sequence[Tool], ask: str) -> dict[str, float]:
    """How well each tool's words match ``ask``: a shared word weighs more the fewer tools hold
    it, counted twice in a name, once in a description, half in the parameters alone."""
    asked = set(_words(ask))
    documents = [
        (
            set(_words(tool.name)),
            set(_words(tool.description)),
            set(_words(_parameter_text(tool.schema))),
        )
        for tool in tools
    ]
    frequency: dict[str, int] = {}
    for name_words, description_words, parameter_words in documents:
        for word in name_words | description_words | parameter_words:
            frequency[word] = frequency.get(word, 0) + 1
    count = len(tools)

    def weight(word: str) -> float:
        return math.log(1 + count / frequency.get(word, count))

    scores: dict[str, float] = {}
    for tool, (name_words, description_words, parameter_words) in zip(
        tools, documents, strict=True
    ):
        score = 2 * sum(weight(w) for w in name_words & asked)
        score += sum(weight(w) for w in description_words & asked)
        only_parameters = parameter_words - name_words - description_words
        score += _PARAMETER_WEIGHT * sum(weight(w) for w in only_parameters & asked)
        scores[tool.name] = score
    return scores


def retrieve_tools(tools: Sequence[Tool], ask: str, k: int) -> list[Tool]:
    """The ``k`` tools that best match ``ask`` (all of them when there are ``k`` or fewer, or
    when the ask shares no word with any), in the app's order, with every tool a kept one
    ``requires``."""
    if k <= 0 or len(tools) <= k:
        return list(tools)
    matched = word_scores(tools, ask)
    scores = [(-matched[tool.name], position) for position, tool in enumerate(tools)]
    if all(score == 0 for score, _ in scores):  # nothing to rank on: the app's order would
        return list(tools)  # hide the function as likely as show it
    kept = {position for _, position in sorted(scores)[:k]}
    by_name = {tool.name: position for position, tool in enumerate(tools)}
    for position in list(kept):
        for required in tools[position].requires:
            if required in by_name:
                kept.add(by_name[required])
    return [tool for position, tool in enumerate(tools) if position in kept]


_NAMED_BY_DESCRIPTION = 2
"""Words a function's description must share with the ask to count as named by it, when its
name shares none ("resting heart rate" in ``health_summary``'s description)."""


def named_instead(pick: str, tools: Sequence[Tool], ask: str) -> list[str]:
    """The functions of the same kind as ``pick`` (reads for a read, writes for a write) that
    the ask names, when it names nothing of ``pick``: not one word of its name or description.

    The 1.5B model's first plan picks a near neighbour the ask never mentions
    (``get_thermostat`` for "if the porch light is still on", ``start_timer`` for "log 30
    minutes of yoga", ``get_budgets`` for "the Vodafone bill"); the function the ask names is
    in the list beside it. A function counts as named when a word of its name is in the ask, or
    two words of its description are (docs/design.md, "A pick the ask never names"). Empty when
    the ask shares a word with ``pick`` or names no other function of its kind.
    """
    by_name = {tool.name: tool for tool in tools}
    picked = by_name.get(pick)
    if picked is None:
        return []
    asked = _naming(ask)
    if _shared(asked, _naming(picked.name) | _naming(picked.description)):
        return []
    return [
        tool.name
        for tool in tools
        if tool.name != pick and tool.writes == picked.writes and _names(asked, tool)
    ]


def _naming(text: str) -> set[str]:
    """The words of ``text`` that can name something: three letters or more ("yesterday's"
    leaves an "s" that "night's" shares)."""
    return {word for word in _words(text) if len(word) >= 3}


_PREFIX = 5


def _shared(asked: set[str], named: set[str]) -> int:
    """How many of ``named`` the ask says: the same stem, or one of five letters or more that
    begins the other ("remind" and "reminder", "episod" and "episode": the stems are crude)."""
    return sum(
        1
        for word in named
        if word in asked
        or any(
            len(short) >= _PREFIX and long.startswith(short)
            for said in asked
            for short, long in ((said, word), (word, said))
            if len(short) < len(long)
        )
    )


def past_stray_read(plan: Plan, tools: Sequence[Tool], ask: str) -> Plan:
    """A first plan that opens with a read the ask never mentions, started at its next call
    instead when the ask names that one.

    "Did I leave the porch light on? Turn it off if so" was planned as ``get_thermostat``
    before ``set_light``; "is the museum already on the Lisbon itinerary?" as
    ``find_hotel_reservation`` before ``get_itinerary`` (dev, both wordings). The stray read
    cost a call, a step and the answer's attention, and the plan itself says which call the ask
    is about. The read is skipped only when not one word of its name or description is in the
    ask, and the plan's next call is one the ask names (a word of its name, or two of its
    description): a read none of whose parameters the stray one's name or description names
    (``get_location``, "the user's city", feeds ``get_weather(city)``); or, in an ask whose
    change hangs on a condition, a write the condition names another read for
    (``condition.condition_look``: the lights, for the porch light), which takes no id, carries
    no content a read may fill (a body, a text, a title, items) and is about another thing than
    the stray read (``find_events`` before ``cancel_event``, ``list_lists`` before ``add_item``
    are looks the write rests on). An unconditional write keeps its read: "set an alarm an hour
    before my first meeting" names no meeting function, yet needs one (docs/design.md, "A read
    the ask never mentions")."""
    if plan.kind != "tool" or not plan.then:
        return plan
    by_name = {tool.name: tool for tool in tools}
    picked, upcoming = by_name.get(plan.tool or ""), by_name.get(plan.then[0])
    if picked is None or upcoming is None or picked.writes or upcoming is picked:
        return plan
    asked = _naming(ask)
    if _shared(asked, _naming(picked.name) | _naming(picked.description)):
        return plan
    if not _names(asked, upcoming):
        return plan
    if not upcoming.writes and _feeds(picked, upcoming):
        return plan  # "the weather where I am": get_location gives get_weather's city
    if upcoming.writes:  # only past a read the condition does not need, to the one it names
        if id_parameters(upcoming) or _about(picked, upcoming) or _carries_content(upcoming):
            return plan
        if not (states_condition(ask) or asks_then_acts(ask)):
            return plan  # "set an alarm an hour before my first meeting" needs the meeting
        look = condition_look(upcoming, tools, ask, [])
        if look is None or look is picked:
            return plan
    return Plan(kind="tool", tool=upcoming.name, brief=upcoming.description, then=plan.then[1:])


def _about(read: Tool, write: Tool) -> bool:
    """Whether ``write`` is about what ``read`` reads: a noun of the read's name is a word of
    the write's name, description or parameters (``list_lists`` before ``add_item``, whose
    ``list_name`` the listing shows; ``find_events`` before ``cancel_event``)."""
    said = words(f"{write.name} {write.description} {_parameter_text(write.schema)}")
    return bool(name_nouns(read.name) & {singular(word) for word in said})


_FEED_LETTERS = 4


def _feeds(read: Tool, later: Tool) -> bool:
    """Whether a parameter of ``later`` is named by a noun of ``read``'s name or a word of its
    description (``get_location``, "the user's city and coordinates", before
    ``get_weather(city)``): the first read may give the second its value."""
    names = {singular(word) for name in _parameter_names(later) for word in words(name)}
    read_words = name_nouns(read.name) | {
        singular(word) for word in words(read.description) if len(word) >= _FEED_LETTERS
    }
    return bool(names & read_words)


def _parameter_names(tool: Tool) -> list[str]:
    """The names of ``tool``'s parameters (none for a schema without properties)."""
    schema = tool.schema if isinstance(tool.schema, Mapping) else {}
    properties = schema.get("properties")
    return [str(name) for name in properties] if isinstance(properties, Mapping) else []


_CONTENT_WORDS = (WRITTEN_WORDS - {"comment", "reply"}) | frozenset(
    {"title", "items", "description"}
)
"""Parameters of a write that carry what it says or lists: "email my boss tomorrow's schedule"
reads the schedule for the body. A comment or a reply is left out: not measured here."""


def _carries_content(write: Tool) -> bool:
    """Whether ``write`` takes a free text or a list its content may come from a read."""
    return any(set(words(name)) & _CONTENT_WORDS for name in _parameter_names(write))


def _names(asked: set[str], tool: Tool) -> bool:
    """Whether the ask names ``tool``: a word of its name, or two of its description."""
    return (
        _shared(asked, _naming(tool.name)) > 0
        or _shared(asked, _naming(tool.description)) >= _NAMED_BY_DESCRIPTION
    )
