"""Finding one item by a name the model wrote, as the suite's fake tools do.

A model writes "Diego", "porto" or "the prescription"; a tool must either find exactly one
item or fail with an error that names the choices, so the next step can pick one of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["matching", "only", "words_of"]

_COMMON = (
    "about and any are did does email emails for from has have her his how message note notes "
    "our that the their this was what when where who with"
)
_STOPWORDS = frozenset(_COMMON.split())
"""Words too common to search for (shorter ones are never searched for)."""


def words_of(query: str) -> list[str]:
    """The words of a search query worth looking for (three letters or more, no filler)."""
    words = [word.strip(".,?!:;'\"()") for word in query.lower().split()]
    return [word for word in words if len(word) > 2 and word not in _STOPWORDS]


def matching(items: Sequence[dict[str, Any]], key: str, wanted: str) -> list[dict[str, Any]]:
    """Items whose ``key`` contains ``wanted`` (case-insensitive); whole words win over parts.

    "Ben" finds "Ben Carter" rather than "Benedikt Huber" too; "eye test" finds "Eye test at the
    opticians".
    """
    needle = wanted.strip().lower()
    if not needle:
        return []
    found = [item for item in items if needle in str(item[key]).lower()]
    if len(found) > 1:
        exact = [item for item in found if str(item[key]).lower() == needle]
        if exact:
            return exact
        pattern = re.compile(rf"\b{re.escape(needle)}\b")
        whole = [item for item in found if pattern.search(str(item[key]).lower())]
        if whole:
            return whole
    return found


def only(items: Sequence[dict[str, Any]], key: str, wanted: str, what: str) -> dict[str, Any]:
    """The one item ``wanted`` names, or a ``LookupError`` that lists what there is."""
    found = matching(items, key, wanted)
    if len(found) == 1:
        return found[0]
    choices = ", ".join(str(item[key]) for item in (found or items)) or "none"
    problem = f"no {what} matches" if not found else f"several {what}s match"
    raise LookupError(f"{problem} {wanted!r}; {'they are' if found else 'there are'}: {choices}")
