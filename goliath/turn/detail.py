"""A search's hits are pointers: before answering from them, read the hit.

``search_emails`` returns who wrote and the subject; what the user asked — the tracking number,
the flight's time, the price — is in the email, which ``read_email(email_id)`` returns. The
1.5B model answers from the hit lines instead, and invents what they do not hold ("The tracking
number for your order is 2025-03-09."): on the held-out half, 15 of 16 two-step asks failed,
most of them a search with no read of its hit.

So when a turn is about to answer right after a search — a read named for searching
(``search_*``, ``find_*``, ``query``) or called with a query — whose result is a list of items
with ids, and a read of this toolset takes one such id and nothing else (its one required parameter is an
id of the same kind: ``email_id`` after ``search_emails``, ``recipe_id`` after
``search_recipes``), that read runs first, once per turn; its worker picks the hit from the
result lines. The kind is told by the names: the id parameter's word (``email`` of
``email_id``), or the function's own nouns for a bare ``id``, must be a word of the search's
name. A read the turn already made, a write, or a function with other required parameters is
never chosen this way (docs/design.md, "A search's hits are read before answering").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import StepRecord
from ..tools import Tool
from .lookup import id_parameters
from .write_gate import singular

__all__ = ["hit_reader"]

_WORD = re.compile(r"[a-z0-9]+")
_VERBS = frozenset({"get", "read", "open", "show", "fetch", "view", "find", "load", "describe"})
_SEARCH_VERBS = frozenset({"search", "find", "query", "lookup", "look"})
_QUERY_PARAMETERS = frozenset({"query", "q", "search", "keyword", "keywords", "term", "text"})
_ID_SUFFIX = re.compile(r"(_?ids?|Ids?)$")


def hit_reader(available: Sequence[Tool], steps: Sequence[StepRecord]) -> Tool | None:
    """The read that opens one of the last step's hits, or ``None`` when there is none."""
    last = steps[-1] if steps else None
    if last is None or last.kind != "tool" or last.writes or last.failed or last.skipped:
        return None
    if last.tool is None or not _searched(last) or not _has_ids(last.output):
        return None
    ran = {step.tool for step in steps if step.kind == "tool"}
    searched = _name_words(last.tool)
    for tool in available:
        if tool.writes or tool.name in ran:
            continue
        schema = tool.schema if isinstance(tool.schema, dict) else {}
        required = list(schema.get("required") or [])
        ids = id_parameters(tool)
        if len(required) != 1 or ids != required:
            continue
        kind = _name_words(_ID_SUFFIX.sub("", ids[0])) or (_name_words(tool.name) - _VERBS)
        if kind & searched:
            return tool
    return None


def _searched(step: StepRecord) -> bool:
    """A search, by its name or by a free-text query among its arguments: its hits point at
    items (a plain listing of tasks or events is itself what was asked for)."""
    if _name_words(step.tool or "") & _SEARCH_VERBS:
        return True
    given = step.input if isinstance(step.input, Mapping) else {}
    return any(
        name.lower() in _QUERY_PARAMETERS and isinstance(value, str) and value.strip()
        for name, value in given.items()
    )


def _has_ids(output: Any) -> bool:
    items = _items(output)
    return bool(items) and all(
        any(key == "id" or key.endswith(("_id", "Id")) for key in item) for item in items
    )


def _items(output: Any) -> list[Mapping[str, Any]]:
    if isinstance(output, list):
        return [item for item in output if isinstance(item, Mapping)]
    if isinstance(output, Mapping):  # {"emails": [...], "count": 3}
        lists = [value for value in output.values() if isinstance(value, list)]
        if len(lists) == 1:
            return [item for item in lists[0] if isinstance(item, Mapping)]
    return []


def _name_words(name: str) -> set[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").lower()
    return {singular(word) for word in _WORD.findall(spaced)}
