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

__all__ = [
    "DEFAULT_RAW_OUTPUT_BYTES",
    "UNSERIALIZABLE",
    "WORKING_OUTPUT_BYTES",
    "capped_snapshot",
    "capped_snapshots",
    "json_snapshot",
    "to_builtins_hook",
    "to_plain",
    "try_snapshot",
]


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


DEFAULT_RAW_OUTPUT_BYTES = 128 * 1024
"""128 KiB: the JSON size of a tool's raw output a step keeps by default (``raw_output_bytes``)."""

WORKING_OUTPUT_BYTES = 16 * 1024 * 1024
"""16 MiB: the JSON size of a raw output over ``raw_output_bytes`` that the running turn still
keeps for its own rules (a search of a 2,000-email inbox is ~240 KB); never recorded."""


def capped_snapshot(value: Any, max_bytes: int | None) -> tuple[Any, str | None]:
    """A snapshot of ``value`` no larger than ``max_bytes`` of JSON, or ``None`` and why not.

    The raw output of a tool travels in the result, the turn's record, memory's recent
    exchanges and the store; one 10 MiB output must not be copied into all of them. The
    output is encoded once: what is over the cap is never decoded again.
    """
    kept, _, reason = capped_snapshots(value, max_bytes, max_bytes)
    return kept, reason


def capped_snapshots(
    value: Any, max_bytes: int | None, working_bytes: int | None
) -> tuple[Any, Any, str | None]:
    """What a record keeps of ``value`` (as :func:`capped_snapshot`), what the running turn
    keeps (up to ``working_bytes``; the same object when the record keeps it), and why the
    record keeps nothing. Encoded once, decoded at most once."""
    try:
        encoded = msgspec.json.encode(value, enc_hook=to_builtins_hook)
    except UNSERIALIZABLE as exc:
        return None, None, f"not JSON-serializable ({type(exc).__name__})"
    size = len(encoded)
    over = max_bytes is not None and size > max_bytes
    reason = (
        f"{size:,} bytes of JSON, over the {max_bytes:,}-byte cap (raw_output_bytes)"
        if over and max_bytes is not None
        else None
    )
    if over and working_bytes is not None and size > working_bytes:
        return None, None, reason
    try:
        decoded = msgspec.json.decode(encoded)
    except (msgspec.DecodeError, RecursionError) as exc:
        return None, None, f"not JSON-serializable ({type(exc).__name__})"
    return (None if over else decoded), decoded, reason


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
