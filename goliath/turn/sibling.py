"""The change the ask's verb says, among the writes of one thing.

A toolset often has two writes of the same thing that differ only in their verb:
``move_event`` and ``cancel_event``, ``reschedule_reminder`` and ``delete_reminder``. The 1.5B
model's plan confuses them when the user's verb is not the function's: "take Friday's pottery
class out of my calendar" was planned as ``move_event``, "get rid of my car-insurance reminder"
as ``reschedule_reminder`` (dev, second wordings). The user's phrase says which kind of change
it is — taking something away, or moving it — and the sibling whose verb is of that kind is
the call (docs/design.md, "The change the verb says").

Four kinds are told apart: making something new, adding into a thing that is there
("add a first-aid kit to my camping checklist": ``append_to_note``, not ``create_note``),
taking something away, and moving or changing something that stays ("remind me to call the plumber on Thursday" was planned as
``reschedule_reminder``, dev). The swap is made when the ask says one kind and no other, the
planned write's verb is of another kind, and exactly one write of the same nouns has a verb
of the ask's kind; anything else is left to the plan.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from ..extensions import Plan
from ..tools import Tool
from .words import name_nouns, words

__all__ = ["adds_into", "said_change", "the_said_sibling"]

_REMOVE_VERBS = frozenset(
    {"delete", "remove", "cancel", "drop", "erase", "discard", "trash", "clear", "unschedule"}
)
_MOVE_VERBS = frozenset({"move", "reschedule", "postpone", "shift"})
_MODIFY_VERBS = frozenset({"update", "edit", "change", "modify", "rename"})
"""A change that keeps the thing: "move" proper, or any edit. "Add Theo to the dinner"
may be an edit (``update_event``), so an add said never turns an edit into a new thing."""

_TARGETS = {
    "add": {"add"},
    "append": {"append"},
    "remove": {"remove"},
    "move": {"move", "modify"},
}
"""The kinds of function that do the change the ask says."""
_REPLACED = {
    "add": {"remove", "move"},
    "append": {"add", "remove", "move"},
    "remove": {"add", "append", "move", "modify"},
    "move": {"add", "append", "remove"},
}
"""The kinds of planned write that give way to a sibling, by the change the ask says."""

_ADD_VERBS = frozenset({"add", "create", "new", "insert", "schedule"})

_SAYS_ADD = re.compile(
    r"\b(?:add|create|remind\s+me|set\s+up|schedule)\b"
    r"|\bnew\s+(?:task|todo|to-do|note|event|appointment|reminder|alarm|list|item|entry|contact)"
)
"""Phrases that make something new ("remind me to call the plumber", "add", "a new task";
not "it needs a new due date")."""

_SAYS_APPEND = re.compile(
    r"\b(?:add|put|append|stick|pop|throw)\s+(?:\S+\s+){1,6}?(?:to|on|onto|in|into)\s+"
    r"(?:my|the|our|that|this)\b"
)
"""An add into a thing that is there already ("add a first-aid kit to my camping
checklist", "put X on the list"): where a write adds into an existing thing
(``append_to_note`` beside ``create_note``), that one; else any add."""

_SAYS_REMOVE = re.compile(
    r"\b(?:delete|remove|cancel|erase|scrap|ditch|discard|trash|unschedule)\b"
    r"|\bdrop(?!\s+(?:off|by|in|me|us)\b)"
    r"|\bget\s+rid\s+of\b"
    r"|\bcall(?:ing)?\s+(?:\S+\s+){0,4}?off\b"
    r"|\btake\s+(?:\S+\s+){0,6}?(?:out\s+of|off)\s+(?:my|the|our)\b"
)
"""Phrases that take something away ("get rid of", "take X out of my calendar", "call it
off"); "drop off the kids" and "drop me a line" are not."""

_SAYS_MOVE = re.compile(
    r"\b(?:move|moved|reschedule|postpone|push|shift|rename|instead|change|edit|update)\b"
    r"|\bbring\s+(?:\S+\s+){0,4}?forward\b|\bput\s+(?:\S+\s+){0,4}?off\s+(?:until|till|to)\b"
)
"""Phrases that move or change something and keep it."""


def said_change(ask: str) -> str | None:
    """``"add"``, ``"remove"`` or ``"move"`` when the ask says that kind of change and no
    other."""
    text = ask.lower()
    said = [
        kind
        for kind, phrase in (("add", _SAYS_ADD), ("remove", _SAYS_REMOVE), ("move", _SAYS_MOVE))
        if phrase.search(text)
    ]
    if said == [] and _SAYS_APPEND.search(text):  # "put X on the list"
        said = ["add"]
    if said == ["add"] and _SAYS_APPEND.search(text):
        return "append"
    return said[0] if len(said) == 1 else None


def adds_into(tool: Tool) -> bool:
    """Whether a function's name says it adds into a thing that is there: ``append_to_note``,
    ``add_to_playlist``, ``insert_into_list``."""
    said = words(tool.name)
    return said[:1] == ["append"] or (
        said[:1] in (["add"], ["insert"]) and said[1:2] in (["to"], ["into"])
    )


def _kind(tool: Tool) -> str | None:
    said = words(tool.name)
    verb = said[0] if said else ""
    if adds_into(tool):
        return "append"  # append_to_note, add_to_playlist: into a thing that is there
    if verb in _ADD_VERBS:
        return "add"
    if verb in _REMOVE_VERBS:
        return "remove"
    if verb in _MOVE_VERBS:
        return "move"
    if verb in _MODIFY_VERBS:
        return "modify"
    return None


def _sibling(name: str, change: str, by_name: dict[str, Tool]) -> str:
    """``name``, or the one write of the same nouns whose verb is of the ``change`` said."""
    tool = by_name.get(name)
    if tool is None or not tool.writes or _kind(tool) not in _REPLACED[change]:
        return name
    nouns = name_nouns(tool.name)
    siblings = _siblings(nouns, _TARGETS[change], by_name)
    if not siblings and change == "append" and _kind(tool) != "add":
        siblings = _siblings(nouns, _TARGETS["add"], by_name)  # no add into: any add
    return siblings[0] if len(siblings) == 1 else name


def _siblings(nouns: frozenset[str], kinds: set[str], by_name: dict[str, Tool]) -> list[str]:
    return [
        other.name
        for other in by_name.values()
        if other.writes and _kind(other) in kinds and nouns and name_nouns(other.name) == nouns
    ]


def the_said_sibling(plan: Plan, tools: Sequence[Tool], ask: str) -> Plan:
    """``plan`` with each planned write whose verb is not the kind of change the ask says
    replaced by its sibling that is (``move_event`` → ``cancel_event`` for "take it out of
    my calendar"); any other plan as it is."""
    if plan.kind != "tool":
        return plan
    change = said_change(ask)
    if change is None:
        return plan
    by_name = {tool.name: tool for tool in tools}
    call = _sibling(plan.tool or "", change, by_name)
    then = None if plan.then is None else tuple(_sibling(n, change, by_name) for n in plan.then)
    if call == plan.tool and then == plan.then:
        return plan
    brief = plan.brief if call == plan.tool else by_name[call].description
    return attrs.evolve(plan, tool=call, brief=brief, then=then)
