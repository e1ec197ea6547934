"""A read filtered by done or not, the way the ask asks: "which tasks did I finish?" reads the
done ones.

A to-do read often takes a state filter with open items as its default (``status: open |
done | all``, ``include_done: false``). Asked "what have I already ticked off?" or "which
tasks did I finish recently?", the 1.5B model's worker left the default, the read returned
the open tasks, and the answer named them as finished (dev, both wordings). The ask says the
state in words the enum does not hold ("finished", "ticked off", "completed"), so the harness
reads them: an ask to be shown things done ("what ...", "which ...", "show me ..."), with no
negation, no condition and no change asked, sets a state filter (an enum parameter named for a status or filter) that offers a done value
to that value, or to ``all`` when the ask wants the done items beside others ("including",
"too", "or"), and a boolean parameter that names done items (``include_done``, not
``hide_completed``) to true (docs/design.md, "Done, as the ask says it").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..tools import Tool
from .words import words

__all__ = ["asked_done"]

_DONE_VALUES = ("done", "completed", "complete", "finished", "closed")
"""Enum values that mean an item is done, in the order one is preferred."""
_DONE_SAID = re.compile(
    r"\b(?:finished|completed|done|ticked\s+off|checked\s+off|crossed\s+off|struck\s+off)\b"
    r"|\b(?:did|have|had)\s+(?:i|we|you)\s+(?:already\s+)?(?:finish|complete|tick|cross)\b"
)
"""The ask says items are done: a past form, or "did I finish ..."."""
_NOT_ABOUT_DONE = re.compile(
    r"\b(?:not|never|no|yet|still|left|open|remaining|outstanding|pending|if|unless)\b"
    r"|n't\b|\bmark\b|\bdone\s+(?:by|before|with)\b|\b(?:have|did|had)\s+you\b"
)
"""An ask about what is not done, a condition ("if it's done"), a change ("mark it done"),
"done by Friday" (a due date), or what the assistant did ("have you done it?"): none of them
reads the done items alone."""
_CHANGE_FIRST = re.compile(
    r"^(?:please\s+)?(?:tick|check|cross|complete|finish|close|delete|remove)\b"
    r"|[,;.!]\s*(?:please\s+|and\s+)?(?:tick|check|cross|complete|finish|close|delete|remove)\b"
)
"""A clause that opens with a change: "I finished the report, tick it off"."""
_ASKS_TO_SEE = re.compile(
    r"^(?:(?:please|so|and|ok|okay|hey)\W+)*(?:(?:can|could|would)\s+you\s+)?"
    r"(?:what|which|show|list|tell\s+me|read\s+me|give\s+me|did|have|how\s+many)\b"
)
"""An ask to be shown items: "what have I ...", "show me ...", "did I ...". A statement ("the
report is done now", "prescription - done") is a completion to make, whose look-up must list
the open items; "is the report done?" is about one item, which a read of every state answers."""


_BESIDES = re.compile(r"\b(?:including|include|too|also|as well|all|both|or|and what)\b")
"""The done items beside others ("all my tasks including the completed ones", "which are
done or overdue?"): every state is read, where a filter offers it, never the done ones alone."""
_FILTER_WORDS = frozenset({"status", "state", "filter", "show", "include", "done", "completed"})
"""Words of a parameter's name that make it a filter by state (not ``sort_by``)."""
_NEGATIVE_WORDS = frozenset({"hide", "exclude", "skip", "without", "only", "open", "no"})
"""Words of a boolean's name that turn it round (``hide_completed``): left alone."""


def asked_done(tool: Tool, values: Mapping[str, Any], ask: str) -> dict[str, Any] | None:
    """The read's arguments with its done filter set as the ask says, or ``None`` when the
    ask is not about done items or the read has no such filter (or already has it so)."""
    if tool.writes:
        return None
    said = " ".join(ask.lower().replace("\u2019", "'").split())
    if not _ASKS_TO_SEE.search(said) or not _DONE_SAID.search(said):
        return None
    if _NOT_ABOUT_DONE.search(said) or _CHANGE_FIRST.search(said):
        return None
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    besides = _BESIDES.search(said) is not None
    changed = dict(values)
    for name, spec in properties.items():
        if not isinstance(spec, Mapping):
            continue
        named = set(words(str(name)))
        options = {value.lower(): value for value in _enum(spec)}
        done = next((options[value] for value in _DONE_VALUES if value in options), None)
        if done is not None and named & _FILTER_WORDS:
            if besides:
                done = options.get("all")
            if done is not None:
                changed[name] = done
        elif (
            _boolean(spec)
            and {"done", "completed", "finished"} & named
            and not named & _NEGATIVE_WORDS
        ):
            changed[name] = True
    return changed if changed != dict(values) else None


def _enum(spec: Mapping[str, Any]) -> list[str]:
    """The string values an enum parameter (or an optional one, ``anyOf`` with null) offers."""
    found = [value for value in spec.get("enum") or () if isinstance(value, str)]
    for option in spec.get("anyOf") or ():
        if isinstance(option, Mapping):
            found += [value for value in option.get("enum") or () if isinstance(value, str)]
    return found


def _boolean(spec: Mapping[str, Any]) -> bool:
    if spec.get("type") == "boolean":
        return True
    return any(
        isinstance(option, Mapping) and option.get("type") == "boolean"
        for option in spec.get("anyOf") or ()
    )
