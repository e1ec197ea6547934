"""A call filled again after it failed: when a "not found" names something like the value asked.

The 1.5B model names an item as the user said it — "hallway light", "Marrakech trip", "can of
WD-40" — where the tool knows "Hallway", "Marrakech", "WD-40", and the tool's error lists what
there is. Such a near miss is the form of a value gone wrong, like "cannot read the day
'Monday 10 March 2025'", and the turn fills the call again once with the error in view
(``run.py``, ``_repair``). A write filled again must still name the same item: a text that
shares no word with what the failed call had names another one, and the write is withheld
(docs/design.md, "A read that failed on the form of a value is filled again").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tools import Tool
from .words import singular, words

__all__ = ["drift_note", "drifted_values", "names_a_near_match"]

_FILLER_WORDS = frozenset({"a", "an", "the", "my", "of", "to", "in", "on", "at", "for", "and"})


def names_a_near_match(exc: Exception, tool_input: Mapping[str, Any]) -> bool:
    """Whether a call's "not found" (a ``LookupError``, not a ``KeyError`` or ``IndexError``
    from the tool's own code) names something like what was asked: a word of a value, other
    than the parameter's own name, appears in the message outside the quoted value ("no trip
    matches 'Marrakech trip'; there are: Lisbon long weekend, Marrakech"). Then the value was
    close and its form was wrong; a message naming nothing like it is a true "not found"."""
    if not isinstance(exc, LookupError) or isinstance(exc, (KeyError, IndexError)):
        return False
    message = str(exc).lower()
    for name, value in tool_input.items():
        if not isinstance(value, str) or not value.strip():
            continue
        rest = message.replace(value.lower(), " ")
        wanted = set(words(value)) - set(words(name)) - _FILLER_WORDS
        if wanted & set(words(rest)):
            return True
    return False


def drifted_values(tool: Tool, before: Any, after: Mapping[str, Any]) -> list[str]:
    """The parameters whose text a repaired write changed to something sharing no word with
    what the failed call had (the function's and the parameter's own words aside): "hallway
    light" → "Hallway" is the same light named as the tool knows it; "hallway light" →
    "Porch light" is another light."""
    if not isinstance(before, Mapping):
        return []
    own = set(words(tool.name)) | _FILLER_WORDS
    drifted = []
    for name, old in before.items():
        new = after.get(name)
        if not isinstance(old, str) or not isinstance(new, str) or not old.strip() or new == old:
            continue
        plain = {singular(w) for w in words(old)} - own - {singular(w) for w in words(name)}
        if plain and not plain & {singular(w) for w in words(new)}:
            drifted.append(name)
    return drifted


def drift_note(tool: Tool, names: list[str]) -> str:
    """What the answer is told when a repaired write would have changed another item."""
    return (
        f"Nothing was changed: {tool.name} failed because what it names was not found, and no "
        f"item like it ({', '.join(names)}) was there. Tell the user it was not found."
    )
