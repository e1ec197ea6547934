"""The item and the place it goes, when the worker put the item where the place belongs.

"add a first-aid kit to my camping checklist" was filled ``append_to_note(title="first-aid
kit", text="")``, and "Put a first aid kit on the camping checklist, please." ``title="first
aid kit", text="on the camping checklist"`` (dev, both wordings, in every stored run): the
1.5B model takes the first thing named for the title. The ask's own frame says which is which:
a verb of adding, the item, then "to / on / in my|the ..." and the place. For a write that adds
into a thing that is there (``append_*``, ``add_to_*``, ``sibling.adds_into``), whose text parameter (``text``,
``content`` ...) is blank or only names the place, and whose naming parameter holds the item
as the frame says it, the two are put the right way round (docs/design.md, "The item and the
place it goes").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..tools import Tool
from .sibling import adds_into
from .words import WRITTEN_WORDS, name_nouns, singular, words

__all__ = ["item_in_place"]

_FRAME = re.compile(
    r"\b(?:add|put|append|stick|pop|throw|jot|write)\s+"
    r"(?P<item>(?:[\w'’-]+\s+){0,6}?[\w'’-]+)\s+"
    r"(?:to|on|onto|in|into)\s+(?:my|the|our|that|this)\s+(?P<place>[^,.;:!?]+)",
    re.IGNORECASE,
)
_LEADING = frozenset({"a", "an", "the", "some", "my", "our", "another"})
_PRONOUNS = frozenset(
    {"it", "them", "this", "that", "these", "those", "something", "anything", "one", "stuff"}
)
_TRAILING = frozenset({"please", "too", "now", "then", "thanks", "for", "me", "as", "well"})
_PLACE_GLUE = frozenset({"to", "on", "onto", "in", "into", "my", "the", "our", "that", "this"})
_NAMING = ("title", "name", "note", "list", "list_name", "playlist")


def item_in_place(tool: Tool, values: Mapping[str, Any], ask: str) -> dict[str, Any] | None:
    """The values with the place and the item put the right way round, or ``None`` when the
    call is not that mistake: not an add into a thing that is there, no "add X to my Y" in
    the ask, the item a pronoun ("add it to the list"), the naming parameter not the item, or
    a text that says more than where it goes."""
    if not tool.writes or not adds_into(tool):
        return None
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    required = [name for name in schema.get("required") or [] if isinstance(name, str)]
    texts = [name for name in required if set(words(name)) & WRITTEN_WORDS]
    naming = [name for name in required if name in _NAMING and name not in texts]
    if len(texts) != 1 or len(naming) != 1:
        return None
    text, name = texts[0], naming[0]
    frame = _FRAME.search(" ".join(ask.replace("\u2019", "'").split()))
    if frame is None:
        return None
    item = words(frame["item"])
    while item and item[0] in _LEADING:
        item = item[1:]
    place = _place(frame["place"], name_nouns(tool.name))
    if not item or set(item) <= _PRONOUNS or not place:
        return None
    held = values.get(name)
    if not isinstance(held, str) or _content(held) != {singular(word) for word in item}:
        return None
    written = values.get(text)
    if isinstance(written, str) and written.strip():
        if not set(words(written)) <= set(words(place)) | _PLACE_GLUE:
            return None  # the text says something of its own
    elif written is not None and not isinstance(written, str):
        return None
    return {**values, name: place, text: held.strip()}


def _place(phrase: str, nouns: frozenset[str]) -> str:
    """The place as said, without a trailing "please" or the tool's own noun ("my camping
    checklist note" → "camping checklist")."""
    said = phrase.split()
    while said and all(word in _TRAILING or singular(word) in nouns for word in words(said[-1])):
        said = said[:-1]
    return " ".join(said)


def _content(value: str) -> set[str]:
    return {singular(word) for word in words(value) if word not in _LEADING}
