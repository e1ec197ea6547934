"""Compact JSON Schemas for guided generation.

Every schema a small model is constrained by is also text it reads and tokens it pays for, so
schemas are flattened: titles and defaults dropped, ``$ref``s inlined, ``Optional[X]`` written
as a non-required ``X``, objects closed with ``additionalProperties: false`` (which Apple's
dialect requires and grammar converters handle).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import attrs
import pydantic

from .errors import ConfigError

__all__ = [
    "DONE",
    "HAND_OFF",
    "NO_TOOL",
    "Options",
    "compact_schema",
    "first_plan_schema",
    "plan_options",
    "plan_schema",
    "schema_depth",
]

_DROP = {"title", "default", "examples"}


def compact_schema(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    """The flattened JSON Schema of a pydantic model class."""
    try:
        raw = model.model_json_schema()
    except Exception as exc:  # pydantic raises several types for unsupported annotations
        raise ConfigError(
            f"Cannot build a JSON Schema for {model.__name__}: {exc}. Tool parameters and output "
            "schemas must use JSON-compatible types (str, int, float, bool, enums, lists, models)."
        ) from exc
    defs = raw.pop("$defs", {})
    result = _simplify(raw, defs, depth=0)
    assert isinstance(result, dict)
    return result


def _simplify(node: Any, defs: dict[str, Any], depth: int) -> Any:
    if depth > 32:
        raise ConfigError("Schema is recursive or nested more than 32 levels deep.")
    if isinstance(node, list):
        return [_simplify(item, defs, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        target = copy.deepcopy(defs.get(name, {}))
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _simplify(merged, defs, depth + 1)
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        non_null = [option for option in any_of if option != {"type": "null"}]
        if len(non_null) == 1 and len(non_null) < len(any_of):
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return _simplify({**non_null[0], **rest}, defs, depth + 1)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _simplify(sub, defs, depth + 1) for name, sub in value.items()}
        else:
            out[key] = _simplify(value, defs, depth + 1)
    if out.get("type") == "object" and "properties" in out:
        out.setdefault("additionalProperties", False)
    return out


def schema_depth(schema: Any) -> int:
    """How many object/array levels a schema nests (a flat object of scalars is 1)."""
    if not isinstance(schema, dict):
        return 0
    inner = 0
    for key in ("properties",):
        for sub in (schema.get(key) or {}).values():
            inner = max(inner, schema_depth(sub))
    if isinstance(schema.get("items"), dict):
        inner = max(inner, schema_depth(schema["items"]))
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or []:
            inner = max(inner, schema_depth(sub) - 1)
    is_container = schema.get("type") in ("object", "array") or "properties" in schema
    return inner + (1 if is_container else 0)


NO_TOOL = "general_knowledge_or_chat"
"""The first plan's option for an ask that needs no function: small talk, general knowledge."""
DONE = "answer_the_user"
"""The option for "the calls so far are enough: reply now" (a first plan's ``then``, a gate)."""
HAND_OFF = "beyond_these_functions"
"""The option that hands the ask to the cloud: no function here can do what it wants."""


@attrs.frozen
class Options:
    """The names of the plan's options that are not tools, unlike every tool's name."""

    no_tool: str
    done: str
    hand_off: str


def plan_options(tool_names: Sequence[str]) -> Options:
    """The non-tool options' names for these tools (a tool of the same name keeps its name)."""
    taken = set(tool_names)

    def free(name: str) -> str:
        while name in taken:
            name = "_" + name
        return name

    return Options(free(NO_TOOL), free(DONE), free(HAND_OFF))


def first_plan_schema(
    tool_names: list[str],
    *,
    require_tool: bool = False,
    hand_off: bool = True,
    then_names: list[str] | None = None,
) -> dict[str, Any]:
    """The turn's first planning call: the first call, then the one after it or none.

    ``call`` is a tool's name or one of the two options (no function, beyond these functions);
    ``then`` is "answer the user" (first in its enum) or the next tool. Measured on the dev
    half (plan probe, 131 first wordings): as a list of up to three names the 1.5B model
    appended the function listed next to the one it needed (41 plans right); with ``then``
    and a name that means "nothing more", 85 (docs/design.md, "The plan"). Both fields are
    required, because a constrained small model writes required fields first and skips
    optional ones. After a plan that named no usable tool the retry offers only the tools;
    ``hand_off=False`` (the hand-off check already kept the ask on the device) drops that option.
    ``then_names`` (default ``tool_names``) are the functions ``then`` may name, where the
    first call is narrowed and the next is not.
    """
    options = plan_options(tool_names)
    extra = [options.no_tool, options.hand_off] if hand_off else [options.no_tool]
    names = list(tool_names) if require_tool else [*tool_names, *extra]
    return {
        "type": "object",
        "properties": {
            "call": {"type": "string", "enum": names},
            "then": {"type": "string", "enum": [options.done, *(then_names or tool_names)]},
        },
        "required": ["call", "then"],
        "additionalProperties": False,
    }


def plan_schema(tool_names: list[str], *, require_tool: bool = False) -> dict[str, Any]:
    """A later planning call: the next ``call`` (a tool, "answer the user" or "beyond").

    After a plan that named no usable tool the retry offers only the tools, so the grammar
    itself closes the gap the hint describes.
    """
    options = plan_options(tool_names)
    names = list(tool_names) if require_tool else [*tool_names, options.done, options.hand_off]
    return {
        "type": "object",
        "properties": {"call": {"type": "string", "enum": names}},
        "required": ["call"],
        "additionalProperties": False,
    }
