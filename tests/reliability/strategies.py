"""Hypothesis strategies for the runtime's messages, built from their own type annotations.

Every msgspec Struct is generated field by field from ``msgspec.structs.fields`` (so a field
added to a message is fuzzed without touching this file); ``Any`` fields get arbitrary JSON
values. Floats are finite: JSON has no NaN or infinity, by design.
"""

from __future__ import annotations

import types
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec
from hypothesis import strategies as st

__all__ = ["json_values", "message_strategy", "strategy_for"]

_INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_FLOATS = st.floats(allow_nan=False, allow_infinity=False)
_TEXT = st.text(max_size=24)

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | _INT64 | _FLOATS | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)
"""Any JSON value: what a tool may return, what ``context`` and ``Any`` fields may hold."""


def strategy_for(annotation: Any) -> st.SearchStrategy[Any]:
    """Values of ``annotation`` (a msgspec Struct, a union, a container or a scalar)."""
    origin = get_origin(annotation)
    if annotation is Any or isinstance(annotation, TypeVar):  # an unbound type parameter is Any
        return json_values
    if annotation is str:
        return _TEXT
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return _INT64
    if annotation is float:
        return _FLOATS
    if annotation is type(None) or annotation is None:
        return st.none()
    if origin is Literal:
        return st.sampled_from(get_args(annotation))
    if origin in (Union, types.UnionType):
        return st.one_of(*(strategy_for(arg) for arg in get_args(annotation)))
    if origin is list:
        (item,) = get_args(annotation)
        return st.lists(strategy_for(item), max_size=3)
    if origin is dict:
        key, value = get_args(annotation)
        return st.dictionaries(strategy_for(key), strategy_for(value), max_size=3)
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        fields = {
            field.name: strategy_for(field.type) for field in msgspec.structs.fields(annotation)
        }
        return st.builds(annotation, **fields)
    raise NotImplementedError(f"no strategy for {annotation!r}: extend strategies.py")


def message_strategy(union: Any) -> st.SearchStrategy[Any]:
    """Any message of a tagged union such as ``actors.messages.AnyMessage``."""
    return st.one_of(*(strategy_for(member) for member in get_args(union)))
