"""A value that copies the list of choices its parameter's description gives.

A tool's docstring often lists what a free string may be ("playlist: The playlist's name:
Running, Focus, Sunday kitchen or Road trip 2024."), and the 1.5B model copies the whole list
as the value: ``get_playlist(name="Running, Focus, Sunday kitchen or Road trip 2024")`` for "Is
Coastline Radio on the Running playlist?" (dev, three wordings of one ask, and two more that
passed only after a failed call). The list is the description's, not the user's choice: the
one choice the user named is the value; with none of them named, or several, the value was
not given, and the call goes without it — a required one is asked for (docs/design.md, "A
value that copies its description's choices").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..tools import Tool
from .words import singular, words

__all__ = ["listed_choices"]

_SEPARATORS = re.compile(r"\s*(?:[,;/]|\bor\b|\band\b)\s*", re.IGNORECASE)
_TRIM = " .:;'\"`"


def listed_choices(tool: Tool, values: Mapping[str, Any], said: str) -> dict[str, str | None]:
    """By parameter, for each string value that is two or more of the choices its description
    lists ("A, B or C", each found in the description as written): the one choice whose words
    the user said (``said``: the ask and the turns before it), or ``None`` when they said none
    of them or more than one. A value whose every choice the user said is theirs, and is left
    out; so is a value with one part, or a part the description does not hold."""
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    asked = {singular(word) for word in words(said)}
    found: dict[str, str | None] = {}
    for name, value in values.items():
        spec = properties.get(name)
        description = spec.get("description") if isinstance(spec, dict) else None
        if not isinstance(value, str) or not isinstance(description, str):
            continue
        parts = [part.strip(_TRIM) for part in _SEPARATORS.split(value)]
        parts = [part for part in parts if part]
        if len(parts) < 2 or not all(_within(part, description) for part in parts):
            continue
        named = [part for part in parts if _named(part, asked)]
        if len(named) == len(parts):
            continue  # "Running and Focus", said so: the user's own two
        found[name] = named[0] if len(named) == 1 else None
    return found


def _within(part: str, description: str) -> bool:
    """Whether the description holds the part as written, whole words, case aside."""
    pattern = rf"(?<!\w){re.escape(' '.join(part.split()))}(?!\w)"
    return re.search(pattern, " ".join(description.split()), re.IGNORECASE) is not None


def _named(part: str, asked: set[str]) -> bool:
    """Whether the user said every word of a choice (its numbers aside: "my road trip
    playlist" names "Road trip 2024")."""
    own = {singular(word) for word in words(part) if not word.isdigit()}
    return bool(own) and own <= asked
