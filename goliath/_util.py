"""Small helpers shared across the harness. Not public API."""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Awaitable
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")

_json_encoder = msgspec.json.Encoder(order="deterministic")


async def maybe_await(value: T | Awaitable[T]) -> T:
    """Await ``value`` when a user callback returned an awaitable (sync or async callbacks)."""
    if inspect.isawaitable(value):
        return await value
    return value


def message_of(exc: BaseException) -> str:
    """The text an error shows: its message, or its class name when the message is empty."""
    return str(exc) or type(exc).__name__


def named_message(exc: BaseException) -> str:
    """``"<ErrorName>: <message>"``, the form escalation events carry."""
    return f"{type(exc).__name__}: {exc}"


def canonical_json(value: Any) -> str:
    """Key-order-independent JSON text: two inputs are equal when these strings are equal."""
    return _json_encoder.encode(value).decode()


def compact_json(value: Any) -> str:
    """JSON text without spaces, keys in the order given (what prompts show)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def js_number(value: float) -> str:
    """Render a number as JavaScript's ``String(n)`` would (``1.0`` → ``1``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def export_as(module: str, namespace: dict[str, Any], names: list[str]) -> None:
    """Make the classes a package re-exports say they live there (``goliath.ConfigError``).

    Tracebacks and reprs then show the public name, not the private module that defines it.
    msgspec Structs keep their module: msgspec resolves their annotations through it.
    """
    for name in names:
        value = namespace[name]
        if isinstance(value, type) and not issubclass(value, msgspec.Struct):
            value.__module__ = module
