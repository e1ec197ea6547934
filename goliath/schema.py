"""Compact JSON Schemas for guided generation.

Every schema a small model is constrained by is also text it reads and tokens it pays for, so
schemas are flattened: titles and defaults dropped, ``$ref``s inlined, ``Optional[X]`` written
as a non-required ``X``, objects closed with ``additionalProperties: false`` (which Apple's
dialect requires and grammar converters handle).
"""

from __future__ import annotations

import copy
from typing import Any

import pydantic

from .errors import ConfigError

__all__ = ["compact_schema", "plan_schema", "schema_depth"]

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


WHY_DESCRIPTION = "One short sentence naming the fact that decides this step."


def plan_schema(tool_names: list[str], *, require_tool: bool = False) -> dict[str, Any]:
    """The conductor's schema; field order is generation order, so ``why`` comes first.

    ``tool`` is optional (an answer names none). After a plan that chose ``kind: "tool"`` but
    named no tool — what grammar-constrained small models do when a field may be skipped — the
    retry requires it, so the grammar itself closes the gap the hint describes.
    """
    properties: dict[str, Any] = {
        "why": {"type": "string", "description": WHY_DESCRIPTION},
        "kind": {"type": "string", "enum": ["tool", "answer", "escalate"]},
        "tool": {"type": "string", "enum": list(tool_names)},
        "brief": {"type": "string"},
    }
    return {
        "type": "object",
        "properties": properties,
        "required": ["kind", "tool", "brief"] if require_tool else ["kind", "brief"],
        "additionalProperties": False,
    }
