"""From an MCP tool's JSON Schema to the flat pydantic model a small model can fill.

Goliath's arguments stage fills one tool's arguments under guided generation, and a ~3B model does that
well only for a flat object: strings, numbers, integers, booleans, enums, and lists of those.
Anything deeper (a nested object, a list of objects, a union of types) is refused with the
reason, rather than handed to a model that will get it wrong. Nothing here imports ``mcp``.
"""

from __future__ import annotations

import keyword
import re
from typing import Any, Literal

import attrs
import pydantic

__all__ = ["MAX_SCHEMA_DEPTH", "Parameters", "SchemaRefused", "parameters_model"]

MAX_SCHEMA_DEPTH = 2
"""Levels of nesting a tool's arguments may use: an object (1) of scalars and lists of scalars (2)."""
RESERVED = frozenset({"missing"})
"""Argument names the arguments stage's own schema uses (it appends ``missing`` to every tool's schema)."""
FLAT_HINT = (
    "Goliath fills flat arguments only (strings, numbers, booleans, enums and lists of those); "
    "wrap the tool in a flat @tool of your own, or ask the server's author for a flat variant"
)
_SCALARS: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool}
_CONSTRAINTS = {
    "maxLength": "max_length",
    "minLength": "min_length",
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "maxItems": "max_length",
    "minItems": "min_length",
}
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class SchemaRefused(ValueError):
    """A tool's input schema is not something a small model can fill; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@attrs.frozen
class Parameters:
    """The pydantic model of a tool's arguments, and how its field names map to the server's.

    ``names`` maps each Python field name to the argument name the server expects (they differ
    only for names that are not usable as pydantic fields, such as ``schema`` or ``user-id``;
    the model validates and dumps the server's names all the same).
    ``nullable`` holds the server names whose schema accepts ``null``.
    """

    model: type[pydantic.BaseModel]
    names: dict[str, str]
    nullable: frozenset[str]


def parameters_model(model_name: str, schema: Any) -> Parameters:
    """Build the flat pydantic model of ``schema``; raises :class:`SchemaRefused` when it is not flat."""
    if not isinstance(schema, dict):
        raise SchemaRefused(f"its input schema is {type(schema).__name__}, not a JSON object")
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    root = _resolve(schema, defs)
    if root.get("type", "object") != "object":
        raise SchemaRefused(f"its input schema is a {root.get('type')!r}, not an object")
    properties = root.get("properties") or {}
    if not isinstance(properties, dict):
        raise SchemaRefused("its input schema's properties are not an object")
    required = set(root.get("required") or [])
    fields: dict[str, Any] = {}
    names: dict[str, str] = {}
    nullable: set[str] = set()
    for position, (name, raw) in enumerate(properties.items()):
        if name in RESERVED:
            raise SchemaRefused(
                f"argument {name!r} has the name of the arguments stage's own field; rename it on the server"
            )
        annotation, default, options, may_be_null = _field(name, raw, defs, name in required)
        python_name = name
        if not _usable(name):
            python_name = f"arg_{position}"
            while python_name in properties or python_name in names:
                python_name += "_"
            options["alias"] = name
        names[python_name] = name
        if may_be_null:
            nullable.add(name)
        fields[python_name] = (annotation, pydantic.Field(default, **options))
    config = pydantic.ConfigDict(populate_by_name=True, serialize_by_alias=True)
    model = pydantic.create_model(model_name, __config__=config, **fields)
    return Parameters(model=model, names=names, nullable=frozenset(nullable))


def _usable(name: str) -> bool:
    """Whether ``name`` can be a pydantic field as is (not private, no clash with BaseModel)."""
    return (
        bool(_IDENTIFIER.match(name))
        and not keyword.iskeyword(name)
        and not name.startswith("model_")
        and not hasattr(pydantic.BaseModel, name)
    )


def _resolve(node: Any, defs: dict[str, Any], seen: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Inline ``$ref`` (to ``#/$defs/...`` or ``#/definitions/...``) and one-item ``allOf``."""
    if not isinstance(node, dict):
        raise SchemaRefused(f"a schema node is {node!r}, not an object")
    if "$ref" in node:
        ref = node["$ref"]
        target = ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None
        if (
            not isinstance(ref, str)
            or not ref.startswith(("#/$defs/", "#/definitions/"))
            or target not in defs
        ):
            raise SchemaRefused(f"it refers to {ref!r}, which is not defined in the schema")
        if target in seen:
            raise SchemaRefused(f"its schema is recursive (through {target!r})")
        rest = {key: value for key, value in node.items() if key != "$ref"}
        return _resolve({**defs[target], **rest}, defs, seen | {target})
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        rest = {key: value for key, value in node.items() if key != "allOf"}
        return _resolve({**_resolve(all_of[0], defs, seen), **rest}, defs, seen)
    return node


def _field(
    name: str, raw: Any, defs: dict[str, Any], required: bool
) -> tuple[Any, Any, dict[str, Any], bool]:
    """One top-level argument: its annotation, default, ``Field`` options and nullability."""
    node, may_be_null = _non_null(_resolve(raw, defs), defs, name)
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        if not isinstance(items, dict):
            raise SchemaRefused(f"argument {name!r} is a list without an item type")
        item_node, _ = _non_null(_resolve(items, defs), defs, name)
        if item_node.get("type") in ("array", "object") or "properties" in item_node:
            raise SchemaRefused(
                f"argument {name!r} is a list of {item_node.get('type', 'object')}s, "
                f"{MAX_SCHEMA_DEPTH + 1} levels deep (at most {MAX_SCHEMA_DEPTH}); {FLAT_HINT}"
            )
        annotation: Any = list[_scalar(item_node, name)]  # type: ignore[misc]
    elif kind == "object" or "properties" in node:
        raise SchemaRefused(
            f"argument {name!r} is a nested object, {MAX_SCHEMA_DEPTH + 1} levels deep "
            f"(at most {MAX_SCHEMA_DEPTH}); {FLAT_HINT}"
        )
    else:
        annotation = _scalar(node, name)
    if may_be_null:
        annotation = annotation | None
    options: dict[str, Any] = {
        target: node[source]
        for source, target in _CONSTRAINTS.items()
        if isinstance(node.get(source), (int, float)) and not isinstance(node.get(source), bool)
    }
    description = node.get("description") or raw.get("description")
    if isinstance(description, str) and description.strip():
        options["description"] = " ".join(description.split())
    if required:
        return annotation, ..., options, may_be_null
    return annotation | None, node.get("default", raw.get("default")), options, may_be_null


def _non_null(node: dict[str, Any], defs: dict[str, Any], name: str) -> tuple[dict[str, Any], bool]:
    """Strip ``null`` from ``anyOf``/``oneOf``/``type`` lists; more than one type left is refused."""
    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if isinstance(options, list):
            kept = [_resolve(option, defs) for option in options]
            non_null = [option for option in kept if option.get("type") != "null"]
            if len(non_null) != 1:
                raise SchemaRefused(f"argument {name!r} is a union of several types; {FLAT_HINT}")
            rest = {k: v for k, v in node.items() if k != key}
            return {**non_null[0], **rest}, len(non_null) < len(kept)
    if isinstance(node.get("allOf"), list):
        raise SchemaRefused(f"argument {name!r} combines several schemas (allOf); {FLAT_HINT}")
    kind = node.get("type")
    if isinstance(kind, list):
        non_null_types = [item for item in kind if item != "null"]
        if len(non_null_types) != 1:
            raise SchemaRefused(f"argument {name!r} may be any of {kind}; {FLAT_HINT}")
        return {**node, "type": non_null_types[0]}, len(non_null_types) < len(kind)
    return node, False


def _scalar(node: dict[str, Any], name: str) -> Any:
    """A scalar's Python type: ``str``/``int``/``float``/``bool``, or a ``Literal`` of choices."""
    choices = node.get("enum")
    if "const" in node:
        choices = [node["const"]]
    if isinstance(choices, list) and choices:
        if not all(isinstance(choice, (str, int, float, bool)) for choice in choices):
            raise SchemaRefused(f"argument {name!r} has choices that are not plain values")
        return Literal[tuple(choices)]
    kind = node.get("type")
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind is None:
        raise SchemaRefused(f"argument {name!r} has no type")
    raise SchemaRefused(f"argument {name!r} has the unsupported type {kind!r}; {FLAT_HINT}")
