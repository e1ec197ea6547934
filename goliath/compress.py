"""Compression of tool results into short ``key: value`` lines.

A small model reads a few hundred characters well and a few thousand badly, so every tool
result the model sees is a structural summary capped at 600 characters: lists keep their head,
their tail and any error-looking lines in between; objects become one line per key.
"""

from __future__ import annotations

import re
from typing import Any

from ._util import js_number
from .snapshot import to_plain

__all__ = ["RESULT_CHARS", "clip", "summarize_tool_result"]

RESULT_CHARS = 600
"""Cap, in characters, on every summary-mode result the model sees."""

_HEAD_ITEMS = 5
_TAIL_ITEMS = 2
_SHORT_LIST = _HEAD_ITEMS + _TAIL_ITEMS
_SCALAR_CHARS = 80
_ERROR_LINE = re.compile(
    r"\b(error|exception|failed|fatal|denied|timeout|timed out|time out|timedout)\b",
    re.IGNORECASE,
)


def clip(text: str, max_chars: int) -> str:
    """Cut ``text`` to ``max_chars``, ending in ``…`` when something was removed."""
    if len(text) <= max_chars:
        return text
    return text[: max(0, max_chars - 1)].rstrip() + "…"


def _text(value: Any) -> str:
    """``str()`` of a value msgspec and pydantic could not convert (a ``Path``, an IP address,
    a numpy number, an object with ``__str__``).

    Raises:
        _Unshowable: the value has no text form of its own (only ``object``'s default repr,
            which would show the model a memory address).
    """
    kind: Any = type(value)
    if kind.__str__ is object.__str__ and kind.__repr__ is object.__repr__:
        raise _Unshowable(kind)
    return str(value)


class _Unshowable(Exception):
    def __init__(self, kind: type) -> None:
        super().__init__(
            f"a {kind.__module__}.{kind.__qualname__} cannot be shown: msgspec and pydantic "
            "cannot convert it and it has no __str__"
        )
        self.kind = kind.__name__


def _scalar(value: Any) -> str:
    value = to_plain(value)
    if value is None:
        return ""
    if isinstance(value, str):
        return clip(value, _SCALAR_CHARS)
    if isinstance(value, (bool, int, float)):
        return js_number(value)
    if isinstance(value, (list, tuple, dict)):
        return ""  # a nested container: its one-line form leaves it out
    return clip(_text(value), _SCALAR_CHARS)


def _one_line(item: Any) -> str:
    if isinstance(item, dict):
        pairs = ((key, _scalar(value)) for key, value in item.items())
        return ", ".join(f"{key}: {text}" for key, text in pairs if text)
    return _scalar(item)


def summarize_tool_result(
    value: Any, max_chars: int = RESULT_CHARS, *, strict: bool = False
) -> str:
    """Render a tool's raw output as the short text a small model sees.

    ``None`` → ``done``; a blank string → ``(no output)``; an empty list → ``none``; lists become
    numbered lines (head, ``… N omitted``, error lines, tail); objects one ``key: value`` line per
    entry. Pydantic models, dataclasses, attrs and msgspec objects are read as their fields;
    anything else msgspec converts (dates, UUIDs, decimals, enums) as its JSON form, and the
    rest as its ``str()`` (paths, IP addresses, numpy numbers), so no value is shown as blank.
    A value with no text form at all (msgspec and pydantic cannot convert it, its class has no
    ``__str__``) gives ``(<type> output that cannot be shown)``. Never returns more than
    ``max_chars`` (at least 1) characters, and never raises unless ``strict``.

    Raises:
        TypeError: only with ``strict=True`` (what a tool step uses, to say which tool): a
            value, at any depth, has no text form. The message names its type.
    """
    try:
        return clip(_summarize(value, max_chars), max_chars)
    except (RecursionError, ValueError):  # a structure that contains itself; a 5,000-digit int
        return clip(f"({type(value).__name__} output that cannot be summarized)", max_chars)
    except _Unshowable as exc:
        if strict:
            raise TypeError(str(exc)) from None
        return clip(f"({exc.kind} output that cannot be shown)", max_chars)


def _summarize(value: Any, max_chars: int) -> str:
    value = to_plain(value)
    if value is None:
        return "done"
    if isinstance(value, str):
        return "(no output)" if not value.strip() else clip(value, max_chars)
    if isinstance(value, (list, tuple)):
        return _summarize_list(list(value), max_chars)
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            item = to_plain(item)
            if isinstance(item, (list, tuple, dict)):
                line = _one_line(item) if isinstance(item, dict) else ""
                lines.append(f"{key}: {line or _summarize(item, _SCALAR_CHARS)}")
            else:
                lines.append(f"{key}: {_scalar(item)}")
        return clip("\n".join(lines), max_chars)
    if isinstance(value, (bool, int, float)):
        return clip(js_number(value), max_chars)
    return clip(_text(value), max_chars)


def _summarize_list(items: list[Any], max_chars: int) -> str:
    if not items:
        return "none"
    lines = [f"{n}. {_one_line(to_plain(item))}" for n, item in enumerate(items, start=1)]
    if len(lines) <= _SHORT_LIST:
        return clip("\n".join(lines), max_chars)
    middle = lines[_HEAD_ITEMS:-_TAIL_ITEMS]
    kept = [
        *lines[:_HEAD_ITEMS],
        f"… {len(lines) - _SHORT_LIST} omitted",
        *(line for line in middle if _ERROR_LINE.search(line)),
        *lines[-_TAIL_ITEMS:],
    ]
    return clip("\n".join(kept), max_chars)
