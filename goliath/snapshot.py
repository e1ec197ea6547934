"""JSON snapshots of user values: what step records keep and what messages carry.

A tool's output, an argument dict or an app's object is copied by a JSON round trip the moment
it is recorded, so later mutation of the caller's objects cannot change the record, and every
record encodes to JSON and MessagePack. msgspec itself encodes dataclass and attrs instances and
sets; pydantic models are dumped to plain data on the way.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pydantic

__all__ = ["UNSERIALIZABLE", "json_snapshot", "to_builtins_hook", "to_plain", "try_snapshot"]


def to_builtins_hook(value: Any) -> Any:
    """msgspec's ``enc_hook`` for values it cannot encode itself (pydantic models)."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


UNSERIALIZABLE = (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError)
"""What encoding an arbitrary value may raise (RecursionError: a structure that contains itself)."""


def json_snapshot(value: Any) -> Any:
    """A JSON round-trip copy of ``value``; raises TypeError/ValueError when not serializable.

    Snapshots are what step records keep: later mutation of the tool's own objects cannot
    change what was recorded, and records always encode to JSON and MessagePack.
    """
    return msgspec.json.decode(msgspec.json.encode(value, enc_hook=to_builtins_hook))


def try_snapshot(value: Any) -> Any:
    """Like :func:`json_snapshot`, but ``None`` when the value does not serialize."""
    try:
        return json_snapshot(value)
    except UNSERIALIZABLE:
        return None


def to_plain(value: Any) -> Any:
    """Turn pydantic models, dataclasses, attrs and msgspec objects into dicts/lists (best effort)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (dict, list, tuple)):
        return value
    try:
        return json_snapshot(value)
    except UNSERIALIZABLE:
        return value
