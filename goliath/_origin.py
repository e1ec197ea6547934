"""Where an error came from, recorded on the exception itself (not a wrapper).

A run that fails raises the original exception, yet the harness must know whether it came from
a model call (escalate), a tool, the memory store, a hook or an event callback (reject), and
``on_error`` hooks receive that origin. Tagging the exception keeps both promises.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

Origin = Literal[
    "extension",
    "model",
    "memory",
    "confirm",
    "fallback",
    "formatter",
    "event",
    "config",
    "budget",
    "tool",
    "harness",
]

_ATTRIBUTE = "__goliath_origin__"


def mark(exc: BaseException, origin: Origin) -> None:
    """Record ``origin`` on ``exc`` unless an inner operation already did."""
    if getattr(exc, _ATTRIBUTE, None) is None:
        try:
            setattr(exc, _ATTRIBUTE, origin)
        except (AttributeError, TypeError):  # exceptions with __slots__ and no __dict__
            pass


def origin_of(exc: BaseException) -> Origin | None:
    value = getattr(exc, _ATTRIBUTE, None)
    return value


@contextmanager
def origin(name: Origin) -> Iterator[None]:
    """Tag any ``Exception`` escaping the block with ``name`` (cancellation passes untouched)."""
    try:
        yield
    except Exception as exc:
        mark(exc, name)
        raise
